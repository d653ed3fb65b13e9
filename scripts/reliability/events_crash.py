"""Test 9, lifecycle events across kill -9: every event reaches the receiver, none under two ids.

`otp serve` (SQLite store) posts lifecycle events to a receiver in this process. Each round starts
the server on the same database, starts verifications, approves, cancels and locks some of them,
while the receiver answers 500 (a receiver down for a while) or 200, and kills the server with
SIGKILL at a random moment, events pending. A last start with the receiver answering 200 must
deliver every event the clients caused: for each verification a client saw started, `pending`;
for each approval, cancellation or lock a client was told of, its event.

Bounds: every expected event arrives; no (verification, type) arrives under two different ids;
every request carries a valid signature. Duplicates of one id (at least once) are counted, not
refused.

Usage: events_crash.py ROUNDS
"""

import hashlib
import hmac
import http.server
import json
import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import (LIFTED_LIMITS, NO_CHECK_FLOOR, Outbox, Serve, figure, note, phone, work_directory,
                    wrong_code)

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 10
directory = work_directory("events-crash")
database = os.path.join(directory, "otp.sqlite3")
outbox_path = os.path.join(directory, "outbox.jsonl")
secret = os.urandom(16).hex()
randomness = random.Random(int.from_bytes(os.urandom(8), "big"))


class Receiver(http.server.BaseHTTPRequestHandler):
    """Takes event POSTs; answers 500 while `failing`, else 200."""

    failing = True
    lock = threading.Lock()
    deliveries = []  # (id, verificationId, type) of each 200 answer
    requests = 0
    bad_signatures = 0

    def do_POST(self):  # noqa: N802 (the standard library's name)
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        header = self.headers.get("X-OTP-Signature", "")
        parts = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
        # The signature names its purpose inside what is signed: "<t>.event.<body>".
        expected = hmac.new(secret.encode(), f"{parts.get('t', '')}.event.".encode() + body,
                            hashlib.sha256).hexdigest()
        event = json.loads(body)
        with Receiver.lock:
            Receiver.requests += 1
            if parts.get("p") != "event" or not hmac.compare_digest(expected, parts.get("v1", "")):
                Receiver.bad_signatures += 1
            failing = Receiver.failing
            if not failing:
                Receiver.deliveries.append((event["id"], event["verificationId"], event["type"]))
        self.send_response(500 if failing else 200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *arguments):
        pass


class ReceiverServer(http.server.ThreadingHTTPServer):
    # The standard library listens with a backlog of 5: the deliverer's parallel posts would
    # overflow it and wait a second for TCP to retry.
    request_queue_size = 128


server = ReceiverServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=server.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{server.server_address[1]}/events"

arguments = ["--store", f"sqlite:{database}", "--sender", f"outbox:{outbox_path}", "--max-attempts", "2",
             "--events", f"webhook:{url}", "--events-retry-max", "1"] + LIFTED_LIMITS + NO_CHECK_FLOOR
environment = {"OTP_EVENTS_SECRET": secret}
outbox = Outbox(outbox_path)
expected = set()  # (verificationId, type) the clients caused and were told of
key = None
next_destination = 0

for round_number in range(rounds):
    Receiver.failing = randomness.random() < 0.7
    serve = Serve(arguments, directory, key=key, environment=environment)
    key = serve.key
    client = serve.client(timeout=5)
    stop_at = time.monotonic() + randomness.uniform(0.2, 1.0)
    while time.monotonic() < stop_at:
        response = client.start(phone(next_destination))
        next_destination += 1
        if response.status != 201:
            break
        vid = response.json()["id"]
        expected.add((vid, "pending"))
        fate = randomness.random()
        if fate < 0.3:
            if client.check(vid, outbox.code(vid)).status == 200:
                expected.add((vid, "approved"))
        elif fate < 0.5:
            if client.call("POST", f"/v1/verifications/{vid}/cancel").status == 200:
                expected.add((vid, "canceled"))
        elif fate < 0.7:
            code = wrong_code(outbox.code(vid))
            client.check(vid, code)
            if client.check(vid, code).status == 422:
                expected.add((vid, "max_attempts_reached"))
    serve.kill()  # SIGKILL, with events pending

Receiver.failing = False
serve = Serve(arguments, directory, key=key, environment=environment)
deadline = time.monotonic() + 60
started = time.monotonic()
while time.monotonic() < deadline:
    with Receiver.lock:
        arrived = {(vid, kind) for _, vid, kind in Receiver.deliveries}
    if expected <= arrived:
        break
    time.sleep(0.05)
drained = time.monotonic() - started
serve.stop()
server.shutdown()

with Receiver.lock:
    deliveries = list(Receiver.deliveries)
    requests = Receiver.requests
    bad = Receiver.bad_signatures
arrived = {(vid, kind) for _, vid, kind in deliveries}
ids_per_event = {}
for event_id, vid, kind in deliveries:
    ids_per_event.setdefault((vid, kind), set()).add(event_id)
two_ids = sum(1 for ids in ids_per_event.values() if len(ids) > 1)
missing = expected - arrived
duplicates = len(deliveries) - len({event_id for event_id, _, _ in deliveries})
if missing:
    note(f"missing events, e.g. {sorted(missing)[:3]}")

ok = not missing and two_ids == 0 and bad == 0 and len(expected) > 0
figure(f"events crash: {rounds} kill -9 rounds, {len(expected)} events expected, {len(missing)} missing, "
       f"{two_ids} under two ids, {duplicates} repeated deliveries of one id, {bad} bad signatures, "
       f"{requests} requests in all, drained {drained:.1f} s after the last restart")
sys.exit(0 if ok else 1)
