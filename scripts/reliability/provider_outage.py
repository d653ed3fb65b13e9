"""Test 3, provider outage: the SMTP server and the webhook receiver down (connection refused) or
hanging (connection accepted, no answer).

Each of the four cases runs a server of its own with a SQLite store, so the test can read what
became of each verification whose first code could not be delivered. Bounds: every start that
needed the provider answers 502 delivery_failed within the sender's timeout (10 s for SMTP, 5 s
for the webhook, plus 1.5 s of slack), its verification is canceled; in the webhook cases a
resend during the outage is 502 as well and the previous code still works afterwards; and the
other requests running meanwhile (SMS starts through the outbox while SMTP is out, reads and
checks) all get their expected answer, with a p99 during the outage no worse than 3 times the
p99 before it plus 20 ms.

Usage: provider_outage.py FAILING_STARTS
"""

import json
import os
import socket
import sqlite3
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import (LIFTED_LIMITS, Outbox, Serve, figure, free_port, note, percentile, phone,
                    run_threads, work_directory)

SMTP_TIMEOUT = 10.0
WEBHOOK_TIMEOUT = 5.0
SLACK = 1.5
failing_starts = int(sys.argv[1]) if len(sys.argv) > 1 else 6


class Receiver:
    """A loopback TCP endpoint standing in for a provider.

    Mode `ok`: answers each HTTP request 200 and keeps each message's code by verification id
    (a webhook receiver that works). Mode `hang`: accepts and reads, never answers (a provider
    that hangs; for SMTP it never even greets). `stop()` closes it: connections are refused.
    """

    def __init__(self, mode):
        self.mode = mode
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(128)
        self.port = self.listener.getsockname()[1]
        self.codes = {}
        self.held = []
        self.stopped = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopped.is_set():
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.held.append(connection)
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection):
        if self.mode == "hang":
            return  # accepted, and never a byte back
        if self.mode == "down":
            connection.close()
            return
        data = b""
        try:
            while b"\r\n\r\n" not in data:
                chunk = connection.recv(65536)
                if not chunk:
                    return
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            while len(body) < length:
                chunk = connection.recv(65536)
                if not chunk:
                    return
                body += chunk
            message = json.loads(body)
            text = message["text"]
            index = text.find("code is ")
            self.codes[message["verificationId"]] = "".join(c for c in text[index + 8:index + 16]
                                                            if c.isdigit())
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            connection.close()
        except OSError:
            pass

    def code(self, vid, wait=5.0):
        deadline = time.monotonic() + wait
        while vid not in self.codes:
            if time.monotonic() > deadline:
                raise RuntimeError("no code reached the webhook receiver")
            time.sleep(0.01)
        return self.codes[vid]

    def stop(self):
        self.stopped.set()
        self.mode = "down"
        try:
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked in accept()
        except OSError:
            pass
        self.listener.close()
        for connection in self.held:
            try:
                connection.close()
            except OSError:
                pass


def verification_states(database, destinations):
    """The states of the verifications for these destinations, read from the SQLite file."""
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=10)
    try:
        marks = ",".join("?" * len(destinations))
        rows = connection.execute(
            f"SELECT state FROM otp_verifications WHERE destination IN ({marks})", destinations).fetchall()
    finally:
        connection.close()
    return [state for (state,) in rows]


