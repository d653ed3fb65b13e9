"""Test 6, timing: check latency for a right code, a wrong code and an unknown id; and, with the
thousands of codes this test knows, a scan of the server's request log for any of them.

A server of its own (SQLite store, the default check floor) gets, in a shuffled order spread over
a few keep-alive connections, N checks with the right code, N with a wrong code differing only in
the last digit, N with a code differing in every digit and N against well-formed ids that do not
exist; each verification is checked once, so every check meets the same state (pending, all
attempts left). The two-sample Kolmogorov–Smirnov test compares the latency distributions.

Bounds: right cannot be told from wrong (last digit off), nor a near-miss wrong code from a far
one (every digit off), at p < 0.01. Judging a right code costs more (the approval is written and
the failed-check permit given back) and its answer is longer; the server holds every check answer
until the check floor (50 ms) has passed since the request arrived, so that difference stays
inside it. Also bounded: no code and no full destination in the log.

Two exactly equal distributions still give p < 0.01 one time in a hundred per comparison. In CI
(OTP_RELIABILITY_CI=1), a run that misses a p bound is measured once more on a fresh server, and
passes only if the second measurement meets every bound; both are printed.

Usage: timing.py N
"""

import os
import random
import re
import sys
import threading

sys.path.insert(0, os.path.dirname(__file__))
from common import (LIFTED_LIMITS, Outbox, Serve, ci_mode, far_code, figure, ks_two_sample, note, percentile,
                    phone, run_threads, work_directory, wrong_code)

EXPECTED = {"right": 200, "near": 422, "far": 422, "unknown": 404}
CONNECTIONS = 16  # the floor makes each connection wait; several keep the run short
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def measure(samples, name):
    """One measurement on a server of its own; returns the figures as a dict."""
    directory = work_directory(name)
    outbox_path = os.path.join(directory, "outbox.jsonl")
    # The pumping guard off: thousands of starts to one range that mostly never approve are what it
    # blocks (shadow with this sender), and each of its log lines names the range's prefix, which
    # the leak count below would take for a destination.
    serve = Serve(["--store", f"sqlite:{os.path.join(directory, 'otp.sqlite3')}", "--sender",
                   f"outbox:{outbox_path}", "--trust-proxy", "1", "--fraud-guard", "off"] + LIFTED_LIMITS,
                  directory)
    outbox = Outbox(outbox_path)
    lock = threading.Lock()

    # Verifications for the right, near and far checks, made from a few threads.
    kinds = ["right", "near", "far"]
    made = {kind: [] for kind in kinds}

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
    template = made["right"][0]
    for _ in range(samples):
        # Well-formed like a real id (same prefix and length), but never issued.
        tail = "".join(random.choice(ALPHABET) for _ in range(len(template) - 3))
        tasks.append(("unknown", template[:3] + tail, "123456"))
    random.shuffle(tasks)

    latencies = {kind: [] for kind in EXPECTED}
    unexpected = []

    def check(index):
        client = serve.client()
        for number in range(index, len(tasks), CONNECTIONS):
            kind, vid, guess = tasks[number]
            client.forwarded_for = f"10.78.{number // 250 % 250}.{number % 250 + 1}"  # no address limit met
            response = client.check(vid, guess)
            with lock:
                if response.status != EXPECTED[kind]:
                    unexpected.append(response.status)
                else:
                    latencies[kind].append(response.elapsed)

    for thread in run_threads(CONNECTIONS, check):
        thread.join()
    serve.stop()

    # Log leakage: no code sent in this run, and no full destination, appears in the request log.
    with open(serve.stderr_path, encoding="utf-8", errors="replace") as log_file:
        log_text = log_file.read()
    codes_sent = set(outbox.codes.values())
    result = {
        "latencies": latencies,
        "unexpected": unexpected,
        "codes": len(codes_sent),
        "leaked_codes": sum(1 for token in re.findall(r"(?<![0-9])[0-9]{6}(?![0-9])", log_text)
                            if token in codes_sent),
        "leaked_destinations": log_text.count("+1202"),
        "log_lines": log_text.count("\n"),
    }
    result["rw"] = ks_two_sample(latencies["right"], latencies["near"])
    result["nf"] = ks_two_sample(latencies["near"], latencies["far"])
    result["wu"] = ks_two_sample(latencies["near"], latencies["unknown"])
    for kind in EXPECTED:
        values = latencies[kind]
        note(f"timing: {kind}: {len(values)} checks, median {percentile(values, 0.5) * 1e6:.0f} µs, "
             f"p90 {percentile(values, 0.9) * 1e6:.0f} µs, p99 {percentile(values, 0.99) * 1e6:.0f} µs")
    note(f"timing: KS wrong vs unknown id D={result['wu'][0]:.4f} p={result['wu'][1]:.3g}")
    if unexpected:
        note(f"timing: unexpected statuses {sorted(set(unexpected))}")
    return result


def separated(result):
    """Whether a KS test told right from wrong, or a near-miss from a far one, at p < 0.01."""
    return result["rw"][1] < 0.01 or result["nf"][1] < 0.01


def report(result, samples, label):
    latencies = result["latencies"]
    (d_rw, p_rw), (d_nf, p_nf) = result["rw"], result["nf"]
    figure(f"timing{label}: {samples} checks each over {CONNECTIONS} connections; right vs wrong KS D={d_rw:.4f} "
           f"p={p_rw:.3g}, near-miss vs far wrong D={d_nf:.4f} p={p_nf:.3g} (bound p >= 0.01 each); medians "
           f"right {percentile(latencies['right'], 0.5) * 1e6:.0f} µs, wrong "
           f"{percentile(latencies['near'], 0.5) * 1e6:.0f} µs, unknown id "
           f"{percentile(latencies['unknown'], 0.5) * 1e6:.0f} µs; {len(result['unexpected'])} unexpected answers; "
           f"{result['leaked_codes']} of {result['codes']} codes and {result['leaked_destinations']} destinations "
           f"in {result['log_lines']} log lines")


def clean(result):
    return (not result["unexpected"] and result["leaked_codes"] == 0 and result["leaked_destinations"] == 0
            and result["log_lines"] > 0)


samples = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
first = measure(samples, "timing")
if separated(first) and ci_mode():
    report(first, samples, " (first measurement, missed a p bound)")
    second = measure(samples, "timing-again")
    report(second, samples, " (measured again)")
    sys.exit(0 if clean(first) and clean(second) and not separated(second) else 1)
report(first, samples, "")
sys.exit(0 if clean(first) and not separated(first) else 1)
