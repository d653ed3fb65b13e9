#!/usr/bin/env bash
# HTTP benchmark: requests per second and p99 latency of `otp serve` for check and start, each with
# its ratio to a bare libmicrohttpd server answering a fixed 200 (Benchmarks/http/bare.c), all
# measured in this one run with the same wrk settings on the same machine.
#
# The three are measured in turn, OTP_BENCH_ROUNDS times, and each figure is the median of its
# rounds, so a burst of other load on the machine moves all three alike.
#
#   OTP_BENCH_SECONDS (default 3)  OTP_BENCH_ROUNDS (3)  OTP_BENCH_CONNECTIONS (50)
#   OTP_BENCH_FLOOR_CONNECTIONS (1000; 0 skips the check-floor rows: the check at that many
#   connections on a second server with the default 50 ms floor, beside the floor-off server)
#   OTP_BENCH_CAPACITY_CONNECTIONS (the same pair again at enough connections that the floor's
#   closed-loop cap, connections / 50 ms, is 1.5 times the floor-off rate, up to 10,000 connections
#   and the open-file limit; 0 skips)
#   OTP_BENCH_SPREAD (1: every check judges one verification and every request comes from one
#     address, so a store that locks rows meets one hot row; N: checks go round N verifications and
#     requests come from N addresses through X-Forwarded-For, as a service's many users do)
#   OTP_BENCH_STORE_CONNECTIONS (4: the PostgreSQL store's pool)  OTP_BENCH_POSTGRES_OPTIONS (none:
#     more settings for the throwaway PostgreSQL server, such as "-c synchronous_commit=off")
#   OTP_BENCH_STORE (memory | sqlite | redis: a throwaway redis-server on these cores | postgres: a
#   throwaway PostgreSQL cluster on these cores)  OTP_BIN (a built otp to use instead of building one)
#   OTP_BENCH_WRK_BATCH (1: wrk runs as SCHED_BATCH, so that where it shares the server's cores its
#   wake-ups do not preempt the server it measures, as a server's remote clients never do; 0: wrk
#   runs as any process. The bare server's figures are the same either way; the server's are not:
#   on 2 cores, preempted at every ~2nd request, a check costs it ~3 µs more CPU.)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
command -v wrk >/dev/null || { echo "wrk is missing: run scripts/bootstrap.sh" >&2; exit 1; }
source scripts/lib.sh

seconds=${OTP_BENCH_SECONDS:-3}
rounds=${OTP_BENCH_ROUNDS:-3}
connections=${OTP_BENCH_CONNECTIONS:-50}
store_kind=${OTP_BENCH_STORE:-memory}
spread=${OTP_BENCH_SPREAD:-1}
[[ "$spread" =~ ^[0-9]+$ ]] && [ "$spread" -ge 1 ] && [ "$spread" -le 65536 ] ||
  { echo "OTP_BENCH_SPREAD is a whole number from 1 to 65536" >&2; exit 2; }
work=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
on_exit cleanup

step "build (release)"
bench_binaries "$work"

step "servers"
"$work/bare" 2 >"$work/bare.port" &
pids+=($!)
bare_pid=$!
secret_args=()
# A store server of its own on these cores (redis-server), whose CPU per request is shown too.
store_pid=""
case "$store_kind" in
  memory) store=memory ;;
  sqlite) store="sqlite:$work/bench.sqlite3" ;;
  redis)
    command -v redis-server >/dev/null || { echo "redis-server is missing: run scripts/bootstrap.sh" >&2; exit 1; }
    redis_port=$(free_port)
    redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --loglevel warning \
      >/dev/null 2>&1 &
    pids+=($!)
    store_pid=$!
    for _ in $(seq 50); do redis-cli -p "$redis_port" ping >/dev/null 2>&1 && break; sleep 0.1; done
    store="redis://127.0.0.1:$redis_port"
    # A throwaway Redis that keeps nothing across a restart: refused for factors unless told.
    secret_args=(--secret-file "$work/secret" --allow-volatile-factors)
    ;;
  postgres)
    # OTP_BENCH_POSTGRES_OPTIONS: more server settings, e.g. "-c synchronous_commit=off".
    # shellcheck disable=SC2086
    start_postgres ${OTP_BENCH_POSTGRES_OPTIONS:-}
    store="$POSTGRES_URL?schema=bench"
    secret_args=(--secret-file "$work/secret" --store-connections "${OTP_BENCH_STORE_CONNECTIONS:-4}")
    ;;
  *) echo "OTP_BENCH_STORE is memory, sqlite, redis or postgres" >&2; exit 2 ;;
