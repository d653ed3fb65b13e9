#!/usr/bin/env bash
# The hosted verification page in headless Chromium against a real `otp serve`: typing, paste,
# autofill, WebOTP, wrong codes, lock, resend, expiry, reduced motion, dark, Arabic, keyboard only,
# the form without JavaScript, the signed return, and axe-core in each state (Tests/Browser).
# Installs what it needs when missing: chromium and chromium-driver, selenium, and axe-core's
# axe.min.js from the axe-playwright-python wheel, cached by version.
# OTP_UPDATE_SCREENSHOTS=1 writes the state screenshots to docs/screenshots/.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
began=$(date +%s)

missing=()
for p in chromium chromium-driver; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
python3 -c 'import selenium' 2>/dev/null || python3 -m pip install -q selenium

# axe-core 4.x as the axe-playwright-python wheel ships it; the wheel's version keys the cache.
axe_wheel_version=0.1.8
axe_dir="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/otpkit/axe-playwright-python-$axe_wheel_version"
if [ ! -s "$axe_dir/axe.min.js" ]; then
  download=$(mktemp -d)
  python3 -m pip download -q --no-deps --dest "$download" "axe-playwright-python==$axe_wheel_version"
  mkdir -p "$axe_dir"
  python3 - "$download" "$axe_dir" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    name = next(n for n in z.namelist() if n.endswith("/axe.min.js"))
    with open(sys.argv[2] + "/axe.min.js.part", "wb") as out:
        out.write(z.read(name))
PY
  mv "$axe_dir/axe.min.js.part" "$axe_dir/axe.min.js"
  rm -rf "$download"
fi
head -c 200 "$axe_dir/axe.min.js" | grep -q 'axe v4\.' || { echo "axe.min.js is not axe-core 4.x" >&2; exit 1; }

build_log=$(mktemp)
if ! swift build --product otp >"$build_log" 2>&1; then
  grep -v "prohibited flag" "$build_log" | tail -n 40
  exit 1
fi
rm -f "$build_log"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
shots="$scratch/screenshots"
if [ "${OTP_UPDATE_SCREENSHOTS:-0}" = 1 ]; then shots="$PWD/docs/screenshots"; fi

status=0
OTP_BIN="$(swift build --show-bin-path)/otp" OTP_AXE_JS="$axe_dir/axe.min.js" OTP_SCREENSHOT_DIR="$shots" \
  python3 -m unittest discover -s Tests/Browser -p 'test_*.py' -v 2>&1 || status=$?
echo "hosted page in the browser: $(($(date +%s) - began)) s"
exit "$status"
