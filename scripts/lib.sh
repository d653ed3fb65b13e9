# Shared helpers for the scripts: steps, free ports, exit hooks, a throwaway Redis and PostgreSQL.
# Sourced, not run.

step() { printf '\n== %s\n' "$*"; }

# Prints a free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Runs COMMAND when the calling script exits, after the commands registered before it; one EXIT
# trap runs them all, so helpers that each need a cleanup do not replace each other's.
OTP_EXIT_HOOKS=()
on_exit() {
  OTP_EXIT_HOOKS+=("$1")
  trap 'for hook in "${OTP_EXIT_HOOKS[@]}"; do eval "$hook" || true; done' EXIT
}

# For the benchmarks: sets `otp` to $OTP_BIN, else to a release build made now, and builds the bare
# libmicrohttpd server (Benchmarks/http/bare.c) as $1/bare.
bench_binaries() {
  if [ -n "${OTP_BIN:-}" ]; then
    otp=$OTP_BIN
  else
    swift build -c release --product otp -q 2>&1 | grep -v "prohibited flag" || true
    otp="$(swift build -c release --show-bin-path)/otp"
  fi
  gcc -O2 -o "$1/bare" Benchmarks/http/bare.c -lmicrohttpd
}

# Starts redis-server on a free loopback port with no persistence; sets REDIS_PORT and REDIS_PID
# and stops it when the calling script exits.
start_redis() {
  REDIS_PORT=$(free_port)
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
    --loglevel warning >/dev/null 2>&1 &
  REDIS_PID=$!
  on_exit 'kill "$REDIS_PID" 2>/dev/null || true; wait "$REDIS_PID" 2>/dev/null || true'
  for _ in $(seq 50); do
    redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "redis-server did not start on port $REDIS_PORT" >&2
  return 1
}

# Starts a throwaway PostgreSQL 15 cluster in a temporary directory on a free loopback port (as the
# postgres user when run as root: initdb refuses root); sets POSTGRES_URL (the superuser otp, trusted
# on loopback), POSTGRES_PORT and POSTGRES_DIR, and stops it (pg_ctl stop -m immediate) and removes
# the directory when the calling script exits. It takes 500 connections: the parallel tests open
# a pool per store. Arguments are more server options (-c NAME=VALUE). A second call while one runs does nothing. The role
# otp_locked logs in only with its password, for the tests of a refused login
# (Tests/OTPTestSupport/ThrowawayPostgres.swift makes the same role).
POSTGRES_BIN=/usr/lib/postgresql/15/bin
start_postgres() {
  [ -n "${POSTGRES_URL:-}" ] && return 0
  local as=()
  [ "$(id -u)" = 0 ] && as=(runuser -u postgres --)
  POSTGRES_PORT=$(free_port)
  POSTGRES_DIR=$(mktemp -d /tmp/otp-pg.XXXXXX)
  chmod 755 "$POSTGRES_DIR"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$POSTGRES_DIR"
  on_exit stop_postgres
  if ! "${as[@]}" "$POSTGRES_BIN/initdb" -D "$POSTGRES_DIR/data" -A trust -U otp >"$POSTGRES_DIR/initdb.log" 2>&1; then
    cat "$POSTGRES_DIR/initdb.log" >&2
    return 1
  fi
  { printf 'host all otp_locked 127.0.0.1/32 scram-sha-256\n'; cat "$POSTGRES_DIR/data/pg_hba.conf"; } \
    >"$POSTGRES_DIR/hba"
  cat "$POSTGRES_DIR/hba" >"$POSTGRES_DIR/data/pg_hba.conf"
  if ! "${as[@]}" "$POSTGRES_BIN/pg_ctl" -D "$POSTGRES_DIR/data" -l "$POSTGRES_DIR/server.log" -w \
    -o "-p $POSTGRES_PORT -k $POSTGRES_DIR -c listen_addresses=127.0.0.1 -c max_connections=500 $*" start >/dev/null; then
    cat "$POSTGRES_DIR/server.log" >&2
    return 1
  fi
  "${as[@]}" "$POSTGRES_BIN/psql" -h "$POSTGRES_DIR" -p "$POSTGRES_PORT" -U otp -d postgres -q \
    -c "CREATE ROLE otp_locked LOGIN PASSWORD 'locked-role-test-password'" \
    -c "GRANT CREATE ON DATABASE postgres TO otp_locked" >/dev/null
  POSTGRES_URL="postgres://otp@127.0.0.1:$POSTGRES_PORT/postgres"
}

# Stops and removes the cluster start_postgres made, if any.
stop_postgres() {
  [ -n "${POSTGRES_DIR:-}" ] || return 0
  local as=()
  [ "$(id -u)" = 0 ] && as=(runuser -u postgres --)
  if [ -e "$POSTGRES_DIR/data/postmaster.pid" ]; then
    "${as[@]}" "$POSTGRES_BIN/pg_ctl" -D "$POSTGRES_DIR/data" -m immediate stop >/dev/null 2>&1 || true
  fi
  rm -rf "$POSTGRES_DIR"
  POSTGRES_DIR=""
  POSTGRES_URL=""
}

# Starts `$bin serve --port 0 ARGUMENTS…` with its output in $work (stdout, stderr); sets SERVE_PID
# and SERVE_URL once it says where it listens. The caller stops it (its EXIT trap names SERVE_PID).
start_serve() {
  "$bin" serve --port 0 "$@" >"$work/stdout" 2>"$work/stderr" &
  SERVE_PID=$!
  for _ in $(seq 100); do
    grep -q 'listening on http://' "$work/stdout" 2>/dev/null && break
    kill -0 "$SERVE_PID" 2>/dev/null || { cat "$work/stderr" >&2; return 1; }
    sleep 0.05
  done
  SERVE_URL=$(sed -n 's|.*listening on \(http://[^" ]*\).*|\1|p' "$work/stdout")
  [ -n "$SERVE_URL" ] || { echo "otp serve did not start" >&2; return 1; }
}
