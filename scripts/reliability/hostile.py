"""Test 7, hostile requests: a table of malformed, oversized and slow requests against a live
`otp serve` (SQLite store, connection timeout 2 s). Each row gets the 4xx it should (or, for a
client that stalls, is dropped within the connection timeout), and after every row the server
still answers /healthz and a normal start. At the end it stops cleanly on SIGTERM and its
request log holds no 5xx.
"""

import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import LIFTED_LIMITS, Outbox, Serve, figure, note, phone, work_directory

TIMEOUT = 2
directory = work_directory("hostile")
outbox = Outbox(os.path.join(directory, "outbox.jsonl"))
serve = Serve(["--store", f"sqlite:{os.path.join(directory, 'otp.sqlite3')}", "--sender",
               f"outbox:{outbox.path}", "--connection-timeout", str(TIMEOUT)] + LIFTED_LIMITS, directory)
AUTH = f"Authorization: Bearer {serve.key}\r\n".encode()


def exchange(data, wait=15.0, pieces=None):
    """Sends raw bytes (or pieces with pauses) and returns (status or None, seconds until the answer or close)."""
    started = time.monotonic()
    connection = socket.create_connection(("127.0.0.1", serve.port), timeout=wait)
    try:
        try:
            if pieces:
                for piece, pause in pieces:
                    connection.sendall(piece)
                    time.sleep(pause)
            else:
                connection.sendall(data)
        except OSError:
            pass  # the server may close early (an oversized body); its answer is still readable
        received = b""
        while b"\r\n" not in received:
            try:
                chunk = connection.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            received += chunk
        elapsed = time.monotonic() - started
        line = received.split(b"\r\n", 1)[0].split(b" ")
        status = int(line[1]) if len(line) > 1 and line[1].isdigit() else None
        return status, elapsed
    finally:
        connection.close()


def post(path, body, extra=b"", content_length=True):
    head = f"POST {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n".encode() + AUTH + extra
    if content_length:
        head += f"Content-Length: {len(body)}\r\n".encode()
    return head + b"\r\n" + body


def start_body(to):
    return post("/v1/verifications", b'{"to":' + to + b"}")


def healthy():
    client = serve.client()
    ok = client.call("GET", "/healthz").status == 200
    response = client.start(phone(int(time.monotonic() * 1000) % 9_000_000))
    client.close()
    return ok and response.status == 201


setup = serve.client()
vid = setup.start(phone(1)).json()["id"]
check_path = f"/v1/verifications/{vid}/check"
big = b"x" * (1 << 20)
chunked_big = b"".join(b"%x\r\n" % 4096 + b"y" * 4096 + b"\r\n" for _ in range(256)) + b"0\r\n\r\n"

