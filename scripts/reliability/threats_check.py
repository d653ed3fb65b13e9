"""Checks THREATS.md: every test it names exists in the file it names, and every script exists.

A reference is a backticked path under Tests/ followed by › and a quoted test name, or a backticked
path under scripts/. Prints one figure line; exits 1 when a reference is broken.
"""

import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
with open(os.path.join(ROOT, "THREATS.md"), encoding="utf-8") as handle:
    text = handle.read()

tests = re.findall(r"`(Tests/[^`]+\.swift)` › \"([^\"]+)\"", text)
scripts = set(re.findall(r"`(scripts/[^`]+\.(?:py|sh))`", text))
broken = []
for path, name in tests:
    full = os.path.join(ROOT, path)
    if not os.path.exists(full):
        broken.append(f"{path} does not exist")
        continue
    with open(full, encoding="utf-8") as source:
        if f'"{name}"' not in source.read().replace('(\n        "', '("'):
            broken.append(f"{path} has no test named \"{name}\"")
for path in sorted(scripts):
    if not os.path.exists(os.path.join(ROOT, path)):
        broken.append(f"{path} does not exist")
sections = len(re.findall(r"^### ", text, flags=re.MULTILINE))
for problem in broken:
    print(f"THREATS.md: {problem}", file=sys.stderr)
print(f"threats: {sections} attacks in THREATS.md, {len(tests)} named tests and {len(scripts)} scripts, "
      f"{len(broken)} broken references")
sys.exit(1 if broken or not tests else 0)
