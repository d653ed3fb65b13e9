#!/usr/bin/env bash
# The operator's dashboards: the Prometheus alert rules pass `promtool check rules` and their unit
# tests (`promtool test rules`), and every query of the Grafana dashboard is valid PromQL (checked
# by promtool as a recording rule) over metrics the server really exports.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v promtool >/dev/null || {
  echo "promtool is missing: run scripts/bootstrap.sh" >&2
  exit 1
}
promtool check rules packaging/prometheus/otp-alerts.yml
(cd packaging/prometheus && promtool test rules otp-alerts.test.yml)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - packaging/grafana/otp-dashboard.json "$work/panels.yml" Sources/OTPHTTP/Observability <<'PY'
import json, os, re, sys
dashboard = json.load(open(sys.argv[1]))
exported = set()
for name in os.listdir(sys.argv[3]):
    exported |= set(re.findall(r"(otp_[a-z_]+|process_[a-z_]+)", open(os.path.join(sys.argv[3], name)).read()))
lines = ["groups:", "  - name: dashboard", "    rules:"]
for panel in dashboard["panels"]:
    for target in panel["targets"]:
        for metric in re.findall(r"\b(otp_[a-z_]+|process_[a-z_]+)", target["expr"]):
            base = re.sub(r"_(bucket|sum|count)$", "", metric)
            assert metric in exported or base in exported, f"{panel['title']}: {metric} is not exported"
        lines.append(f"      - record: dashboard:panel_{panel['id']}")
        lines.append("        expr: " + json.dumps(target["expr"]))
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print(f"dashboard: {len(dashboard['panels'])} panels over exported metrics")
PY
promtool check rules "$work/panels.yml"
