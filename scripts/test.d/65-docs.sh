#!/usr/bin/env bash
# Every shell block of README.md and docs/*.md, run as written by scripts/doc_commands.py, or
# marked with the reason it cannot run here; a block with neither fails, as does any command that
# fails (with its file, line and output). Blocks that need a server start the built `otp serve`
# on a free loopback port with a temporary state folder. What changes in a block's text before it
# runs, only this: `.build/release/otp` is the built binary; `/etc/otp/`, `/var/lib/otp/` and
# `/backup/` are folders of a temporary root (its etc/otp/api-keys holds one random key, as the
# package's install makes); `127.0.0.1:8080` is 127.0.0.1 and a free port, which OTP_PORT also
# holds. scripts/doc_commands.py's header has the markers and the rest.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
source scripts/lib.sh
for tool in curl jq openssl promtool; do
  command -v "$tool" >/dev/null || {
    echo "$tool is missing: run scripts/bootstrap.sh" >&2
    exit 1
  }
done

bin="${OTP_BIN:-$(swift build --show-bin-path)/otp}"
[ -x "$bin" ] || swift build --product otp -q 2>&1 | grep -v "prohibited flag" || true

step "the documentation's shell blocks"
python3 scripts/doc_commands.py --bin "$bin" --repo "$PWD" README.md docs/*.md