esac
key="bench-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
# The SMS pumping guard off: the benchmark's starts are never checked, so from the first minute
# they convert at 0%, which the guard (shadow by default with this sender) rightly treats as pumping
# and reports on every start; that is the guard's refusal path, not a start's.
# Limits and attempts lifted so every request does the full work instead of stopping at 429 or 423
# (a limit of N per N seconds is a burst of N: the limiter works in whole milliseconds). The check
# floor is off: it holds each answer 50 ms, which would measure wrk's connection count. Every
# connection comes from 127.0.0.1, so the per-address connection cap is off too.
spread_args=()
[ "$spread" -gt 1 ] && spread_args=(--trust-proxy 1)
"$otp" serve --port 0 --store "$store" --api-key "$key" --sender "outbox:/dev/null" --check-floor 0 --fraud-guard off \
  "${secret_args[@]}" "${spread_args[@]}" --max-connections-per-address 0 \
  --max-attempts 1000000 --limit-starts-per-destination 1000000000/31536000 \
  --limit-starts-per-address 1000000000/31536000 --limit-checks-per-address 1000000000/31536000 \
  --limit-failed-checks-per-destination 1000000000/31536000 >"$work/otp.out" 2>/dev/null &
pids+=($!)
otp_pid=$!
for _ in $(seq 200); do
  [ -s "$work/bare.port" ] && grep -q 'listening on http://' "$work/otp.out" && break
  sleep 0.05
done
bare_url="http://127.0.0.1:$(cat "$work/bare.port")"
otp_url=$(sed -n 's|.*listening on \(http://[^" ]*\).*|\1|p' "$work/otp.out")
[ -n "$otp_url" ] || { echo "otp serve did not start" >&2; exit 1; }

