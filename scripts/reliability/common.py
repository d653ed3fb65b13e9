"""Shared parts of the reliability tests: child processes, an HTTP client, the outbox, statistics.

Every process a test starts is registered here and killed by pid when the test exits, however it
exits (normal end, exception, SIGTERM, SIGINT). Codes and API keys are never printed.
"""

import atexit
import http.client
import json
import math
import os
import random
import re
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
_children = []
_children_lock = threading.Lock()


def _cleanup():
    with _children_lock:
        children = list(_children)
    for process in children:
        if process.poll() is None:
            try:
                process.kill()
                process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass


def _on_signal(number, _frame):
    _cleanup()
    sys.exit(128 + number)


atexit.register(_cleanup)
signal.signal(signal.SIGTERM, _on_signal)
signal.signal(signal.SIGINT, _on_signal)


def spawn(arguments, **options):
    """Starts a child process that is killed (by its pid) when this test exits."""
    process = subprocess.Popen(arguments, **options)
    with _children_lock:
        _children.append(process)
    return process


def otp_binary():
    binary = os.environ.get("OTP_BIN")
    if not binary or not os.access(binary, os.X_OK):
        sys.exit("reliability: OTP_BIN must name the built otp executable")
    return binary


def work_directory(name):
    """A fresh directory for one test's files, removed at exit unless OTP_KEEP_WORK is set."""
    path = tempfile.mkdtemp(prefix=f"otp-rel-{name}-")
    if not os.environ.get("OTP_KEEP_WORK"):
        atexit.register(lambda: subprocess.run(["rm", "-rf", path], check=False))
    return path


def new_key():
    return "rel-" + secrets.token_hex(16)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def ci_mode():
    return os.environ.get("OTP_RELIABILITY_CI") == "1"


def figure(line):
    """Prints the test's one figure line."""
    print(line, flush=True)


def note(line):
    """Prints a detail on standard error (never a code or a key)."""
    print(line, file=sys.stderr, flush=True)


LIFTED_LIMITS = [
    "--limit-starts-per-destination", "1000000/1", "--limit-starts-per-address", "1000000/1",
    "--limit-checks-per-address", "1000000/1", "--limit-failed-checks-per-destination", "1000000/1",
]

# The load tests judge the server's own work, so they turn the check floor (the least time a check
# answer takes, 50 ms by default) off; timing.py measures with it on, as served by default.
NO_CHECK_FLOOR = ["--check-floor", "0"]


class Serve:
    """`otp serve` on a port of its own (`--port 0`), ready once it printed its listening line."""

    def __init__(self, arguments, directory, name="serve", key=None, environment=None, ready_timeout=30):
        self.key = key or new_key()
        self.stderr_path = os.path.join(directory, f"{name}.stderr")
        env = {k: v for k, v in os.environ.items() if not k.startswith("OTP_")}
        env.update(environment or {})
        self.stderr_file = open(self.stderr_path, "ab")
        command = [otp_binary(), "serve", "--port", "0", "--api-key", self.key] + list(arguments)
        self.process = spawn(command, stdout=subprocess.PIPE, stderr=self.stderr_file,
                             stdin=subprocess.DEVNULL, env=env)
        self.pid = self.process.pid
        line = self._first_line(ready_timeout)
        match = re.search(r'listening on http://[^" ]+:(\d+)', line)
        if not match:
            self.kill()
            raise RuntimeError(f"otp serve did not start: {self.stderr_tail()}")
        self.port = int(match.group(1))

    def _first_line(self, timeout):
        result = []
        reader = threading.Thread(target=lambda: result.append(self.process.stdout.readline()), daemon=True)
        reader.start()
        reader.join(timeout)
        return result[0].decode().strip() if result else ""

    def stderr_tail(self, lines=5):
        try:
            with open(self.stderr_path, "rb") as handle:
                return b"".join(handle.readlines()[-lines:]).decode(errors="replace")
        except OSError:
            return ""

    def alive(self):
        return self.process.poll() is None

    def rss_kib(self):
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def kill(self, number=signal.SIGKILL):
        if self.process.poll() is None:
            self.process.send_signal(number)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.stderr_file.close()
        return self.process.returncode

    def stop(self):
        """SIGTERM, as an operator would; returns the exit status."""
        return self.kill(signal.SIGTERM)

    def client(self, **options):
        return Client(self.port, self.key, **options)


class Response:
    __slots__ = ("status", "body", "elapsed", "error", "headers")

    def __init__(self, status, body, elapsed, error=None, headers=None):
        self.status = status
        self.body = body
        self.elapsed = elapsed
        self.error = error
        self.headers = headers or {}

    def json(self):
        try:
            return json.loads(self.body)
        except (ValueError, TypeError):
            return {}

    def error_code(self):
        value = self.json()
        return value.get("error", {}).get("code") if isinstance(value, dict) else None

    def attempts_left(self):
        value = self.json()
        if not isinstance(value, dict):
            return None
        if "error" in value:
            return value["error"].get("attemptsLeft")
        return value.get("attemptsLeft")


