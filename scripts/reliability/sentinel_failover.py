"""Test, Sentinel failover: the Redis primary killed under load; `otp serve` follows the sentinels
to the promoted replica without a restart.

A primary, two replicas (`--replicaof`) and three sentinels (quorum 2, down after 1 s) run on
loopback ports of their own; `otp serve` reaches the primary through
`redis-sentinel://…/otp/0 --redis-wait-replicas 1`, so every write it acknowledges is on a replica
too. Two replicas, because after the failover the promoted one needs a replica of its own for its
writes' `WAIT 1`: with one, writes fail until the old primary comes back. Client threads run starts and wrong checks; one more thread approves verifications with their
right codes. The primary is then killed (SIGKILL). Bounds: requests succeed again within 10 s of the
kill; no verification the clients checked has more attempts left after the failover than the least
it was told before; every approval acknowledged before the kill is still approved after it.

Usage: sentinel_failover.py [SECONDS_OF_LOAD_BEFORE_AND_AFTER]
"""

import os
import random
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import (LIFTED_LIMITS, NO_CHECK_FLOOR, Outbox, Serve, ci_mode, figure, free_port, note, phone,
                    run_threads, spawn, work_directory, wrong_code)

RECOVERY_BOUND = 10.0
load_seconds = float(sys.argv[1]) if len(sys.argv) > 1 else (2 if ci_mode() else 5)
directory = work_directory("sentinel-failover")
primary_port = free_port()
replica_ports = [free_port(), free_port()]
sentinel_ports = [free_port() for _ in range(3)]


def cli(port, *arguments):
    result = subprocess.run(["redis-cli", "-p", str(port)] + list(arguments), capture_output=True, timeout=10)
    return result.stdout.decode(errors="replace").strip()


def wait_until(predicate, what, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise RuntimeError(f"timed out waiting for {what}")


def start_redis(port, *extra):
    data = os.path.join(directory, f"redis-{port}")
    os.makedirs(data)
    process = spawn(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", data, "--save", "",
                     "--appendonly", "yes", "--daemonize", "no", "--loglevel", "warning"] + list(extra),
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: cli(port, "ping") == "PONG", f"redis-server on {port}")
    return process


def start_sentinel(port):
    data = os.path.join(directory, f"sentinel-{port}")
    os.makedirs(data)
    config = os.path.join(data, "sentinel.conf")
    with open(config, "w") as handle:
        handle.write(f"port {port}\nbind 127.0.0.1\ndir {data}\nsentinel resolve-hostnames no\n"
                     f"sentinel monitor otp 127.0.0.1 {primary_port} 2\n"
                     "sentinel down-after-milliseconds otp 1000\nsentinel failover-timeout otp 5000\n")
    process = spawn(["redis-sentinel", config], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: cli(port, "ping") == "PONG", f"redis-sentinel on {port}")
    return process


primary = start_redis(primary_port)
replicas = [start_redis(port, "--replicaof", "127.0.0.1", str(primary_port)) for port in replica_ports]
wait_until(lambda: all("master_link_status:up" in cli(port, "info", "replication") for port in replica_ports),
           "the replicas' links")
sentinels = [start_sentinel(port) for port in sentinel_ports]
# Each sentinel knows the replicas and the two other sentinels before the primary is killed.
wait_until(lambda: all(all(cli(port, "sentinel", "replicas", "otp").count(str(r)) > 0 for r in replica_ports)
                       and cli(port, "sentinel", "sentinels", "otp").count("runid") >= 2
                       for port in sentinel_ports), "the sentinels to find each other", timeout=60)

outbox = Outbox(os.path.join(directory, "outbox.jsonl"))
store = "redis-sentinel://" + ",".join(f"127.0.0.1:{port}" for port in sentinel_ports) + "/otp/0"
serve = Serve(["--store", store, "--redis-wait-replicas", "1", "--secret-file", os.path.join(directory, "secret"),
               "--sender", f"outbox:{outbox.path}", "--trust-proxy", "1", "--max-attempts", "1000"]
              + LIFTED_LIMITS + NO_CHECK_FLOOR, directory)
setup = serve.client(forwarded_for="203.0.113.9")
pool = [setup.start(phone(i)).json()["id"] for i in range(30)]
codes = {vid: outbox.code(vid) for vid in pool}

