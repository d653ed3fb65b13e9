"""Prints the Swift Testing tests a log shows as started but never passed or failed."""
import re
import sys

started = {}
with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
    for number, line in enumerate(log):
        match = re.match(r'^\S+ Test (".*?"|\S+\(.*?\)) (?:with \d+ test cases? )?(started|passed|failed|skipped|recorded)', line)
        if not match:
            continue
        name, verb = match.groups()
        if verb == "started":
            started[name] = number
        elif verb in ("passed", "failed", "skipped"):
            started.pop(name, None)
for name, _ in sorted(started.items(), key=lambda item: item[1]):
    try:
        print(name)
    except BrokenPipeError:
        break
