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