class Client:
    """One keep-alive HTTP/1.1 connection; a failed request reconnects on the next call."""

    def __init__(self, port, key, timeout=30, forwarded_for=None):
        self.port = port
        self.key = key
        self.timeout = timeout
        self.forwarded_for = forwarded_for
        self.connection = None

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def call(self, method, path, body=None, headers=None):
        all_headers = {"Authorization": f"Bearer {self.key}"}
        if self.forwarded_for:
            all_headers["X-Forwarded-For"] = self.forwarded_for
        if body is not None:
            all_headers["Content-Type"] = "application/json"
            if not isinstance(body, (bytes, str)):
                body = json.dumps(body)
        all_headers.update(headers or {})
        started = time.perf_counter()
        try:
            if self.connection is None:
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            self.connection.request(method, path, body=body, headers=all_headers)
            answer = self.connection.getresponse()
            data = answer.read()
            elapsed = time.perf_counter() - started
            if answer.getheader("Connection", "").lower() == "close":
                self.close()
            return Response(answer.status, data, elapsed, headers=dict(answer.getheaders()))
        except (OSError, http.client.HTTPException) as problem:
            self.close()
            return Response(None, b"", time.perf_counter() - started, error=type(problem).__name__)

    def start(self, to, **headers):
        return self.call("POST", "/v1/verifications", {"to": to}, headers)

    def check(self, vid, code):
        return self.call("POST", f"/v1/verifications/{vid}/check", {"code": code})

    def status(self, vid):
        return self.call("GET", f"/v1/verifications/{vid}")

    def resend(self, vid):
        return self.call("POST", f"/v1/verifications/{vid}/resend")


class Outbox:
    """Reads the codes an outbox sender wrote, incrementally; codes stay in memory only."""

    def __init__(self, path):
        self.path = path
        self.offset = 0
        self.codes = {}
        self.lock = threading.Lock()

    def refresh(self):
        with self.lock:
            try:
                with open(self.path, "rb") as handle:
                    handle.seek(self.offset)
                    data = handle.read()
            except FileNotFoundError:
                return
            end = data.rfind(b"\n") + 1
            self.offset += end
            for line in data[:end].splitlines():
                entry = json.loads(line)
                body = entry["body"]
                index = body.find("code is ")
                if index >= 0:
                    digits = body[index + 8:index + 8 + 8]
                    self.codes[entry["verificationId"]] = "".join(c for c in digits if c.isdigit())

    def code(self, vid, wait=5.0):
        deadline = time.monotonic() + wait
        while True:
            self.refresh()
            with self.lock:
                if vid in self.codes:
                    return self.codes[vid]
            if time.monotonic() > deadline:
                raise RuntimeError("no code in the outbox for a verification")
            time.sleep(0.01)


def wrong_code(code):
    """A code of the same length that differs in its last digit."""
    return code[:-1] + str((int(code[-1]) + 1) % 10)


def far_code(code):
    """A code of the same length that differs in every digit."""
    return "".join(str((int(c) + 5) % 10) for c in code)


def phone(number):
    """A distinct valid E.164 destination for a number."""
    return f"+1202{number % 10_000_000:07d}"


def run_threads(count, target, *arguments):
    threads = [threading.Thread(target=target, args=(i,) + arguments, daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    return threads


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, math.ceil(fraction * len(ordered)) - 1))
    return ordered[index]


def ks_two_sample(first, second):
    """The two-sample Kolmogorov–Smirnov statistic D and its asymptotic p-value.

    D is the largest distance between the two empirical distribution functions; the p-value is
    the Kolmogorov distribution's tail at sqrt(n·m/(n+m))·D with the usual small-sample
    correction, which is accurate for the thousands of samples used here.
    """
    a = sorted(first)
    b = sorted(second)
    n, m = len(a), len(b)
    i = j = 0
    distance = 0.0
    while i < n and j < m:
        value = min(a[i], b[j])
        while i < n and a[i] == value:
            i += 1
        while j < m and b[j] == value:
            j += 1
        distance = max(distance, abs(i / n - j / m))
    effective = math.sqrt(n * m / (n + m))
    lam = (effective + 0.12 + 0.11 / effective) * distance
    return distance, kolmogorov_tail(lam)


def kolmogorov_tail(lam):
    """P(K > lam) for the Kolmogorov distribution: 2·Σ (−1)^(k−1)·exp(−2k²·lam²)."""
    if lam < 1e-3:
        return 1.0
    total = 0.0
    for k in range(1, 200):
        term = 2.0 * (-1) ** (k - 1) * math.exp(-2.0 * k * k * lam * lam)
        total += term
        if abs(term) < 1e-12:
            break
    return min(1.0, max(0.0, total))


def shuffled(items, seed=None):
    items = list(items)
    random.Random(seed).shuffle(items)
    return items
