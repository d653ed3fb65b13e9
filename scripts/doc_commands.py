#!/usr/bin/env python3
"""Runs the shell blocks of the documentation, or checks each says why it cannot run.

usage: doc_commands.py --bin OTP --repo DIR [--list] FILE.md...

Every fenced block of shell (sh, bash, shell, zsh, console) in the files given is run, unless
the line before it (blank lines aside) is a marker:

  <!-- doc-test: skip (REASON) -->   not run here; REASON says why and what covers it instead
  <!-- doc-test: serves -->          ends in a foreground `otp serve`: passes once the server
                                     says where it listens, and is then stopped with SIGTERM
  <!-- doc-test: server -->          the same, but the server stays up for the file's later
                                     `uses-server` blocks, until the file ends
  <!-- doc-test: uses-server -->     runs against that server
  (no marker)                        runs, and must exit 0

A marker of another kind, a skip without a reason, or a marker with no shell block after it
fails, so a block cannot go untested without a stated reason. So does a relative link or image
(outside code) whose file is missing, or whose #anchor names no heading of its Markdown file.

Each file's blocks run in order, as `bash -euo pipefail`, in a fresh folder ROOT/work that links
the repository's `packaging/`, with `otp` on the PATH (the binary given). Before a block runs,
its text changes in these ways only, so the commands are the documentation's own:
  - `.build/release/otp` becomes the binary given;
  - `/etc/otp/`, `/var/lib/otp/` and `/backup/` become folders of ROOT (ROOT/etc/otp/api-keys
    holds one random key, owner-only, as the package's install makes);
  - `127.0.0.1:8080` becomes 127.0.0.1 and a free port, which OTP_PORT also holds (so an
    `otp serve` without --port listens there); a `uses-server` block gets its server's port;
  - `127.0.0.1:6379` becomes 127.0.0.1 and --redis-port, when given.
The environment holds no OTP_ variable but OTP_PORT; the rest (PGHOST and the like) is the
caller's. A failing block prints its file, its line,
the text it ran and its output, and the run exits 1.
"""

import argparse
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SHELLS = {"sh", "bash", "shell", "zsh", "console", "shell-session", "sh-session"}
MARKER = re.compile(r"^<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([^\s`]*)")
KINDS = {"serves", "server", "uses-server"}


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


class Block:
    def __init__(self, path, line, text, kind, reason):
        self.path, self.line, self.text, self.kind, self.reason = path, line, text, kind, reason

    @property
    def where(self):
        return f"{self.path}:{self.line}"


