"""Test 2, store outage: Redis stopped under load and started again, then Redis frozen (SIGSTOP)
and thawed.

A Redis of its own (append-only file, fsync on every write, so a restart keeps every write it
acknowledged) serves an `otp serve` with the Redis store. Six client threads run wrong checks,
reads and starts throughout. Bounds, for each outage: every request sent while Redis is out is
answered 503 store_unavailable (or, when its answer comes after Redis is back, a normal answer),
none takes longer than the store timeout (2 s) plus 1 s, none fails at the connection level and
the server never exits; the first request sent after Redis answers again succeeds within 2 s;
and at the end no verification has more attempts left than the lowest the clients were told.

Usage: store_outage.py OUTAGE_SECONDS
"""

import os
import random
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import (LIFTED_LIMITS, NO_CHECK_FLOOR, Outbox, Serve, figure, free_port, note, phone,
                    run_threads, spawn, work_directory, wrong_code)

STORE_TIMEOUT = 2.0
outage_seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5
directory = work_directory("store-outage")
redis_port = free_port()


def start_redis():
    """Starts Redis; returns the process, when it was started and when it first answered."""
    spawned = time.monotonic()
    process = spawn(["redis-server", "--port", str(redis_port), "--bind", "127.0.0.1", "--dir", directory,
                     "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--daemonize", "no",
                     "--loglevel", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        if subprocess.run(["redis-cli", "-p", str(redis_port), "ping"], capture_output=True).stdout.strip() == b"PONG":
            return process, spawned, time.monotonic()
        time.sleep(0.01)
    raise RuntimeError("redis-server did not start")


redis, _, _ = start_redis()
outbox = Outbox(os.path.join(directory, "outbox.jsonl"))
# The pumping guard off: in shadow mode (the default with this sender) a start that sent its code
# counts the send in the store before it answers, a second store call that a freeze right after the
# send holds for one more deadline; this test bounds the store calls of the start, check and status
# themselves.
serve = Serve(["--store", f"redis://127.0.0.1:{redis_port}/0", "--secret-file",
               os.path.join(directory, "secret"), "--sender", f"outbox:{outbox.path}", "--trust-proxy", "1",
               "--max-attempts", "1000", "--fraud-guard", "off"] + LIFTED_LIMITS + NO_CHECK_FLOOR, directory)
setup = serve.client(forwarded_for="203.0.113.9")
pool = [setup.start(phone(i)).json()["id"] for i in range(40)]
codes = {vid: outbox.code(vid) for vid in pool}

records = []  # (sent, answered, status, error code, operation, vid, attempts left)
lock = threading.Lock()
stop = threading.Event()


def load(index):
    client = serve.client(forwarded_for=f"10.{index}.0.1", timeout=30)
    local = random.Random(index)
    n = 0
    while not stop.is_set():
        n += 1
        vid = local.choice(pool)
        choice = local.random()
        sent = time.monotonic()
        if choice < 0.7:
            operation, response = "check", client.check(vid, wrong_code(codes[vid]))
        elif choice < 0.9:
            operation, response = "status", client.status(vid)
        else:
            operation, response = "start", client.start(phone(1_000_000 + index * 100_000 + n))
            vid = None
        answered = time.monotonic()
        with lock:
            records.append((sent, answered, response.status, response.error_code(), operation, vid,
                            response.attempts_left() if operation == "check" else None))
        time.sleep(0.002)


threads = run_threads(6, load)
time.sleep(2)

# Outage 1: Redis stopped (SIGTERM, as an operator or an orchestrator would), then started again.
redis.send_signal(signal.SIGTERM)
redis.wait(timeout=30)
down_at = time.monotonic()
time.sleep(outage_seconds)
redis, restarted_at, up_at = start_redis()
time.sleep(3)

# Outage 2: Redis frozen (SIGSTOP: it accepts connections but answers nothing), then thawed.
redis.send_signal(signal.SIGSTOP)
frozen_at = time.monotonic()
time.sleep(outage_seconds)
redis.send_signal(signal.SIGCONT)
thawed_at = time.monotonic()
time.sleep(3)
stop.set()
for thread in threads:
    thread.join(60)
server_alive = serve.alive()

# What the store says at the end, against the lowest attempts left each client was told.
lowest = {}
for _, _, status, code, operation, vid, left in records:
    if operation == "check" and left is not None and status in (422, 423):
        lowest[vid] = min(left, lowest.get(vid, left))
gained = 0
reader = serve.client(forwarded_for="203.0.113.10")
for vid, told in lowest.items():
    body = reader.status(vid).json()
    if body.get("attemptsLeft", 0) > told:
        gained += 1
serve.stop()
redis.send_signal(signal.SIGTERM)
redis.wait(timeout=30)


def judge(name, began, ended, answering):
    """Bounds for the requests sent while the store was out (from `began` until `ended`, when Redis
    was started or thawed), and for the recovery (from `answering`, when it first answered)."""
    during = [r for r in records if began <= r[0] < ended]
    bad = [r for r in during if not ((r[2] == 503 and r[3] == "store_unavailable")
                                     or (r[1] >= ended and r[2] is not None and r[2] < 500))]
    slowest = max((r[1] - r[0] for r in during), default=0.0)
    after = sorted((r for r in records if r[0] >= answering), key=lambda r: r[0])
    first_good = next((r for r in after if r[2] is not None and r[2] < 500), None)
    recovery = (first_good[1] - answering) if first_good else float("inf")
    for r in bad[:5]:
        note(f"store outage ({name}): a request sent {r[0] - began:.2f} s in answered {r[2]} {r[3]} "
             f"after {r[1] - r[0]:.2f} s")
    note(f"store outage ({name}): {len(during)} requests, {len(during) - len(bad)} answered as bounded, "
         f"slowest {slowest:.2f} s, first success {recovery:.2f} s after Redis answered again")
    ok = not bad and slowest <= STORE_TIMEOUT + 1.0 and recovery <= 2.0 and len(during) > 0
    return ok, len(during), len(bad), slowest, recovery


stopped = judge("stopped", down_at, restarted_at, up_at)
frozen = judge("frozen", frozen_at, thawed_at, thawed_at)
connection_failures = sum(1 for r in records if r[2] is None)
ok = stopped[0] and frozen[0] and gained == 0 and connection_failures == 0 and server_alive
figure(f"store outage: Redis stopped {outage_seconds:.0f} s: {stopped[1] - stopped[2]}/{stopped[1]} requests "
       f"503 store_unavailable, slowest {stopped[3]:.2f} s, back {stopped[4]:.2f} s after Redis; Redis frozen "
       f"{outage_seconds:.0f} s: {frozen[1] - frozen[2]}/{frozen[1]} 503, slowest {frozen[3]:.2f} s (bound "
       f"{STORE_TIMEOUT + 1:.0f} s), back {frozen[4]:.2f} s after; {gained} verifications gained attempts, "
       f"{connection_failures} failed connections")
sys.exit(0 if ok else 1)
