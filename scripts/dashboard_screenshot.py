"""Draws the Grafana dashboard's panels (packaging/grafana/otp-dashboard.json) from a real run:
`otp serve` under a little traffic, scraped every second by a throwaway Prometheus on loopback,
each panel's own query asked of Prometheus over the run, drawn with matplotlib into
docs/screenshots/dashboard.png.

Usage: dashboard_screenshot.py OTP_BINARY [SECONDS]   (`make dashboard-screenshot`)
"""

import http.server
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

binary = sys.argv[1]
seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 150
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
dashboard = json.load(open(os.path.join(root, "packaging/grafana/otp-dashboard.json")))
work = tempfile.mkdtemp()
processes = []


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stop_all():
    for process in processes:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
    shutil.rmtree(work, ignore_errors=True)


try:
    key = "dash-" + os.urandom(16).hex()
    began = time.monotonic()

    class Events(http.server.BaseHTTPRequestHandler):
        """The events endpoint: it takes events, except in the middle of the run, when it is down."""

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            phase = (time.monotonic() - began) / seconds
            self.send_response(503 if 0.35 < phase < 0.6 else 200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *arguments):
            pass

    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Events)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    receiver_port = receiver.server_address[1]
    server = subprocess.Popen(
        [binary, "serve", "--port", "0", "--api-key", key, "--store", f"sqlite:{work}/otp.sqlite3",
         "--sender", f"outbox:{work}/outbox.jsonl", "--trust-proxy", "1",
         "--limit-starts-per-address", "10/60", "--events-retry-max", "2", "--events", f"webhook:http://127.0.0.1:{receiver_port}/events"],
        stdout=subprocess.PIPE, stderr=open(f"{work}/serve.log", "w"), text=True,
        env=dict(os.environ, OTP_EVENTS_SECRET="dashboard"))
    processes.append(server)
    started = re.search(r'listening on (http://[^" ]+)', server.stdout.readline())
    url = started.group(1) if started else ""
    target = url.removeprefix("http://")
    prometheus_port = free_port()
    open(f"{work}/prometheus.yml", "w").write(
        "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        f"scrape_configs:\n  - job_name: otp\n    static_configs:\n      - targets: ['{target}']\n")
    prometheus = subprocess.Popen(
        ["prometheus", f"--config.file={work}/prometheus.yml", f"--storage.tsdb.path={work}/tsdb",
         f"--web.listen-address=127.0.0.1:{prometheus_port}"],
        stdout=subprocess.DEVNULL, stderr=open(f"{work}/prometheus.log", "w"))
    processes.append(prometheus)

    def call(method, path, body=None, address="198.51.100.1"):
        request = urllib.request.Request(
            url + path, method=method, data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json",
                     "X-Forwarded-For": address})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, {}

    def code_of(vid):
        for line in open(f"{work}/outbox.jsonl"):
            message = json.loads(line)
            if message["verificationId"] == vid:
                return re.search(r"code is ([0-9]+)", message["body"]).group(1)
        return None

    # Traffic: people who mostly type the right code, some who mistype first, some who never come
    # back, a burst from one address that meets its rate limit; the events endpoint is down for a
    # while in the middle, so events wait and then drain.
    random.seed(7)
    number = 0
    while time.monotonic() - began < seconds:
        number += 1
        phase = (time.monotonic() - began) / seconds
        address = f"198.51.100.{number % 200 + 1}" if not 0.7 < phase < 0.85 else "203.0.113.66"
        status, started = call("POST", "/v1/verifications", {"to": f"+1555555{number % 10000:04d}"}, address)
        if status == 201:
            code = code_of(started["id"])
            roll = random.random()
            if roll < 0.2 and code:
                call("POST", f"/v1/verifications/{started['id']}/check", {"code": "000000" if code != "000000" else "111111"}, address)
            if roll < 0.8 and code:
                call("POST", f"/v1/verifications/{started['id']}/check", {"code": code}, address)
        time.sleep(0.05 + 0.1 * random.random())
    time.sleep(3)

    base = f"http://127.0.0.1:{prometheus_port}"
    end = time.time()
    start = end - seconds - 3
    figure, axes = plt.subplots(4, 2, figsize=(14, 13))
    figure.suptitle(f"{dashboard['title']}: otp serve over {seconds} s of traffic, scraped by Prometheus every second",
                    fontsize=13)
    for axis, panel in zip(axes.flat, dashboard["panels"]):
        target = panel["targets"][0]
        query = urllib.parse.urlencode({"query": target["expr"], "start": start, "end": end, "step": 1})
        with urllib.request.urlopen(f"{base}/api/v1/query_range?{query}", timeout=30) as answer:
            series = json.loads(answer.read())["data"]["result"]
        axis.set_title(panel["title"], fontsize=10, loc="left")
        for item in series:
            times = [float(t) - start for t, _ in item["values"]]
            values = [float(v) for _, v in item["values"]]
            label = re.sub(r"\{\{(\w+)\}\}", lambda m: item["metric"].get(m.group(1), ""), target["legendFormat"]).strip()
            axis.plot(times, values, label=label or "value", linewidth=1.2)
        if not series:
            axis.text(0.5, 0.5, "no data", ha="center", va="center", transform=axis.transAxes, color="gray")
        axis.set_xlabel("seconds", fontsize=8)
        axis.tick_params(labelsize=8)
        axis.grid(alpha=0.3)
        if series:
            axis.legend(fontsize=7, loc="upper left")
    figure.tight_layout(rect=(0, 0, 1, 0.97))
    output = os.path.join(root, "docs/screenshots/dashboard.png")
    figure.savefig(output, dpi=80)
    print(f"drew {len(dashboard['panels'])} panels from {number} starts into {os.path.relpath(output, root)}")
finally:
    stop_all()
