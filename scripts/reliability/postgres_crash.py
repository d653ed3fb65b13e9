"""PostgreSQL crash: the database server killed with SIGKILL under load, then started again on the
same data folder (crash recovery), `otp serve` left running throughout.

A throwaway PostgreSQL (initdb in a temporary folder, a free loopback port, fsync on) serves an
`otp serve` with the PostgreSQL store. Six client threads run wrong checks, reads and starts, and
a seventh approves verifications with their right codes. Bounds: while PostgreSQL is down, every
request is answered 503 store_unavailable (or normally: a backend still running, or an answer that
comes after it is back) within the store's deadline plus 1 s, and none fails at the connection level; the first
request after PostgreSQL accepts connections again succeeds within 3 s, with no restart of
`otp serve`; at the end no verification has more attempts left than the lowest the clients were
told, and every approval acknowledged before the crash is still approved.

Usage: postgres_crash.py DOWN_SECONDS
"""

import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import (LIFTED_LIMITS, NO_CHECK_FLOOR, Outbox, Serve, figure, free_port, note, phone,
                    run_threads, spawn, work_directory, wrong_code)

STORE_DEADLINE = 2.0
down_seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3
directory = work_directory("postgres-crash")
pg_bin = next((f"/usr/lib/postgresql/{v}/bin" for v in ("17", "16", "15") if os.path.isdir(f"/usr/lib/postgresql/{v}/bin")),
              None)
if pg_bin is None:
    figure("postgres crash: no PostgreSQL server binaries under /usr/lib/postgresql")
    sys.exit(1)
port = free_port()
data = os.path.join(directory, "pgdata")
socket_dir = os.path.join(directory, "pgsock")
os.makedirs(socket_dir)
# initdb and postgres refuse to run as root: the folder belongs to the postgres user, who runs them.
as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
if as_postgres:
    shutil.chown(directory, "postgres")
    shutil.chown(socket_dir, "postgres")
subprocess.run(as_postgres + [f"{pg_bin}/initdb", "-D", data, "-A", "trust", "-U", "otp", "-E", "UTF8"],
               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_postgres():
    """Starts the postmaster in the foreground of a child; returns it once it accepts connections."""
    process = spawn(as_postgres + [f"{pg_bin}/postgres", "-D", data, "-p", str(port), "-k", socket_dir,
                                   "-c", "listen_addresses=127.0.0.1", "-c", "fsync=on"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        ready = subprocess.run([f"{pg_bin}/pg_isready", "-h", "127.0.0.1", "-p", str(port), "-U", "otp"],
                               capture_output=True)
        if ready.returncode == 0:
            return process, time.monotonic()
        time.sleep(0.05)
    raise RuntimeError("postgres did not start")


def postmaster_pid():
    with open(os.path.join(data, "postmaster.pid")) as file:
        return int(file.readline())


postgres, _ = start_postgres()
subprocess.run([f"{pg_bin}/createdb", "-h", "127.0.0.1", "-p", str(port), "-U", "otp", "otp"], check=True)
outbox = Outbox(os.path.join(directory, "outbox.jsonl"))
serve = Serve(["--store", f"postgres://otp@127.0.0.1:{port}/otp?sslmode=disable", "--secret-file",
               os.path.join(directory, "secret"), "--sender", f"outbox:{outbox.path}", "--trust-proxy", "1",
               "--max-attempts", "1000"] + LIFTED_LIMITS + NO_CHECK_FLOOR, directory)
setup = serve.client(forwarded_for="203.0.113.9")
pool = [setup.start(phone(i)).json()["id"] for i in range(40)]
codes = {vid: outbox.code(vid) for vid in pool}
to_approve = [setup.start(phone(500 + i)).json()["id"] for i in range(200)]
approve_codes = {vid: outbox.code(vid) for vid in to_approve}

records = []  # (sent, answered, status, error code, operation, vid, attempts left)
approved = []  # (answered, vid): approvals the server acknowledged
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


def approver(_index):
    client = serve.client(forwarded_for="10.200.0.1", timeout=30)
    for vid in to_approve:
        if stop.is_set():
            return
        response = client.check(vid, approve_codes[vid])
        if response.status == 200 and response.json().get("status") == "approved":
            with lock:
                approved.append((time.monotonic(), vid))
        time.sleep(0.01)


threads = run_threads(6, load) + run_threads(1, approver)
time.sleep(2)

os.kill(postmaster_pid(), signal.SIGKILL)
crashed_at = time.monotonic()
postgres.wait(timeout=30)
# The killed postmaster's children notice it gone and exit; the shared memory goes with the last.
time.sleep(down_seconds)
restarted_at = time.monotonic()
postgres, up_at = start_postgres()
time.sleep(4)
stop.set()
for thread in threads:
    thread.join(60)
server_alive = serve.alive()

lowest = {}
for _, _, status, code, operation, vid, left in records:
    if operation == "check" and left is not None and status in (422, 423):
        lowest[vid] = min(left, lowest.get(vid, left))
reader = serve.client(forwarded_for="203.0.113.10")
gained = sum(1 for vid, told in lowest.items() if reader.status(vid).json().get("attemptsLeft", 0) > told)
before_crash = [vid for at, vid in approved if at < crashed_at]
lost = [vid for vid in before_crash if reader.status(vid).json().get("status") != "approved"]
serve.stop()
os.kill(postmaster_pid(), signal.SIGTERM)
postgres.wait(timeout=30)

during = [r for r in records if crashed_at <= r[0] < restarted_at]
# A backend the killed postmaster left behind may still finish a request or two before it notices;
# such an answer is a normal one, and what it changed must survive (checked below). Any other
# answer is 503 store_unavailable.
bad = [r for r in during if not ((r[2] == 503 and r[3] == "store_unavailable")
                                 or (r[2] is not None and r[2] < 500))]
unavailable = sum(1 for r in during if r[2] == 503)
slowest = max((r[1] - r[0] for r in during), default=0.0)
after = sorted((r for r in records if r[0] >= up_at), key=lambda r: r[0])
first_good = next((r for r in after if r[2] is not None and r[2] < 500), None)
recovery = (first_good[1] - up_at) if first_good else float("inf")
connection_failures = sum(1 for r in records if r[2] is None)
for r in bad[:5]:
    note(f"postgres crash: a request sent {r[0] - crashed_at:.2f} s in answered {r[2]} {r[3]} "
         f"after {r[1] - r[0]:.2f} s")
for vid in lost[:5]:
    note(f"postgres crash: {vid} was approved before the crash and is not now")
ok = (not bad and during and slowest <= STORE_DEADLINE + 1.0 and recovery <= 3.0 and gained == 0
      and not lost and connection_failures == 0 and server_alive)
figure(f"postgres crash: killed -9 for {down_seconds:.0f} s under load: {len(during) - len(bad)}/{len(during)} "
       f"requests answered as bounded ({unavailable} 503 store_unavailable), slowest {slowest:.2f} s (bound {STORE_DEADLINE + 1:.0f} s), back "
       f"{recovery:.2f} s after PostgreSQL accepted connections (no restart of otp serve); {gained} verifications "
       f"gained attempts; {len(before_crash) - len(lost)}/{len(before_crash)} approvals from before the crash kept; "
       f"{connection_failures} failed connections")
sys.exit(0 if ok else 1)
