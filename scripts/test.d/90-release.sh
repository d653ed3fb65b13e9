#!/usr/bin/env bash
# The release as an operator installs it: `make release` builds the package; its unit passes
# `systemd-analyze verify`; the package installs; the installed binary, run from the unit's own
# command line and environment as the otp user with /opt/swift out of reach, answers /healthz
# from a temporary state folder; then the package is purged.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh
[ "$(id -u)" -eq 0 ] || { echo "release test: needs root to install the package" >&2; exit 1; }

scratch=${OTP_STATIC_SCRATCH:-.build-static}
bash scripts/release.sh | tail -n 1
version=$(tr -d ' \n' <VERSION)
package=.build/release-package/otpkit_${version}_$(dpkg --print-architecture).deb
[ -f "$package" ] || { echo "release test: no $package" >&2; exit 1; }

# The binary needs nothing of the toolchain: no run path to it, every library from Debian.
runpath=$(objdump -p "$scratch/release/otp" | awk '$1 == "RUNPATH" || $1 == "RPATH" { print $2 }')
if [[ "$runpath" == *"/opt/swift"* ]]; then
  echo "release test: the binary's run path names /opt/swift" >&2
  exit 1
fi
if ldd "$scratch/release/otp" | grep -E 'not found|swift'; then
  echo "release test: the binary links a library outside Debian's" >&2
  exit 1
fi

work=$(mktemp -d)
empty=$(mktemp -d)
cleanup() {
  kill "${SERVE_PID:-}" 2>/dev/null || true
  wait "${SERVE_PID:-}" 2>/dev/null || true
  dpkg --purge otpkit >/dev/null 2>&1 || true
  rm -rf "$work" "$empty"
}
trap cleanup EXIT

DEBIAN_FRONTEND=noninteractive dpkg -i "$package" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; exit 1; }
unit=/lib/systemd/system/otp.service
[ -x /usr/bin/otp ] && [ -f "$unit" ] && [ -f /etc/otp/api-keys ] || { echo "release test: files missing" >&2; exit 1; }
[ "$(stat -c '%U %a' /etc/otp/api-keys)" = "otp 600" ] || { echo "release test: /etc/otp/api-keys is not otp's alone" >&2; exit 1; }
[ "$(stat -c '%U %a' /etc/otp/otp.env)" = "root 600" ] || { echo "release test: /etc/otp/otp.env is not root's alone" >&2; exit 1; }
if ! systemd-analyze verify "$unit" >"$work/verify.log" 2>&1; then
  cat "$work/verify.log" >&2
  exit 1
fi
security=$(systemd-analyze security --offline=yes "$unit" 2>/dev/null | tail -n 1 |
  grep -oE 'exposure level for otp.service: [0-9.]+ [A-Z]+' || true)

# The unit's command line and environment, its state folder swapped for a temporary one.
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
mapfile -t unit_environment < <(sed -n 's/^Environment=//p' "$unit" | sed "s|/var/lib/otp|$work|g" |
  sed 's/^OTP_PORT=.*/OTP_PORT=0/')
mapfile -t file_environment < <(grep -E '^[A-Z_]+=' /etc/otp/otp.env | sed "s|/var/lib/otp|$work|g")
chown otp:otp "$work"
key=$(head -n 1 /etc/otp/api-keys)
# In a mount namespace of its own, /opt/swift is an empty folder: the toolchain is out of reach.
unshare --mount bash -c 'mount --bind "$1" /opt/swift && shift && exec "$@"' _ "$empty" \
  setpriv --reuid=otp --regid=otp --init-groups --no-new-privs \
  env -i PATH=/usr/bin:/bin "${unit_environment[@]}" "${file_environment[@]}" $exec_start \
  >"$work/stdout" 2>"$work/stderr" &
SERVE_PID=$!
for _ in $(seq 100); do
  grep -q 'listening on http://' "$work/stdout" 2>/dev/null && break
  kill -0 "$SERVE_PID" 2>/dev/null || { cat "$work/stderr" >&2; exit 1; }
  sleep 0.05
done
url=$(sed -n 's|.*listening on \(http://[^" ]*\).*|\1|p' "$work/stdout")
[ -n "$url" ] || { cat "$work/stderr" >&2; exit 1; }
health=$(curl -s "$url/healthz")
[ "$health" = "{\"status\":\"ok\",\"version\":\"$version\"}" ] || { echo "release test: /healthz said $health" >&2; exit 1; }
started=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$url/v1/verifications" \
  -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -d '{"to":"+15555550100"}')
[ "$started" = 201 ] || { echo "release test: a start answered $started" >&2; cat "$work/stderr" >&2; exit 1; }
[ -f "$work/otp.sqlite3" ] && [ "$(stat -c '%U' "$work/otp.sqlite3")" = otp ] || {
  echo "release test: the database is not in the state folder, owned by otp" >&2
  exit 1
}
echo "release: $(basename "$package") installed; unit verified${security:+ ($security)}; /usr/bin/otp as otp with /opt/swift hidden answered /healthz $version and a start 201"