def parse(path):
    """The file's shell blocks, and the mistakes in its markers."""
    blocks, errors = [], []
    lines = read(path).split("\n")
    pending = None  # (line number, marker text) waiting for its block
    i = 0
    while i < len(lines):
        line = lines[i]
        marker = MARKER.match(line.strip())
        fence = FENCE.match(line)
        if marker:
            if pending:
                errors.append(f"{path}:{pending[0]}: a doc-test marker with no shell block after it")
            pending = (i + 1, marker.group(1))
            i += 1
            continue
        if fence:
            ticks, info = fence.group(1), fence.group(2).lower()
            end = i + 1
            while end < len(lines) and not lines[end].strip().startswith(ticks):
                end += 1
            indent = len(line) - len(line.lstrip())
            body = "\n".join(l[indent:] if l[:indent].isspace() else l for l in lines[i + 1 : end]) + "\n"
            if info in SHELLS:
                kind, reason = "run", None
                if pending:
                    text = pending[1]
                    skip = re.fullmatch(r"skip\s*\((.*)\)", text, re.DOTALL)
                    if skip and skip.group(1).strip():
                        kind, reason = "skip", skip.group(1).strip()
                    elif text in KINDS:
                        kind = text
                    else:
                        errors.append(
                            f"{path}:{pending[0]}: '{text}' is no doc-test marker (skip (REASON), serves, server, uses-server)"
                        )
                blocks.append(Block(path, i + 1, body, kind, reason))
            elif pending:
                errors.append(f"{path}:{pending[0]}: a doc-test marker before a {info or 'plain'} block, not a shell one")
            pending = None
            i = end + 1
            continue
        if pending and line.strip():
            errors.append(f"{path}:{pending[0]}: a doc-test marker with no shell block after it")
            pending = None
        i += 1
    if pending:
        errors.append(f"{path}:{pending[0]}: a doc-test marker with no shell block after it")
    return blocks, errors


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading):
    """A heading's anchor as GitHub makes it."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def prose_lines(path):
    """(line number, line) for each line of PATH outside fenced code blocks and their fences."""
    fence = None
    for number, line in enumerate(read(path).splitlines(), 1):
        opening = FENCE.match(line)
        if opening:
            if fence is None:
                fence = opening.group(1)
            elif line.strip().startswith(fence):
                fence = None
            continue
        if fence is None:
            yield number, line


def anchors(path):
    return {slug(line.lstrip("#")) for _, line in prose_lines(path) if line.startswith("#")}


def broken_links(path):
    """Relative links and images of PATH, outside code, whose target or anchor does not exist."""
    errors = []
    for number, line in prose_lines(path):
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(resolved):
                errors.append(f"{path}:{number}: the link {target} names no file")
            elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                errors.append(f"{path}:{number}: the link {target} names no heading of {resolved}")
    return errors


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def substitute(text, root, port, binary, redis_port=None):
    text = text.replace(".build/release/otp", binary)
    if redis_port:
        text = text.replace("127.0.0.1:6379", f"127.0.0.1:{redis_port}")
    for folder in ("/etc/otp/", "/var/lib/otp/", "/backup/"):
        text = re.sub(r"(?<![\w./-])" + re.escape(folder), root + folder, text)
    return text.replace("127.0.0.1:8080", f"127.0.0.1:{port}")


def stop_group(process, grace=15.0):
    """SIGTERM to the block's process group, then SIGKILL to what is left after GRACE seconds."""
    pgid = process.pid
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        process.poll()  # reaps the block's shell, whose zombie would keep the group alive
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