rows = [
    ("invalid UTF-8 in a start body", lambda: exchange(start_body(b'"\xff\xfe\xfd"')), {400}),
    ("invalid UTF-8 in a check body", lambda: exchange(post(check_path, b'{"code":"\xc3\x28\xa0\xa1"}')), {400}),
    ("a lone surrogate escape", lambda: exchange(start_body(b'"\\ud800"')), {400}),
    ("a NUL inside the destination", lambda: exchange(start_body(b'"+1555\\u00000100"')), {400}),
    ("1 MiB body with Content-Length", lambda: exchange(post("/v1/verifications", big)), {413}),
    ("1 MiB chunked body", lambda: exchange(post("/v1/verifications", chunked_big,
                                                 b"Transfer-Encoding: chunked\r\n", False)), {413}),
    ("Content-Length of 1 TiB, no body", lambda: exchange(
        post("/v1/verifications", b"", b"Content-Length: 1099511627776\r\n", False)), {413}),
    ("8,000 nested arrays", lambda: exchange(start_body(b"[" * 8000 + b"]" * 8000)), {400}),
    ("2,700 nested objects", lambda: exchange(post("/v1/verifications", b'{"a":' * 2700 + b"1" + b"}" * 2700)),
     {400}),
    ("nesting just over the body limit", lambda: exchange(start_body(b"[" * 17000)), {413}),
    ("a number where the destination belongs", lambda: exchange(start_body(b"15550100")), {400}),
    ("a huge number where the code belongs", lambda: exchange(post(check_path, b'{"code":1e99999}')), {400}),
    ("a number where the code belongs", lambda: exchange(post(check_path, b'{"code":482019}')), {400}),
    ("null, array and object destinations", lambda: max(
        exchange(start_body(v)) for v in (b"null", b"[]", b"{}", b"true")), {400}),
    ("a body that is not JSON", lambda: exchange(post("/v1/verifications", b"to=+12015550100")), {400}),
    ("a 300-byte code", lambda: exchange(post(check_path, b'{"code":"' + b"1" * 300 + b'"}')), {400}),
    ("a destination of emoji", lambda: exchange(start_body('"📱📱📱📱📱📱📱"'.encode())), {400}),
    ("a non-ASCII Idempotency-Key", lambda: exchange(
        post("/v1/verifications", b'{"to":"+12015550100"}', "Idempotency-Key: clé\r\n".encode())), {400}),
    ("a 300-byte Idempotency-Key", lambda: exchange(
        post("/v1/verifications", b'{"to":"+12015550100"}', b"Idempotency-Key: " + b"k" * 300 + b"\r\n")), {400}),
    ("10,000 headers", lambda: exchange(
        b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-F%d: y\r\n" % i for i in range(10000)) + b"\r\n"),
     {400, 413, 431}),
    ("one 100 KiB header", lambda: exchange(
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"z" * 102400 + b"\r\n\r\n"), {400, 413, 431}),
    ("a 100 KiB path", lambda: exchange(b"GET /" + b"p" * 102400 + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
     {400, 413, 414, 431}),
    ("a path with ../ and %00", lambda: exchange(
        b"GET /v1/verifications/../../etc/passwd%00 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + AUTH + b"\r\n"),
     {404}),
    ("a negative Content-Length", lambda: exchange(
        post("/v1/verifications", b"{}", b"Content-Length: -5\r\n", False)), {400, 413}),
    ("Content-Length and chunked together", lambda: exchange(post(
        "/v1/verifications", b"5\r\nhello\r\n0\r\n\r\n", b"Transfer-Encoding: chunked\r\nContent-Length: 3\r\n",
        False)), {400}),
    ("a request line of garbage", lambda: exchange(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 64
                                                    + b"\r\n\r\n"), {400, 505, None}),
    ("a wrong key, 200 times", lambda: max(exchange(
        b"GET /v1/verifications/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer nope\r\n\r\n")
        for _ in range(200)), {401}),
]


def stall(pieces):
    """Sends pieces with pauses after each, then waits; returns (status or None, seconds from the
    last byte sent until the server answered or closed)."""
    connection = socket.create_connection(("127.0.0.1", serve.port), timeout=TIMEOUT + 10)
    try:
        try:
            for piece, pause in pieces:
                connection.sendall(piece)
                time.sleep(pause)
        except (BrokenPipeError, ConnectionResetError):
            return None, 0.0  # dropped while still sending
        last = time.monotonic()
        received = b""
        try:
            while b"\r\n" not in received:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                received += chunk
        except (ConnectionResetError, socket.timeout):
            pass
        line = received.split(b"\r\n", 1)[0].split(b" ")
        return (int(line[1]) if len(line) > 1 and line[1].isdigit() else None), time.monotonic() - last
    finally:
        connection.close()


SLOW = [
    # Half a request head, then silence: dropped after the connection timeout.
    ("half a head, then silence", lambda: stall([(b"POST /v1/verifications HTTP/1.1\r\nHost: x\r\n", 0)]),
     {None}),
    # A whole head declaring a body that never comes: dropped after the connection timeout.
    ("a head, then no body", lambda: stall([(b"POST /v1/verifications HTTP/1.1\r\nHost: x\r\n" + AUTH
                                             + b"Content-Length: 20\r\n\r\n", 0)]), {None}),
    # A body of 20 spaces at one byte every 0.25 s: never idle for the timeout, but a whole request
    # must arrive within it, so it is dropped before the last byte.
    ("a body at four bytes a second", lambda: stall([(b"POST /v1/verifications HTTP/1.1\r\nHost: x\r\n"
                                                      + AUTH + b"Content-Length: 20\r\n\r\n", 0)]
                                                    + [(b" ", 0.25)] * 20), {None}),
]


def many_idle(count):
    """`count` connections from one host (127.0.0.2) that say nothing, while a normal request from
    another (127.0.0.1) still gets its answer at once: past the per-address limit the flood's
    connections are closed as they come."""
    idle = []
    try:
        for _ in range(count):
            idle.append(socket.create_connection(("127.0.0.1", serve.port), timeout=10,
                                                 source_address=("127.0.0.2", 0)))
        time.sleep(0.3)
        started = time.monotonic()
        client = serve.client(timeout=TIMEOUT + 8)
        response = client.call("GET", "/healthz")
        client.close()
        return response.status, time.monotonic() - started
    finally:
        for connection in idle:
            connection.close()


failures = []
for name, run, allowed in rows:
    status, elapsed = run()
    alive = healthy()
    if status not in allowed or not alive:
        failures.append(name)
    note(f"hostile: {name}: {status} in {elapsed:.2f} s, server {'up' if alive else 'DOWN'}")

# Slow clients, 20 at once: each is dropped within the timeout plus slack, or answered, and the
# server answers others meanwhile.
for name, run, allowed in SLOW:
    results = []
    threads = [threading.Thread(target=lambda: results.append(run())) for _ in range(20)]
    for thread in threads:
        thread.start()
    time.sleep(0.5)
    alive_meanwhile = healthy()
    for thread in threads:
        thread.join()
    good = len(results) == 20 and all(status in allowed and elapsed <= TIMEOUT + 1.5
                                      for status, elapsed in results)
    alive = healthy()
    if not (good and alive_meanwhile and alive):
        failures.append(name)
    note(f"hostile: 20 clients sending {name}: {sorted(set(s for s, _ in results), key=str)} within "
         f"{max(e for _, e in results):.1f} s of their last byte, others answered meanwhile: {alive_meanwhile}")

# Connection floods from one address: a normal request is still answered within a second.
for count in (300, 2000):
    status, elapsed = many_idle(count)
    if status != 200 or elapsed > 1.0:
        failures.append(f"{count} idle connections")
    note(f"hostile: {count} idle connections, then a normal request: {status} in {elapsed:.2f} s")

exit_status = serve.stop()
with open(serve.stderr_path, "rb") as log:
    server_errors = sum(1 for line in log if b'"status":5' in line)
total = len(rows) + len(SLOW) + 2
ok = not failures and exit_status == 0 and server_errors == 0
figure(f"hostile requests: {total - len(failures)}/{total} rows answered as expected (4xx, or dropped "
       f"within the {TIMEOUT} s timeout for slow clients), server up after every row, {server_errors} 5xx "
       f"in its log, exit status {exit_status} on SIGTERM")
for name in failures:
    note(f"hostile: FAILED: {name}")
sys.exit(0 if ok else 1)
