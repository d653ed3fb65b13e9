#!/usr/bin/env bash
# The engine's benchmark: checks per second per store beside that store's raw read-modify-write rate,
# measured in the same run. Extra arguments go to the benchmark (--seconds S, --rounds R, --concurrency C,
# --stores memory,sqlite,redis).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
source scripts/lib.sh

scratch="${OTP_BENCH_SCRATCH_PATH:-.build}"

step "build the benchmark (release)"
set +o pipefail
swift build -c release --scratch-path "$scratch" --product OTPBenchmarks 2>&1 | grep -v "prohibited flag"
status="${PIPESTATUS[0]}"
set -o pipefail
test "$status" -eq 0

step "redis for the benchmark"
start_redis

step "engine benchmark"
"$scratch/release/OTPBenchmarks" --redis-port "$REDIS_PORT" "$@"
