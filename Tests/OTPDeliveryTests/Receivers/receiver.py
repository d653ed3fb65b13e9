"""Local stand-ins for delivery providers, for the OTPDelivery tests.

    receiver.py smtp DIR [--security none|starttls|tls] [--auth USER:PASS] [--reject]
    receiver.py http DIR [--status CODE] [--error-code N] [--hang] [--answer BODY]

Listens on a free loopback port, prints that port on one line, and records what it receives as
files in DIR: SMTP messages as N.json (envelope) and N.eml (content), HTTP requests as N.json.
It exits when its standard input closes, so it never outlives the test that started it.
"""

import argparse
import asyncio
import base64
import json
import logging
import os
import ssl
import subprocess
import sys
import threading
import time
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

counter_lock = threading.Lock()
counter = [0]


def next_name(directory):
    with counter_lock:
        counter[0] += 1
        return os.path.join(directory, str(counter[0]))


def write_json(path, value):
    temporary = path + ".tmp"
    with open(temporary, "w") as handle:
        json.dump(value, handle)
    os.rename(temporary, path)


def exit_when_stdin_closes():
    def watch():
        sys.stdin.read()
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def make_certificate(directory):
    cert = os.path.join(directory, "cert.pem")
    key = os.path.join(directory, "key.pem")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-keyout", key, "-out", cert],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


def run_smtp(args):
    from aiosmtpd.smtp import SMTP, AuthResult

    class Recorder:
        async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
            if args.reject:
                return "550 mailbox unavailable"
            envelope.rcpt_tos.append(address)
            return "250 OK"

        async def handle_DATA(self, server, session, envelope):
            base = next_name(args.dir)
            with open(base + ".eml", "wb") as handle:
                handle.write(envelope.original_content or envelope.content)
            write_json(base + ".json", {
                "from": envelope.mail_from,
                "to": envelope.rcpt_tos,
                "login": session.auth_data if session.authenticated else None,
                "tls": server.transport.get_extra_info("sslcontext") is not None,
            })
            return "250 OK"

    def authenticator(server, session, envelope, mechanism, auth_data):
        user, password = args.auth.split(":", 1)
        good = auth_data.login == user.encode() and auth_data.password == password.encode()
        if good:
            return AuthResult(success=True, auth_data=user)
        return AuthResult(success=False, handled=False, message="535 5.7.8 Authentication credentials invalid")

    tls = make_certificate(args.dir) if args.security != "none" else None

    def factory():
        options = {"hostname": "receiver.test"}
        if args.security == "starttls":
            options.update(tls_context=tls, require_starttls=True)
        if args.auth:
            options.update(authenticator=authenticator, auth_required=True,
                           auth_require_tls=args.security == "starttls")
        return SMTP(Recorder(), **options)

    async def main():
        loop = asyncio.get_running_loop()
        server = await loop.create_server(
            factory, "127.0.0.1", 0, ssl=tls if args.security == "tls" else None)
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.Event().wait()

    asyncio.run(main())


def run_http(args):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            write_json(next_name(args.dir) + ".json", {
                "path": self.path,
                "headers": {name.lower(): value for name, value in self.headers.items()},
                "body": base64.b64encode(body).decode(),
            })
            if args.hang:
                time.sleep(30)
                return
            if args.error_code is not None:
                # A Twilio-style error answer, whose message quotes the destination.
                answer = json.dumps({"code": args.error_code, "status": args.status,
                                     "message": "The 'To' number +12025550123 is not a valid phone number."}).encode()
            else:
                answer = (args.answer or json.dumps({"sid": "SM0000", "status": "queued"})).encode()
            self.send_response(args.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *arguments):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("kind", choices=["smtp", "http"])
    parser.add_argument("dir")
    parser.add_argument("--security", choices=["none", "starttls", "tls"], default="none")
    parser.add_argument("--auth")
    parser.add_argument("--reject", action="store_true")
    parser.add_argument("--status", type=int, default=201)
    parser.add_argument("--hang", action="store_true")
    parser.add_argument("--error-code", type=int)
    parser.add_argument("--answer")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    logging.disable(logging.CRITICAL)
    exit_when_stdin_closes()
    if args.kind == "smtp":
        run_smtp(args)
    else:
        run_http(args)


if __name__ == "__main__":
    main()