def run_case(provider, failure):
    """One outage (provider `smtp` or `webhook`, failure `down` or `hang`); returns what was seen."""
    directory = work_directory(f"provider-{provider}-{failure}")
    database = os.path.join(directory, "otp.sqlite3")
    outbox_path = os.path.join(directory, "outbox.jsonl")
    secret = {}
    if provider == "smtp":
        # Email goes to the SMTP server, which is out from the start; SMS goes to the outbox and works.
        smtp = Receiver("hang") if failure == "hang" else None
        smtp_port = smtp.port if smtp else free_port()
        senders = ["--sender", f"sms=outbox:{outbox_path}", "--sender", f"email=smtp://127.0.0.1:{smtp_port}",
                   "--mail-from", "no-reply@example.org"]
        codes_from = Outbox(outbox_path)
        timeout = SMTP_TIMEOUT
    else:
        # Both channels go to the webhook, which works until the outage begins.
        smtp = None
        codes_from = Receiver("ok")
        senders = ["--sender", f"webhook:http://127.0.0.1:{codes_from.port}/hook"]
        secret = {"OTP_WEBHOOK_SECRET": os.urandom(16).hex()}
        timeout = WEBHOOK_TIMEOUT
    # The pumping guard off: the 40 starts set up below are never checked, which with a paid SMS
    # sender (the webhook) is exactly what the guard blocks after 20; this run measures outages.
    serve = Serve(["--store", f"sqlite:{database}", "--trust-proxy", "1", "--resend-cooldowns", "0",
                   "--fraud-guard", "off"]
                  + senders + LIFTED_LIMITS, directory, environment=secret)
    setup = serve.client(forwarded_for="203.0.113.1")
    before = [setup.start(phone(i)).json()["id"] for i in range(40)]
    codes = {vid: codes_from.code(vid) for vid in before}

    latencies = {False: [], True: []}
    other = {"errors": 0, "count": 0}
    during = threading.Event()
    stop = threading.Event()

    def other_traffic(index):
        client = serve.client(forwarded_for=f"198.51.100.{index + 1}", timeout=60)
        n = 0
        while not stop.is_set():
            n += 1
            vid = before[1 + (index * 13 + n) % (len(before) - 1)]  # before[0] is for the resend
            if n % 3 == 0 and provider == "smtp":
                response = client.start(phone(100_000 + index * 100_000 + n))
                good = response.status == 201
            elif n % 3 == 1:
                response = client.status(vid)
                good = response.status == 200
            else:
                wrong = "000000" if codes[vid] != "000000" else "111111"
                response = client.check(vid, wrong)
                good = response.status in (422, 423)
            latencies[during.is_set()].append(response.elapsed)
            other["count"] += 1
            if not good:
                other["errors"] += 1
                note(f"provider {provider} {failure}: other request answered {response.status}")
            time.sleep(0.005)

    threads = run_threads(2, other_traffic)
    time.sleep(1.5)

    if provider == "webhook":
        if failure == "down":
            codes_from.stop()
        else:
            codes_from.mode = "hang"
    during.set()
    if provider == "smtp":
        destinations = [f"outage{i}@example.org" for i in range(failing_starts)]
    else:
        destinations = [phone(900_000 + i) for i in range(failing_starts)]
    results = [None] * failing_starts

    def failing_start(index):
        client = serve.client(forwarded_for=f"192.0.2.{index + 1}", timeout=60)
        results[index] = client.start(destinations[index])

    outage_began = time.monotonic()
    starters = run_threads(failing_starts, failing_start)
    resend = None
    if provider == "webhook":
        resend = serve.client(forwarded_for="192.0.2.200", timeout=60).resend(before[0])
    for thread in starters:
        thread.join(120)
    # Other traffic keeps running through at least 1.5 s of outage, however fast the failures came.
    time.sleep(max(0.0, 1.5 - (time.monotonic() - outage_began)))
    during.clear()
    time.sleep(0.5)
    stop.set()
    for thread in threads:
        thread.join(60)

    kept_working = None
    if resend is not None:
        kept_working = setup.check(before[0], codes[before[0]]).status == 200
    states = verification_states(database, destinations)
    serve.stop()
    for endpoint in (smtp, codes_from):
        if isinstance(endpoint, Receiver):
            endpoint.stop()

    answers_ok = sum(1 for r in results if r is not None and r.status == 502
                     and r.error_code() == "delivery_failed")
    slowest = max((r.elapsed for r in results if r is not None), default=float("inf"))
    canceled = sum(1 for state in states if state == "canceled")
    p99_before = percentile(latencies[False], 0.99)
    p99_during = percentile(latencies[True], 0.99)
    seen = {
        "starts": failing_starts, "answered": answers_ok, "slowest": slowest, "timeout": timeout,
        "canceled": canceled if len(states) == failing_starts else 0, "other": other["count"],
        "other_ok": other["count"] - other["errors"], "p99_before": p99_before, "p99_during": p99_during,
        "resends": 0, "resends_ok": 0,
    }
    ok = (answers_ok == failing_starts and slowest <= timeout + SLACK and seen["canceled"] == failing_starts
          and other["errors"] == 0 and bool(latencies[True]) and p99_during <= 3 * p99_before + 0.020)
    detail = (f"{provider} {failure}: {answers_ok}/{failing_starts} 502 within {slowest:.1f} s "
              f"(timeout {timeout:.0f} s), {canceled}/{failing_starts} canceled")
    if resend is not None:
        seen["resends"] = 1
        good = (resend.status == 502 and resend.error_code() == "delivery_failed"
                and resend.elapsed <= timeout + SLACK and kept_working)
        seen["resends_ok"] = int(bool(good))
        ok = ok and good
        detail += f", resend {resend.status} in {resend.elapsed:.1f} s, old code {'works' if kept_working else 'LOST'}"
    detail += (f", other requests {seen['other_ok']}/{other['count']} ok, "
               f"p99 {p99_before * 1000:.1f} ms before, {p99_during * 1000:.1f} ms during")
    note("provider outage: " + detail)
    for r in results:
        if r is None or r.status != 502:
            note(f"provider {provider} {failure}: a failing start answered "
                 f"{r.status if r else None} {r.error_code() if r else ''} {r.error if r else ''}")
    return ok, seen


cases = [("smtp", "down"), ("smtp", "hang"), ("webhook", "down"), ("webhook", "hang")]
outcomes = [run_case(provider, failure) for provider, failure in cases]
passed = sum(1 for ok, _ in outcomes if ok)
total = lambda name: sum(seen[name] for _, seen in outcomes)
worst = max(max(seen["slowest"] - seen["timeout"], 0) for _, seen in outcomes)
figure(f"provider outage: {passed}/{len(cases)} cases (SMTP and webhook, each down and hanging), "
       f"{total('answered')}/{total('starts')} starts 502 delivery_failed, none later than "
       f"{worst:.1f} s past the sender's timeout, {total('canceled')}/{total('starts')} canceled, "
       f"{total('resends_ok')}/{total('resends')} resends 502 with the old code working, other requests "
       f"{total('other_ok')}/{total('other')} ok, p99 at most "
       f"{max(seen['p99_during'] for _, seen in outcomes) * 1000:.0f} ms during the outages")
sys.exit(0 if passed == len(cases) else 1)
