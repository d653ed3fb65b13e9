# Shared helpers for the scripts: steps, free ports, a throwaway Redis.
# Sourced, not run.

step() { printf '\n== %s\n' "$*"; }

# Prints a free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# Starts redis-server on a free loopback port with no persistence; sets REDIS_PORT and REDIS_PID
# and stops it when the calling script exits.
start_redis() {
  REDIS_PORT=$(free_port)
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
    --loglevel warning >/dev/null 2>&1 &
  REDIS_PID=$!
  trap 'kill "$REDIS_PID" 2>/dev/null || true; wait "$REDIS_PID" 2>/dev/null || true' EXIT
  for _ in $(seq 50); do
    redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "redis-server did not start on port $REDIS_PORT" >&2
  return 1
}

# Starts `$bin serve --port 0 ARGUMENTS…` with its output in $work (stdout, stderr); sets SERVE_PID
# and SERVE_URL once it says where it listens. The caller stops it (its EXIT trap names SERVE_PID).
start_serve() {
  "$bin" serve --port 0 "$@" >"$work/stdout" 2>"$work/stderr" &
  SERVE_PID=$!
  for _ in $(seq 100); do
    grep -q '^listening on ' "$work/stdout" 2>/dev/null && break
    kill -0 "$SERVE_PID" 2>/dev/null || { cat "$work/stderr" >&2; return 1; }
    sleep 0.05
  done
  SERVE_URL=$(sed -n 's/^listening on //p' "$work/stdout")
  [ -n "$SERVE_URL" ] || { echo "otp serve did not start" >&2; return 1; }
}
