"""Test 6, timing: check latency for a right code, a wrong code and an unknown id; and, with the
thousands of codes this test knows, a scan of the server's request log for any of them.

A server of its own (SQLite store) gets, from one keep-alive connection and in a shuffled order,
N checks with the right code, N with a wrong code differing only in the last digit, N with a
code differing in every digit and N against well-formed ids that do not exist; each
verification is checked once, so every check meets the same state (pending, all attempts left).
The two-sample Kolmogorov–Smirnov test compares the latency distributions.

Bound: a near-miss wrong code (last digit off) cannot be told from a far one (every digit off) at
p < 0.01: the comparison is constant-time, so how close a guess is does not leak. Right against
wrong is measured and printed but not bounded: an approval does two more store writes than a
rejection (the approval, and the failed-check permit given back), so it is slower by design, and
its answer already says it was right. Also bounded: no code and no full destination in the log.

Usage: timing.py N
"""

import os
import random
import re
import sys
import threading

sys.path.insert(0, os.path.dirname(__file__))
from common import (LIFTED_LIMITS, Outbox, Serve, far_code, figure, ks_two_sample, note, percentile,
                    phone, run_threads, work_directory, wrong_code)

samples = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
directory = work_directory("timing")
outbox_path = os.path.join(directory, "outbox.jsonl")
serve = Serve(["--store", f"sqlite:{os.path.join(directory, 'otp.sqlite3')}", "--sender",
               f"outbox:{outbox_path}", "--trust-proxy"] + LIFTED_LIMITS, directory)
outbox = Outbox(outbox_path)

# Verifications for the right, near and far checks, made from a few threads.
kinds = ["right", "near", "far"]
made = {kind: [] for kind in kinds}
lock = threading.Lock()


def make(index):
    client = serve.client(forwarded_for=f"10.77.{index}.1")
    for n in range(index, samples * len(kinds), 4):
        response = client.start(phone(n))
        if response.status != 201:
            raise RuntimeError(f"start answered {response.status}")
        with lock:
            made[kinds[n % len(kinds)]].append(response.json()["id"])


for thread in run_threads(4, make):
    thread.join()
tasks = []
for kind in kinds:
    for vid in made[kind]:
        code = outbox.code(vid)
        guess = code if kind == "right" else wrong_code(code) if kind == "near" else far_code(code)
        tasks.append((kind, vid, guess))
alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
template = made["right"][0]
for _ in range(samples):
    # Well-formed like a real id (same prefix and length), but never issued.
    tail = "".join(random.choice(alphabet) for _ in range(len(template) - 3))
    tasks.append(("unknown", template[:3] + tail, "123456"))
random.shuffle(tasks)

expected = {"right": 200, "near": 422, "far": 422, "unknown": 404}
latencies = {kind: [] for kind in expected}
wrong_answers = 0
client = serve.client()
for number, (kind, vid, guess) in enumerate(tasks):
    client.forwarded_for = f"10.78.{number // 250 % 250}.{number % 250 + 1}"  # no per-address limit met
    response = client.check(vid, guess)
    if response.status != expected[kind]:
        wrong_answers += 1
        continue
    latencies[kind].append(response.elapsed)
serve.stop()

# Log leakage: no code sent in this run, and no full destination, appears in the request log.
with open(serve.stderr_path, encoding="utf-8", errors="replace") as log_file:
    log_text = log_file.read()
codes_sent = set(outbox.codes.values())
leaked_codes = sum(1 for token in re.findall(r"(?<![0-9])[0-9]{6}(?![0-9])", log_text) if token in codes_sent)
leaked_destinations = log_text.count("+1202")
log_lines = log_text.count("\n")

d_rw, p_rw = ks_two_sample(latencies["right"], latencies["near"])
d_nf, p_nf = ks_two_sample(latencies["near"], latencies["far"])
d_wu, p_wu = ks_two_sample(latencies["near"], latencies["unknown"])
for kind in expected:
    values = latencies[kind]
    note(f"timing: {kind}: {len(values)} checks, median {percentile(values, 0.5) * 1e6:.0f} µs, "
         f"p90 {percentile(values, 0.9) * 1e6:.0f} µs, p99 {percentile(values, 0.99) * 1e6:.0f} µs")
note(f"timing: KS wrong vs unknown id D={d_wu:.4f} p={p_wu:.3g}")
ok = wrong_answers == 0 and p_nf >= 0.01 and leaked_codes == 0 and leaked_destinations == 0 and log_lines > 0
figure(f"timing: {samples} checks each; near-miss vs far wrong code KS D={d_nf:.4f} p={p_nf:.3g} (bound "
       f"p >= 0.01); right vs wrong D={d_rw:.4f} p={p_rw:.2g} (not bounded: an approval writes twice more), "
       f"medians right {percentile(latencies['right'], 0.5) * 1e6:.0f} µs, wrong "
       f"{percentile(latencies['near'], 0.5) * 1e6:.0f} µs, unknown id "
       f"{percentile(latencies['unknown'], 0.5) * 1e6:.0f} µs; {wrong_answers} unexpected answers; "
       f"{leaked_codes} of {len(codes_sent)} codes and {leaked_destinations} destinations in {log_lines} log lines")
sys.exit(0 if ok else 1)
