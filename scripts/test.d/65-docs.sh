#!/usr/bin/env bash
# Every shell block of README.md and docs/*.md, run as written by scripts/doc_commands.py, or
# marked with the reason it cannot run here; a block with neither fails, as does any command that
# fails (with its file, line and output). Blocks that need a server start the built `otp serve`
# on a free loopback port with a temporary state folder. What changes in a block's text before it
# runs, only this: `.build/release/otp` is the built binary; `/etc/otp/`, `/var/lib/otp/` and
# `/backup/` are folders of a temporary root (its etc/otp/api-keys holds one random key, as the
# package's install makes); `127.0.0.1:8080` is 127.0.0.1 and a free port, which OTP_PORT also
# holds; `127.0.0.1:6379` is a throwaway Redis that keeps an append-only file. PGHOST, PGPORT and
# PGUSER name a throwaway PostgreSQL (scripts/lib.sh). scripts/doc_commands.py's header has the
# markers and the rest.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
source scripts/lib.sh
for tool in curl jq openssl promtool redis-server createdb pg_dump pg_restore; do
  command -v "$tool" >/dev/null || {
    echo "$tool is missing: run scripts/bootstrap.sh" >&2
    exit 1
  }
done

bin="${OTP_BIN:-$(swift build --show-bin-path)/otp}"
[ -x "$bin" ] || swift build --product otp -q 2>&1 | grep -v "prohibited flag" || true

step "a PostgreSQL and a Redis for the guides"
start_postgres
export PGHOST=127.0.0.1 PGPORT=$POSTGRES_PORT PGUSER=otp
# Not start_redis: a Redis that keeps nothing is refused for authenticator factors, as the guide says.
redis_dir=$(mktemp -d)
on_exit 'rm -rf "$redis_dir"'
redis_port=$(free_port)
redis-server --port "$redis_port" --bind 127.0.0.1 --dir "$redis_dir" --appendonly yes --save '' \
  --daemonize no --loglevel warning >/dev/null 2>&1 &
redis_pid=$!
on_exit 'kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true'
for _ in $(seq 50); do
  redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break
  sleep 0.1
done

step "the documentation's shell blocks"
python3 scripts/doc_commands.py --bin "$bin" --repo "$PWD" --redis-port "$redis_port" README.md docs/*.md
