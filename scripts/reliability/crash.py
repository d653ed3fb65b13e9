"""Test 1, crash: kill -9 of `otp serve` (SQLite store) under a load of wrong and right checks.

Each round starts the server on the same database file, opens a few fresh verifications, runs
checks from several threads (mostly wrong codes, some right ones), kills the server with SIGKILL
at a random moment, restarts it on the same file and reads every verification the clients heard
about. Bounds: no verification reads more attempts left than the lowest the clients were told
(attempts are taken in the store before the answer leaves), and every verification a client saw
approved is still approved.

Usage: crash.py ROUNDS
"""

import os
import random
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import (LIFTED_LIMITS, NO_CHECK_FLOOR, Outbox, Serve, figure, note, phone, run_threads,
                    work_directory, wrong_code)

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
directory = work_directory("crash")
database = os.path.join(directory, "otp.sqlite3")
outbox_path = os.path.join(directory, "outbox.jsonl")
arguments = ["--store", f"sqlite:{database}", "--sender", f"outbox:{outbox_path}", "--trust-proxy", "1",
             "--max-attempts", "1000"] + LIFTED_LIMITS + NO_CHECK_FLOOR
outbox = Outbox(outbox_path)
randomness = random.Random(int.from_bytes(os.urandom(8), "big"))

lowest_told = {}      # id -> the lowest attemptsLeft any answer carried
approved_told = set()  # ids some answer said were approved
lock = threading.Lock()
answered = 0
restarts = 0
gained = set()
lost = set()
unreadable = set()
key = None
next_destination = 0


def hear(vid, response):
    """Records what an answer told a client."""
    global answered
    if response.status is None:
        return
    body = response.json()
    with lock:
        answered += 1
        if response.status == 200 and body.get("status") == "approved":
            approved_told.add(vid)
        left = response.attempts_left()
        if response.status == 423:
            left = 0
        if left is not None:
            lowest_told[vid] = min(left, lowest_told.get(vid, left))


def audit(reader):
    """Reads every verification clients heard about and compares it with what they were told."""
    for vid in sorted(lowest_told):
        response = reader.status(vid)
        if response.status != 200:
            unreadable.add(vid)
            continue
        body = response.json()
        if vid in approved_told and body.get("status") != "approved":
            lost.add(vid)
        if body.get("status") != "approved" and body.get("attemptsLeft", 0) > lowest_told[vid]:
            gained.add(vid)


for round_number in range(rounds):
    serve = Serve(arguments, directory, key=key)
    key = serve.key
    if round_number:
        restarts += 1
    # The restart's reading: what the file says about every verification clients heard about.
    reader = serve.client(forwarded_for="198.51.100.1")
    if round_number:
        audit(reader)

    # Fresh verifications for this round; older ones keep being checked too.
    fresh = []
    for _ in range(40):
        response = reader.start(phone(next_destination))
        next_destination += 1
        if response.status == 201:
            vid = response.json()["id"]
            fresh.append(vid)
            hear(vid, response)
    pool = [vid for vid in lowest_told if vid not in approved_told and lowest_told[vid] > 0] + fresh
    codes = {vid: outbox.code(vid) for vid in pool}

    stop = threading.Event()

    def load(index):
        client = serve.client(forwarded_for=f"10.{round_number}.{index}.1", timeout=5)
        local = random.Random(index * 7919 + round_number)
        while not stop.is_set():
            vid = local.choice(pool)
            code = codes[vid] if local.random() < 0.02 else wrong_code(codes[vid])
            response = client.check(vid, code)
            if response.status is None:
                return  # the server is gone
            hear(vid, response)

    threads = run_threads(6, load)
    time.sleep(randomness.uniform(0.3, 1.5))
    serve.kill()  # SIGKILL: no chance to finish anything
    stop.set()
    for thread in threads:
        thread.join(10)

serve = Serve(arguments, directory, key=key)
audit(serve.client())
restarts += 1
serve.stop()

ok = not gained and not lost and not unreadable and restarts == rounds
figure(f"crash: {restarts}/{rounds} restarts after kill -9, {answered} answers over "
       f"{len(lowest_told)} verifications, {len(gained)} verifications gained attempts, "
       f"{len(lost)} approvals lost of {len(approved_told)}, {len(unreadable)} unreadable")
sys.exit(0 if ok else 1)