floor_connections=${OTP_BENCH_FLOOR_CONNECTIONS:-1000}
if [ "$floor_connections" -gt 0 ]; then
  ulimit -n 20000 2>/dev/null || ulimit -n "$(ulimit -Hn)"
  floor_store=$store
  [ "$store_kind" = sqlite ] && floor_store="sqlite:$work/floor.sqlite3"
  # The same server with the default check floor: every check answer is held 50 ms.
  "$otp" serve --port 0 --store "$floor_store" --api-key "$key" --sender "outbox:/dev/null" --fraud-guard off \
    "${secret_args[@]}" --max-connections-per-address 0 \
    --max-attempts 1000000 --limit-starts-per-destination 1000000000/31536000 \
    --limit-starts-per-address 1000000000/31536000 --limit-checks-per-address 1000000000/31536000 \
    --limit-failed-checks-per-destination 1000000000/31536000 >"$work/floor.out" 2>/dev/null &
  pids+=($!)
  floor_pid=$!
  for _ in $(seq 200); do grep -q 'listening on http://' "$work/floor.out" && break; sleep 0.05; done
  floor_url=$(sed -n 's|.*listening on \(http://[^" ]*\).*|\1|p' "$work/floor.out")
  [ -n "$floor_url" ] || { echo "otp serve (check floor) did not start" >&2; exit 1; }
  floor_id=$(curl -sf -X POST "$floor_url/v1/verifications" -H "Authorization: Bearer $key" \
    -H 'Content-Type: application/json' -d '{"to":"+12025550199"}' |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
fi

started=$(curl -sf -X POST "$otp_url/v1/verifications" -H "Authorization: Bearer $key" \
  -H 'Content-Type: application/json' -d '{"to":"+12025550100"}')
id=$(printf '%s' "$started" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
export OTP_BENCH_KEY="$key" OTP_BENCH_ID="$id" OTP_BENCH_CODE="000000" OTP_BENCH_SPREAD="$spread"
export OTP_BENCH_ID_FILE=""
if [ "$spread" -gt 1 ]; then
  # As many verifications as addresses, each started from its own address, for check.lua to go round.
  OTP_BENCH_ID_FILE="$work/ids"
  python3 - "$otp_url" "$key" "$spread" >"$OTP_BENCH_ID_FILE" <<'PY'
import json, sys, urllib.request
url, key, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
for n in range(count):
    request = urllib.request.Request(
        url + "/v1/verifications", data=json.dumps({"to": "+1203%03d%04d" % (200 + n // 10000 % 800, n % 10000)}).encode(), method="POST",
        headers={"Authorization": "Bearer " + key, "Content-Type": "application/json",
                 "X-Forwarded-For": "10.%d.%d.%d" % (n // 65536 % 256, n // 256 % 256, n % 256)})
    with urllib.request.urlopen(request) as answer:
        print(json.load(answer)["id"])
PY
fi
wrk_prefix=()
wrk_policy="as any process"
if [ "${OTP_BENCH_WRK_BATCH:-1}" = 1 ] && command -v chrt >/dev/null; then
  wrk_prefix=(chrt --batch 0)
  wrk_policy="as SCHED_BATCH"
fi
echo "bare: $bare_url   otp serve ($store_kind store): $otp_url   wrk -t2 -c$connections -d${seconds}s, $wrk_policy"

# The server's CPU time so far (user + system), in clock ticks, from /proc/PID/stat.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
ticks_per_second=$(getconf CLK_TCK)

# Runs wrk against the server with process id $3 and prints "REQUESTS_PER_SECOND P99_MILLISECONDS
# NON_2XX_OR_3XX SERVER_CPU_MICROSECONDS_PER_REQUEST STORE_CPU_MICROSECONDS_PER_REQUEST", the last
# for the store server with process id $4 when one is given, else "-".
measure() {
  local url=$1 script=$2 pid=$3 store=${4:-}
  local out before after store_before=0 store_after=0
  before=$(cpu_ticks "$pid")
  [ -n "$store" ] && store_before=$(cpu_ticks "$store")
  out=$("${wrk_prefix[@]}" wrk -t2 -c"$connections" -d"${seconds}s" --latency -s "$script" "$url" 2>&1)
  after=$(cpu_ticks "$pid")
  [ -n "$store" ] && store_after=$(cpu_ticks "$store")
  local rps p99 errors requests cpu
  rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$out")
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  cpu=$(awk -v t=$((after - before)) -v hz="$ticks_per_second" -v n="${requests:-0}" \
    'BEGIN { if (n > 0) printf "%.1f", t * 1e6 / hz / n; else print 0 }')
  p99=$(awk '$1 == "99%" {v=$2; if (v ~ /us$/) {sub(/us$/, "", v); v=v/1000} else if (v ~ /ms$/) {sub(/ms$/, "", v)} else if (v ~ /s$/) {sub(/s$/, "", v); v=v*1000}; print v}' <<<"$out")
  errors=$(awk '/Non-2xx or 3xx responses:/ {print $5}' <<<"$out")
  # Connections wrk could not open or keep make a rate that is not the server's: say so.
  if grep -q "Socket errors" <<<"$out"; then
    echo "warning: $(grep "Socket errors" <<<"$out" | sed 's/^ *//') ($url, $connections connections)" >&2
  fi
  local store_cpu=-
  [ -n "$store" ] && store_cpu=$(awk -v t=$((store_after - store_before)) -v hz="$ticks_per_second" \
    -v n="${requests:-0}" 'BEGIN { if (n > 0) printf "%.1f", t * 1e6 / hz / n; else print 0 }')
  echo "${rps:-0} ${p99:-0} ${errors:-0} ${cpu} ${store_cpu}"
}

step "measure ($rounds rounds of bare POST, check, start; bare GET once)"
measure "$otp_url" Benchmarks/http/check.lua "$otp_pid" >/dev/null
read -r bare_get bare_get_p99 _ bare_get_cpu _ < <(measure "$bare_url/healthz" /dev/null "$bare_pid")
: >"$work/results"
for round in $(seq "$rounds"); do
  echo "bare $(measure "$bare_url/check" Benchmarks/http/post.lua "$bare_pid")" >>"$work/results"
  echo "check $(measure "$otp_url" Benchmarks/http/check.lua "$otp_pid" "$store_pid")" >>"$work/results"
  echo "start $(measure "$otp_url" Benchmarks/http/start.lua "$otp_pid" "$store_pid")" >>"$work/results"
  echo "round $round: $(tail -n 3 "$work/results" | awk '{printf "%s %.0f/s  ", $1, $2}')"
done
# Prints "MEDIAN_REQUESTS_PER_SECOND MEDIAN_P99 TOTAL_NON_2XX MEDIAN_CPU_PER_REQUEST
# MEDIAN_STORE_CPU_PER_REQUEST" for one name.
median() {
  local rows middle
  rows=$(awk -v name="$1" '$1 == name' "$work/results")
  middle=$(( ($(wc -l <<<"$rows") + 1) / 2 ))
  echo "$(awk '{print $2}' <<<"$rows" | sort -g | sed -n "${middle}p")" \
    "$(awk '{print $3}' <<<"$rows" | sort -g | sed -n "${middle}p")" \
    "$(awk '{e += $4} END {print e + 0}' <<<"$rows")" \
    "$(awk '{print $5}' <<<"$rows" | sort -g | sed -n "${middle}p")" \
    "$(awk '{print $6}' <<<"$rows" | sort -g | sed -n "${middle}p")"
}
read -r bare_post bare_post_p99 _ bare_cpu _ < <(median bare)
read -r check check_p99 check_non2xx check_cpu check_store_cpu < <(median check)
read -r start start_p99 start_non2xx start_cpu start_store_cpu < <(median start)

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
echo
printf '%-34s %10s %8s %8s %11s %9s\n' "endpoint" "req/s" "p99 ms" "ratio" "CPU µs/req" "CPU ×bare"
row() {  # name rps p99 cpu
  printf '%-34s %10.0f %8.2f %8s %11s %9s\n' "$1" "$2" "$3" "$(ratio "$2" "$bare_post")" "$4" "$(ratio "$4" "$bare_cpu")"
}
row "bare libmicrohttpd GET (ceiling)" "$bare_get" "$bare_get_p99" "$bare_get_cpu"
row "bare libmicrohttpd POST" "$bare_post" "$bare_post_p99" "$bare_cpu"
row "POST /v1/verifications/{id}/check" "$check" "$check_p99" "$check_cpu"
row "POST /v1/verifications (start)" "$start" "$start_p99" "$start_cpu"
[ -n "$store_pid" ] &&
  echo "redis-server on the same cores, CPU per request in the same runs (medians): check $check_store_cpu µs, start $start_store_cpu µs"
[ "$store_kind" = postgres ] &&
  echo "postgres: ${OTP_BENCH_STORE_CONNECTIONS:-4} pool connections; server options: ${OTP_BENCH_POSTGRES_OPTIONS:-none (durable commits)}"
[ "$spread" -gt 1 ] && echo "spread: checks go round $spread verifications and starts round $spread client addresses (X-Forwarded-For, --trust-proxy 1)"
echo "store: $store_kind; $(nproc) cores; medians of $rounds rounds; CPU is the server process's utime+stime over each run; wrk $wrk_policy"
echo
echo "check answers are 422 incorrect_code (an attempt taken and judged each time); non-2xx: $check_non2xx"
echo "start answers are 201 with a code sent to an outbox on /dev/null; non-2xx: $start_non2xx"

# Measures the check at $1 connections on the floor-off and the floor-on server, $rounds rounds in
# turn, into $work/results as "off …" and "on …" rows for `median`.
floor_rounds() {
  local at=$1
  step "check floor ($rounds rounds of check at $at connections, floor off and 50 ms)"
  : >"$work/results"
  for round in $(seq "$rounds"); do
    echo "off $(connections=$at OTP_BENCH_ID_FILE='' measure "$otp_url" Benchmarks/http/check.lua "$otp_pid")" \
      >>"$work/results"
    echo "on $(connections=$at OTP_BENCH_ID_FILE='' OTP_BENCH_ID=$floor_id measure "$floor_url" Benchmarks/http/check.lua "$floor_pid")" \
      >>"$work/results"
    echo "round $round: $(tail -n 2 "$work/results" | awk '{printf "floor %s %.0f/s  ", $1, $2}')"
  done
}

if [ "$floor_connections" -gt 0 ]; then
  floor_rounds "$floor_connections"
  read -r off off_p99 _ off_cpu _ < <(median off)
  read -r on on_p99 _ on_cpu _ < <(median on)
  # A closed-loop connection waits for each answer before it asks again, so N connections pass at
  # most N / 50 ms checks through the floor, whatever the server can do. To see what the floor costs
  # the server, the same pair runs again at enough connections that this cap is 1.5 times the
  # floor-off rate (OTP_BENCH_CAPACITY_CONNECTIONS to choose; 0 skips).
  # At most 10,000, and within the open-file limit with room for the servers' own files.
  most=$(( $(ulimit -n) - 200 ))
  [ "$most" -gt 10000 ] && most=10000
  capacity_connections=${OTP_BENCH_CAPACITY_CONNECTIONS:-$(awk -v r="$off" -v c="$floor_connections" -v m="$most" \
    'BEGIN { n = int((r * 0.05 * 1.5 + 499) / 500) * 500; if (n < c) n = c; if (n > m) n = m; print n }')}
  [[ "$capacity_connections" =~ ^[0-9]+$ ]] || { echo "OTP_BENCH_CAPACITY_CONNECTIONS is a whole number" >&2; exit 2; }
  if [ "$capacity_connections" -gt 0 ]; then
    floor_rounds "$capacity_connections"
    read -r wide_off wide_off_p99 _ wide_off_cpu _ < <(median off)
    read -r wide_on wide_on_p99 _ wide_on_cpu _ < <(median on)
  fi
  echo
  printf '%-40s %10s %8s %8s %11s\n' "check" "req/s" "p99 ms" "ratio" "CPU µs/req"
  printf '%-40s %10.0f %8.2f %8s %11s\n' "floor off, $floor_connections connections" "$off" "$off_p99" "1.00" "$off_cpu"
  printf '%-40s %10.0f %8.2f %8s %11s\n' "floor 50 ms (the default), $floor_connections conn." "$on" "$on_p99" "$(ratio "$on" "$off")" "$on_cpu"
  echo "at most $floor_connections connections / 50 ms = $((floor_connections * 20)) checks/s can pass a 50 ms floor"
  if [ "$capacity_connections" -gt 0 ]; then
    printf '%-40s %10.0f %8.2f %8s %11s\n' "floor off, $capacity_connections connections" "$wide_off" "$wide_off_p99" "$(ratio "$wide_off" "$off")" "$wide_off_cpu"
    printf '%-40s %10.0f %8.2f %8s %11s\n' "floor 50 ms, $capacity_connections connections" "$wide_on" "$wide_on_p99" "$(ratio "$wide_on" "$off")" "$wide_on_cpu"
    echo "ratios against floor off at $floor_connections connections; $capacity_connections connections / 50 ms = $((capacity_connections * 20)) checks/s can pass the floor"
    echo "floor on at $capacity_connections against floor off at $capacity_connections: $(ratio "$wide_on" "$wide_off")"
  fi
fi