class Runner:
    def __init__(self, binary, repo, redis_port=None):
        self.binary, self.repo, self.redis_port = binary, repo, redis_port
        self.bindir = tempfile.mkdtemp(prefix="otp-doc-bin.")
        os.symlink(binary, os.path.join(self.bindir, "otp"))
        self.failures = 0

    def file_root(self):
        root = tempfile.mkdtemp(prefix="otp-doc.")
        for folder in ("etc/otp", "var/lib/otp", "backup", "work", "home", "blocks"):
            os.makedirs(os.path.join(root, folder))
        os.symlink(os.path.join(self.repo, "packaging"), os.path.join(root, "work", "packaging"))
        keys = os.path.join(root, "etc/otp/api-keys")
        fd = os.open(keys, os.O_WRONLY | os.O_CREAT, 0o600)
        os.write(fd, (secrets.token_hex(32) + "\n").encode())
        os.close(fd)
        return root

    def environment(self, root, port):
        env = {k: v for k, v in os.environ.items() if not k.startswith("OTP_")}
        env.update(
            PATH=self.bindir + os.pathsep + env.get("PATH", "/usr/bin:/bin"),
            HOME=os.path.join(root, "home"),
            LANG="C.UTF-8",
            OTP_PORT=str(port),
        )
        return env

    def start(self, block, root, port, number):
        script = os.path.join(root, "blocks", f"{number:02d}.sh")
        with open(script, "w") as f:
            f.write(substitute(block.text, root, port, self.binary, self.redis_port))
        with (
            open(os.path.join(root, "blocks", f"{number:02d}.out"), "w") as out,
            open(os.path.join(root, "blocks", f"{number:02d}.err"), "w") as err,
        ):
            process = subprocess.Popen(
                ["bash", "-euo", "pipefail", script],
                cwd=os.path.join(root, "work"),
                env=self.environment(root, port),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                start_new_session=True,
            )
        return process, script

    def fail(self, block, script, why):
        self.failures += 1
        print(f"FAIL {block.where} ({block.kind}): {why}")
        print("--- the block as run:")
        print(read(script).rstrip("\n"))
        for name, label in ((".out", "standard output"), (".err", "standard error")):
            text = read(script[:-3] + name).rstrip("\n").split("\n")
            print(f"--- its {label} (last 40 lines):")
            print("\n".join(text[-40:]))
        print("---")

    def wait_listening(self, process, script, timeout=60.0):
        """True once the block's standard output says where a server listens."""
        out = script[:-3] + ".out"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if "listening on http://" in read(out):
                return True
            if process.poll() is not None:
                return False
            time.sleep(0.05)
        return False

    def run_file(self, path, blocks):
        root = self.file_root()
        server = None  # (process, port) of the file's `server` block
        counts = {"run": 0, "skip": 0}
        try:
            for number, block in enumerate(blocks, 1):
                if block.kind == "skip":
                    counts["skip"] += 1
                    print(f"skip {block.where}: {block.reason}")
                    continue
                if block.kind == "uses-server":
                    if server is None:
                        self.failures += 1
                        print(f"FAIL {block.where}: uses-server, but no server block came before it in {path}")
                        continue
                    port = server[1]
                else:
                    port = free_port()
                if block.kind == "server" and server is not None:
                    stop_group(server[0])
                    server = None
                process, script = self.start(block, root, port, number)
                if block.kind in ("serves", "server"):
                    if not self.wait_listening(process, script):
                        stop_group(process)
                        self.fail(block, script, "otp serve did not start listening")
                        continue
                    if block.kind == "server":
                        server = (process, port)
                    else:
                        stop_group(process)
                    print(f"ok   {block.where}: {block.kind}, listened on 127.0.0.1:{port}")
                else:
                    try:
                        status = process.wait(timeout=120)
                    except subprocess.TimeoutExpired:
                        status = "no exit within 120 s"
                    stop_group(process)
                    if status != 0:
                        self.fail(block, script, f"exit status {status}")
                        continue
                    print(f"ok   {block.where}: {block.kind}")
                counts["run"] += 1
        finally:
            if server is not None:
                stop_group(server[0])
            if os.environ.get("OTP_DOCS_KEEP"):
                print(f"kept {root} for {path}")
            else:
                shutil.rmtree(root, ignore_errors=True)
        return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True, help="the otp binary to run")
    parser.add_argument("--repo", required=True, help="the repository's root")
    parser.add_argument("--redis-port", help="the Redis that `127.0.0.1:6379` stands for")
    parser.add_argument("--list", action="store_true", help="list the blocks and their markers only")
    parser.add_argument("files", nargs="+")
    options = parser.parse_args()

    parsed, errors = [], []
    for path in options.files:
        blocks, mistakes = parse(path)
        parsed.append((path, blocks))
        errors += mistakes + broken_links(path)
    for error in errors:
        print(f"FAIL {error}")
    if options.list:
        for path, blocks in parsed:
            for block in blocks:
                print(f"{block.where}\t{block.kind}\t{block.reason or ''}")
        return 1 if errors else 0
    if errors:
        return 1

    runner = Runner(os.path.abspath(options.bin), os.path.abspath(options.repo), options.redis_port)
    total = {"run": 0, "skip": 0}
    try:
        for path, blocks in parsed:
            counts = runner.run_file(path, blocks)
            for key in total:
                total[key] += counts[key]
    finally:
        shutil.rmtree(runner.bindir, ignore_errors=True)
    blocks = sum(len(b) for _, b in parsed)
    print(f"docs: {blocks} shell blocks in {len(parsed)} files: {total['run']} ran, {total['skip']} skipped with a reason")
    if runner.failures or total["run"] + total["skip"] != blocks:
        print(f"docs: {runner.failures} failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