records = []  # (sent, answered, status, operation, vid, attempts left)
approvals = []  # (answered, vid) of approvals the server acknowledged
lock = threading.Lock()
stop = threading.Event()


def load(index):
    client = serve.client(forwarded_for=f"10.{index}.0.1", timeout=30)
    local = random.Random(index)
    n = 0
    while not stop.is_set():
        n += 1
        sent = time.monotonic()
        if local.random() < 0.7:
            vid = local.choice(pool)
            operation, response = "check", client.check(vid, wrong_code(codes[vid]))
        else:
            vid = None
            operation, response = "start", client.start(phone(1_000_000 + index * 100_000 + n))
        answered = time.monotonic()
        with lock:
            records.append((sent, answered, response.status, operation, vid,
                            response.attempts_left() if operation == "check" else None))
        time.sleep(0.005)


def approve(index):
    client = serve.client(forwarded_for="10.200.0.1", timeout=30)
    n = 0
    while not stop.is_set():
        n += 1
        started = client.start(phone(2_000_000 + n))
        if started.status != 201:
            time.sleep(0.05)
            continue
        vid = started.json()["id"]
        try:
            code = outbox.code(vid, wait=2.0)
        except RuntimeError:  # no message: the start was lost with the primary
            continue
        answer = client.check(vid, code)
        if answer.status == 200 and answer.json().get("status") == "approved":
            with lock:
                approvals.append((time.monotonic(), vid))
        time.sleep(0.02)


threads = run_threads(4, load) + run_threads(1, approve)
time.sleep(load_seconds)
primary.kill()
primary.wait(timeout=30)
killed_at = time.monotonic()


def recovered():
    with lock:
        return any(r[0] > killed_at and r[2] is not None and r[2] < 500 for r in records)


try:
    wait_until(recovered, "a success after the kill", timeout=RECOVERY_BOUND + 5)
except RuntimeError:
    pass
time.sleep(load_seconds)
stop.set()
for thread in threads:
    thread.join(60)
server_alive = serve.alive()

after = sorted((r for r in records if r[0] > killed_at), key=lambda r: r[1])
first_good = next((r for r in after if r[2] is not None and r[2] < 500), None)
recovery = (first_good[1] - killed_at) if first_good else float("inf")
failed_during = sum(1 for r in after if first_good and r[1] <= first_good[1] and (r[2] is None or r[2] >= 500))

# Attempts: the least each verification was told before the kill, against what it says afterwards
# (every answer after the kill, and its status at the end).
told = {}
for sent, answered, status, operation, vid, left in records:
    if operation == "check" and left is not None and answered <= killed_at:
        told[vid] = min(left, told.get(vid, left))
gained = set()
for sent, answered, status, operation, vid, left in records:
    if operation == "check" and left is not None and answered > killed_at and vid in told and left > told[vid]:
        gained.add(vid)
reader = serve.client(forwarded_for="203.0.113.10")
for vid, least in told.items():
    body = reader.status(vid).json()
    if body.get("attemptsLeft", 0) > least:
        gained.add(vid)

before = [vid for answered, vid in approvals if answered <= killed_at]
kept = sum(1 for vid in before if reader.status(vid).json().get("status") == "approved")
lost = len(before) - kept
for vid in sorted(gained)[:5]:
    note(f"sentinel failover: {vid[:10]}… has more attempts left after the failover than it was told before")
note(f"sentinel failover: {len(records)} requests, {len(after)} sent after the kill, {failed_during} failed "
     f"before the first success; {len(before)} approvals before the kill, {lost} lost")
serve.stop()
for process in replicas + sentinels:
    process.kill()
    process.wait(timeout=30)

ok = recovery <= RECOVERY_BOUND and not gained and lost == 0 and server_alive and len(before) > 0
figure(f"sentinel failover: primary killed under load; requests succeed again {recovery:.2f} s after "
       f"(bound {RECOVERY_BOUND:.0f} s), {failed_during} failed meanwhile; {len(gained)} of {len(told)} "
       f"verifications gained attempts; {kept}/{len(before)} approvals kept")
sys.exit(0 if ok else 1)
