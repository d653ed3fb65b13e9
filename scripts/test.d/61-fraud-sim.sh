#!/usr/bin/env bash
# The pumping guard's simulation as a smoke test: four simulated hours on the memory and SQLite stores.
# It fails when a bound of either run (the prefix attack, the spread) is missed (FraudSim exits 1) or
# a bad option is not refused.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
bin="$(swift build --show-bin-path)/FraudSim"
[ -x "$bin" ] || swift build --product FraudSim -q 2>&1 | grep -v "prohibited flag" || true
"$bin" --smoke | grep -E "^\| |bounds|legitimate prefix|before the first block|spread:"

for bad in "--stores disk" "--price x" "--price" "--colour on"; do
  set +e
  # shellcheck disable=SC2086
  err=$("$bin" $bad 2>&1 >/dev/null)
  status=$?
  set -e
  if [ "$status" -ne 2 ] || ! grep -q "^FraudSim: " <<<"$err"; then
    echo "FraudSim $bad: status $status, stderr: $err"
    exit 1
  fi
done
echo "bad options refused"
