#!/usr/bin/env bash
# The reliability tests, shortened and bounded in time: crash, store outage, provider outage, a
# 2-minute soak, brute force, timing, hostile requests, fuzzing and the sanitizer runs. The full
# version is `make reliability`.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/reliability.sh --ci
