#!/usr/bin/env bash
# Installs what OTPKit needs on a Debian machine; quick when everything is there.
set -euo pipefail

apt_packages=(libsqlite3-dev libssl-dev libmicrohttpd-dev libhiredis-dev libcurl4-openssl-dev libqrencode-dev libpq-dev libphonenumber-dev zbar-tools
  redis-server redis-sentinel postgresql tmux wrk pkg-config chromium chromium-driver prometheus curl jq openssl)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  # Packages that ship a service (prometheus, postgresql, redis) must not start one here: the tests
  # start their own on free loopback ports. policy-rc.d refuses every start during the install;
  # one already in place is left as it is.
  made_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo_cmd tee /usr/sbin/policy-rc.d >/dev/null
    $sudo_cmd chmod +x /usr/sbin/policy-rc.d
    made_policy=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
  [ "$made_policy" = 0 ] || $sudo_cmd rm -f /usr/sbin/policy-rc.d
fi

pip_packages=(aiosmtpd schemathesis selenium openapi-spec-validator openapi-python-client)
for p in "${pip_packages[@]}"; do
  python3 -m pip show -q "$p" >/dev/null 2>&1 || python3 -m pip install -q "$p"
done

command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
command -v swift >/dev/null || { echo "bootstrap: swift not found (expected at /opt/swift)" >&2; exit 1; }
