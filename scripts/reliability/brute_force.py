"""Test 5, brute force: distributed guessing against one destination, from many client addresses
(each request with its own X-Forwarded-For behind --trust-proxy) and across resends.

The attacker starts verifications for the victim's number (the codes go to the victim: the
outbox here, read by the test only so the attacker's guesses can skip the real code and every
guess counts as a judged wrong one), fires guesses in parallel, resends whenever a code is
locked, and goes on until the server stops judging.

Phase 1, the policy's defaults with the per-destination failed-check limit lifted: guesses judged
per verification, bound maxSends × maxAttempts = 5 × 3 = 15.
Phase 2, the defaults (resend cooldown removed, which only helps the attacker): guesses judged
against the destination, bound the failed-check limit's burst of 20.
Phase 3, the same limit with its window shrunk to seconds: guesses judged over a run, bound the
burst plus one per refill interval, which is how the default limit behaves over a day.

The figure is the attacker's chance of success per day with the defaults: each judged guess of a
6-digit code is right with probability 1e-6 when no guess repeats on the same code, and at most
burst + 86,400 s / interval guesses are judged in any 24 hours.

Usage: brute_force.py VERIFICATIONS PHASE3_SECONDS
"""

import itertools
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import NO_CHECK_FLOOR, Outbox, Serve, figure, note, run_threads, work_directory

verifications = int(sys.argv[1]) if len(sys.argv) > 1 else 5
phase3_seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 10
PARALLEL = 16
VICTIM = "+14155550123"
address_counter = itertools.count(1)
address_lock = threading.Lock()


def next_address():
    with address_lock:
        n = next(address_counter)
    return f"{n // 65536 % 200 + 11}.{n // 256 % 256}.{n % 256}.7"


class Attack:
    """Counts what the server judged; guesses never repeat and never hit the real code."""

    def __init__(self, serve, outbox):
        self.serve = serve
        self.outbox = outbox
        self.guesses = itertools.count()
        self.lock = threading.Lock()
        self.judged = {}       # verification id -> guesses judged (422 or 200)
        self.addresses = set()
        self.refused = {}      # answer code -> count

    def client(self):
        address = next_address()
        with self.lock:
            self.addresses.add(address)
        return self.serve.client(forwarded_for=address, timeout=30)

    def start(self):
        response = self.client().start(VICTIM)
        return response.json().get("id") if response.status == 201 else None

    def guess_round(self, vid):
        """PARALLEL guesses at once; returns the set of answer codes."""
        real = self.outbox.code(vid)
        answers = [None] * PARALLEL

        def one(index):
            with self.lock:
                guess = f"{next(self.guesses) % 1_000_000:06d}"
            if guess == real:
                with self.lock:
                    guess = f"{next(self.guesses) % 1_000_000:06d}"
            client = self.client()
            answers[index] = client.check(vid, guess)
            client.close()

        for thread in run_threads(PARALLEL, one):
            thread.join(60)
        kinds = set()
        with self.lock:
            for answer in answers:
                kind = "approved" if answer.status == 200 else (answer.error_code() or str(answer.status))
                kinds.add(kind)
                if kind in ("incorrect_code", "approved"):
                    self.judged[vid] = self.judged.get(vid, 0) + 1
                else:
                    self.refused[kind] = self.refused.get(kind, 0) + 1
        return kinds

    def exhaust(self, vid, deadline=None):
        """Guesses, and resends when the code is locked, until the server judges no more guesses
        (without a deadline) or the deadline passes; returns what ended it."""
        while deadline is None or time.monotonic() < deadline:
            kinds = self.guess_round(vid)
            if "incorrect_code" in kinds:
                continue  # this code still takes guesses
            if "rate_limited" in kinds and deadline is None:
                return "rate_limited"
            response = self.client().resend(vid)  # a new code, and its attempts
            if response.status != 200:
                if deadline is None:
                    return response.error_code()
                time.sleep(0.05)
        return "deadline"


def server(name, arguments):
    directory = work_directory(f"brute-{name}")
    outbox_path = os.path.join(directory, "outbox.jsonl")
    serve = Serve(["--store", f"sqlite:{os.path.join(directory, 'otp.sqlite3')}", "--sender",
                   f"outbox:{outbox_path}", "--trust-proxy", "1", "--resend-cooldowns", "0"] + NO_CHECK_FLOOR + arguments, directory)
    return serve, Outbox(outbox_path)


# Phase 1: per verification.
serve, outbox = server("verification", ["--limit-failed-checks-per-destination", "1000000/86400"])
attack = Attack(serve, outbox)
ids = [attack.start() for _ in range(verifications)]
endings = [attack.exhaust(vid) for vid in ids if vid]
serve.stop()
per_verification = max(attack.judged.values(), default=0)
phase1_ok = (None not in ids and per_verification <= 15 and all(e == "max_sends_reached" for e in endings)
             and min(attack.judged.values(), default=0) == 15)
note(f"brute force phase 1: {len(ids)} verifications, judged {sorted(attack.judged.values())}, "
     f"ended {sorted(set(endings))}, refused {attack.refused}, {len(attack.addresses)} addresses")

# Phase 2: per destination, the default limits.
serve, outbox = server("destination", [])
attack2 = Attack(serve, outbox)
ids = [attack2.start() for _ in range(5)]  # 5 starts per hour per destination
endings = [attack2.exhaust(vid) for vid in ids if vid]
sixth = attack2.start()
serve.stop()
per_destination = sum(attack2.judged.values())
phase2_ok = None not in ids and per_destination <= 20 and sixth is None
note(f"brute force phase 2: judged {per_destination} against one destination over {len(ids)} verifications "
     f"(a sixth start {'refused' if sixth is None else 'ALLOWED'}), ended {sorted(set(endings))}, "
     f"refused {attack2.refused}, {len(attack2.addresses)} addresses")

# Phase 3: the failed-check limit's refill, with the window shrunk from a day to 20 s.
serve, outbox = server("refill", ["--limit-failed-checks-per-destination", "20/20",
                                  "--limit-starts-per-destination", "1000/1", "--max-sends", "1000"])
attack3 = Attack(serve, outbox)
began = time.monotonic()
vid = attack3.start()
attack3.exhaust(vid, deadline=began + phase3_seconds)
elapsed = time.monotonic() - began
serve.stop()
refill_judged = sum(attack3.judged.values())
refill_bound = 20 + int(elapsed / 1.0) + 1
phase3_ok = refill_judged <= refill_bound and refill_judged > 20
note(f"brute force phase 3: judged {refill_judged} in {elapsed:.1f} s with 20 per 20 s (bound {refill_bound})")

# The defaults over a day: the burst measured in phase 2 plus one guess per 72-minute interval.
interval = 86_400 / 20
per_day_first = per_destination + 86_400 / interval
per_day_steady = 86_400 / interval
ok = phase1_ok and phase2_ok and phase3_ok
figure(f"brute force: judged guesses at most {per_verification} per verification (bound 15 = 5 sends x 3 "
       f"attempts), {per_destination} per destination from {len(attack2.addresses)} addresses (bound 20), "
       f"{refill_judged} in {elapsed:.0f} s with the window shrunk to 20 s (bound {refill_bound}); "
       f"attacker's success probability with the defaults {per_day_first / 1e6:.1e} in the first day, "
       f"{per_day_steady / 1e6:.1e} per day after")
sys.exit(0 if ok else 1)
