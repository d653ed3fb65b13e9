"""What the hosted page's browser tests share: `otp serve`, the return site, the outbox, Chromium.

The tests drive the page `otp serve` renders for a hosted verification in headless Chromium
(Debian's chromium and chromium-driver, through selenium). Each server this module starts is
stopped by its own process id when the tests end.
"""

import http.server
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import (
    JavascriptException,
    NoSuchElementException,
    StaleElementReferenceException,
)
from selenium.webdriver.chrome.service import Service

OTP_BIN = os.environ.get("OTP_BIN", ".build/debug/otp")
AXE_JS = os.environ.get("OTP_AXE_JS", "")
SCREENSHOT_DIR = os.environ.get("OTP_SCREENSHOT_DIR", "")
CHROMIUM = os.environ.get("OTP_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("OTP_CHROMEDRIVER", "/usr/bin/chromedriver")
WIDTH, HEIGHT = 390, 844
# What a backend keeps with its sign-in; the approval token must carry it back as `nonce`.
NONCE = "browser-nonce-" + secrets.token_hex(8)

# Rate limits lifted so a whole run from one address reaches the rules under test.
LIFTED_LIMITS = [
    "--limit-starts-per-destination", "1000000/3600",
    "--limit-starts-per-address", "1000000/300",
    "--limit-checks-per-address", "1000000/300",
    "--limit-failed-checks-per-destination", "1000000/86400",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(condition, timeout=10.0, interval=0.05, what="condition"):
    """Polls `condition` until it returns something true; fails with `what` after `timeout` s."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = condition()
        except (NoSuchElementException, StaleElementReferenceException) as error:
            # Between two documents (a form posted, the answer page not yet parsed) the element
            # is missing or gone for a moment: not yet, rather than a failure.
            last = error
        else:
            if last:
                return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what} (last: {last!r})")


class ReturnSite:
    """The site a hosted verification returns to: answers every GET with a small page, and keeps
    the fields of every POST (response mode form_post) in `posted`."""

    def __init__(self):
        posted = []
        self.posted = posted

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                fields = urllib.parse.parse_qs(self.rfile.read(length).decode())
                posted.append({name: values[0] for name, values in fields.items()})
                self.do_GET()

            def do_GET(self):
                body = b"<!doctype html><html lang='en'><title>Back</title><h1>Back</h1></html>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.port = free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class Server:
    """One `otp serve` with a memory store and an outbox, on a free loopback port."""

    numbers = iter(range(1, 10_000_000))

    def __init__(self, return_origin, *options):
        self.dir = tempfile.mkdtemp(prefix="otp-browser-")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.outbox = os.path.join(self.dir, "outbox.jsonl")
        self.key = "bt-" + secrets.token_hex(16)
        self.log = open(os.path.join(self.dir, "server.log"), "w")
        args = [
            OTP_BIN, "serve", "--store", "memory", "--sender", f"outbox:{self.outbox}",
            "--port", str(self.port), "--check-floor", "0", "--public-url", self.url,
            "--hosted-return-origins", return_origin,
            "--signing-key-file", os.path.join(self.dir, "signing.key"),
            *LIFTED_LIMITS, *options,
        ]
        env = dict(os.environ, OTP_API_KEYS=self.key)
        self.process = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        try:
            wait_until(self._healthy, timeout=20, what=f"otp serve on port {self.port}")
        except AssertionError:
            self.stop()
            raise AssertionError("otp serve did not start:\n" + self.output())

    def _healthy(self):
        if self.process.poll() is not None:
            raise AssertionError("otp serve exited:\n" + self.output())
        try:
            with urllib.request.urlopen(self.url + "/healthz", timeout=1) as r:
                return r.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def output(self):
        self.log.flush()
        with open(self.log.name) as f:
            return f.read()[-4000:]

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

    def api(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {self.key}")
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def start(self, return_origin, state="xyz", response_mode="query"):
        """Starts a hosted verification to a fresh number; returns the verification object."""
        # A number libphonenumber finds valid: area code 202, an exchange from 200 to 999.
        n = next(self.numbers)
        to = "+1202%03d%04d" % (200 + n // 10000 % 800, n % 10000)
        body = {"to": to, "hosted": {"returnUrl": f"{return_origin}/done", "state": state,
                                     "nonce": NONCE, "responseMode": response_mode}}
        status, answer = self.api("POST", "/v1/verifications", body)
        assert status == 201, (status, answer)
        assert answer.get("hostedUrl"), answer
        return answer

    def codes(self, verification_id):
        """The codes sent for a verification so far, oldest first."""
        if not os.path.exists(self.outbox):
            return []
        found = []
        with open(self.outbox) as f:
            for line in f:
                if not line.strip():
                    continue
                message = json.loads(line)
                if message.get("verificationId") != verification_id:
                    continue
                match = re.search(r"code is ([0-9A-Z]+)", message.get("body", ""))
                if match:
                    found.append(match.group(1))
        return found

    def code(self, verification_id, count=1):
        """The latest code, once at least `count` codes were sent."""
        codes = wait_until(lambda: len(self.codes(verification_id)) >= count
                           and self.codes(verification_id), what="a code in the outbox")
        return codes[-1]

    def verification(self, verification_id):
        status, answer = self.api("GET", f"/v1/verifications/{verification_id}")
        assert status == 200, (status, answer)
        return answer


def wrong_code(code):
    """A code of the same format that differs from `code` in its first character."""
    first = code[0]
    replacement = str((int(first) + 1) % 10) if first.isdigit() else ("B" if first == "A" else "A")
    return replacement + code[1:]


# Installed in every document before the page's own script: records what the page announces
# and animates, and can hold the redirect after approval so a state can be inspected.
RECORDER = r"""
(() => {
  const t = window.__otpTest = { announced: [], animations: [], held: [], hold: false };
  document.addEventListener('animationstart', (e) => t.animations.push(e.animationName), true);
  const realSetTimeout = window.setTimeout.bind(window);
  window.setTimeout = function (callback, delay, ...rest) {
    // The page waits about 400 ms after "Verified" before it leaves.
    if (t.hold && delay >= 300 && delay <= 1000) { t.held.push(callback); return 0; }
    return realSetTimeout(callback, delay, ...rest);
  };
  new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (!el || !el.id || !el.id.startsWith('otp-live-') || !el.textContent) continue;
      t.announced.push([el.id === 'otp-live-assertive' ? 'assertive' : 'polite', el.textContent]);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
})();
"""

# A stand-in for WebOTP: window.OTPCredential exists and navigator.credentials.get({otp})
# resolves with the code a test hands over in window.__otpDeliver, or rejects when aborted.
WEBOTP_STAND_IN = r"""
(() => {
  window.OTPCredential = function OTPCredential() {};
  const calls = window.__otpCalls = [];
  const credentials = {
    get(options) {
      const call = { transport: options && options.otp && options.otp.transport,
                     hasSignal: !!(options && options.signal), aborted: false, resolved: false };
      calls.push(call);
      return new Promise((resolve, reject) => {
        const poll = setInterval(() => {
          if (!window.__otpDeliver) return;
          const code = window.__otpDeliver;
          window.__otpDeliver = null;
          clearInterval(poll);
          call.resolved = true;
          resolve({ id: '', type: 'otp', code });
        }, 30);
        if (options && options.signal) {
          options.signal.addEventListener('abort', () => {
            call.aborted = true;
            clearInterval(poll);
            reject(new DOMException('aborted', 'AbortError'));
          });
        }
      });
    },
  };
  Object.defineProperty(navigator, 'credentials', { value: credentials, configurable: true });
})();
"""


def chrome(javascript=True, language="en-US"):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={WIDTH},{HEIGHT}", "--hide-scrollbars", f"--lang={language}",
                     "--disable-extensions", "--no-first-run", "--disable-sync",
                     "--disable-background-networking", "--disable-component-update"):
        options.add_argument(argument)
    prefs = {"intl.accept_languages": language}
    if not javascript:
        prefs["profile.managed_default_content_settings.javascript"] = 2
    options.add_experimental_option("prefs", prefs)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_script_timeout(30)
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})
    driver.execute_cdp_cmd("Network.enable", {})
    return driver


class Page:
    """The hosted page in a browser tab, with the questions the tests ask of it."""

    def __init__(self, driver):
        self.d = driver

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def open(self, url, wait_state=True):
        self.d.get(url)
        if wait_state:
            # The script has enhanced the form and the state has arrived (the countdown shows).
            wait_until(lambda: self._safe("return document.getElementById('otp').classList"
                                          ".contains('otp-enhanced') && document.querySelector"
                                          "('#otp-resend').getAttribute('aria-disabled') !== null"),
                       what="the enhanced page")
            time.sleep(0.1)

    def _safe(self, script):
        try:
            return self.js(script)
        except JavascriptException:
            return None

    def status(self):
        return self.js("const s = document.getElementById('otp-status');"
                       "return [s.textContent.trim(), s.dataset.role || ''];")

    def wait_status(self, text, timeout=10):
        return wait_until(lambda: text in (self._safe(
            "return document.getElementById('otp-status').textContent") or ""),
            timeout=timeout, what=f"status {text!r} (now {self.status()!r})")

    def phase(self):
        return self.js("return document.getElementById('otp').dataset.phase")

    def value(self):
        return self.js("return document.getElementById('otp-input').value")

    def cells(self):
        return self.js("return [...document.querySelectorAll('.otp-cell')].map(c => c.textContent)")

    def announced(self):
        return [tuple(a) for a in self.js("return window.__otpTest.announced")]

    def animations(self):
        return self.js("return window.__otpTest.animations")

    def active_id(self):
        return self.js("return document.activeElement && document.activeElement.id")

    def type(self, text):
        self.d.find_element("id", "otp-input").send_keys(text)

    def hold_redirect(self):
        self.js("window.__otpTest.hold = true")

    def release_redirect(self):
        self.js("window.__otpTest.hold = false; window.__otpTest.held.forEach(f => f());")

    def axe(self):
        """Runs axe-core on the page as it is now; returns its violations."""
        assert AXE_JS and os.path.exists(AXE_JS), "axe.min.js is missing (OTP_AXE_JS)"
        if not self.js("return !!window.axe"):
            with open(AXE_JS) as f:
                self.js(f.read())
        version = self.js("return window.axe && window.axe.version")
        assert version and version.startswith("4."), version
        return self.d.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, { resultTypes: ['violations'] })"
            ".then(r => done(r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help,"
            " nodes: v.nodes.map(n => n.target.join(' ') + ': ' + n.failureSummary) }))),"
            " e => done([{ id: 'axe-error', help: String(e), nodes: [] }]));")

    def screenshot(self, name):
        if not SCREENSHOT_DIR:
            return None
        os.makedirs(SCREENSHOT_DIR, exist_ok=True)
        path = os.path.join(SCREENSHOT_DIR, name + ".png")
        self.d.save_screenshot(path)
        return path

    def console_errors(self):
        return [entry for entry in self.d.get_log("browser") if entry.get("level") == "SEVERE"
                and "Failed to load resource" not in entry.get("message", "")]
