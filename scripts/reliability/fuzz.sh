#!/usr/bin/env bash
# Test 7, bad input: builds the libFuzzer targets under Fuzz/ with `swiftc -sanitize=fuzzer,address`
# from a snapshot of the sources they need, runs each for a bounded number of executions, and prints
# one figure line. Usage: fuzz.sh RUNS. Exit status 1 on a crash, a failed property or a sanitizer
# report; the input that caused it is kept under .build-rel/fuzz-artifacts/.
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v swiftc >/dev/null || export PATH=/opt/swift/usr/bin:$PATH
runs=${1:-20000}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
artifacts="$PWD/.build-rel/fuzz-artifacts"
mkdir -p "$artifacts"

# A snapshot, so files edited while this runs cannot break the build; one module per target, so the
# `import` lines between the package's modules go.
snapshot() {  # $1: target directory; the rest: source files
  local into=$1
  shift
  mkdir -p "$into"
  for file in "$@"; do
    sed -e '/^import OTPCore$/d' -e '/^import OTPEngine$/d' -e '/^import OTPTokens$/d' \
      -e '/^@testable import/d' "$file" \
      >"$into/$(echo "$file" | tr '/' '_')"
  done
}

mapfile -t core < <(find Sources/OTPCore -name '*.swift' | sort)
snapshot "$work/normalizer" "${core[@]}" Fuzz/Normalizer/FuzzNormalizer.swift
snapshot "$work/bodies" "${core[@]}" Fuzz/RequestBodies/FuzzRequestBodies.swift \
  Sources/OTPHTTP/API/RequestBodies.swift Sources/OTPHTTP/API/APIResponses.swift \
  Sources/OTPHTTP/API/ResponseJSON.swift Sources/OTPHTTP/API/Route.swift Sources/OTPHTTP/API/RouteTable.swift \
  Sources/OTPHTTP/Server/HTTPResponse.swift Sources/OTPHTTP/Server/HTTPRequest.swift \
  Sources/OTPEngine/Destination/Destination.swift Sources/OTPEngine/Destination/CallingCodes.swift \
  Sources/OTPEngine/Destination/PhoneNumber.swift Sources/OTPEngine/Destination/ClientAddress.swift \
  Sources/OTPEngine/Support/Hex.swift \
  Sources/OTPEngine/Engine/VerifierError.swift Sources/OTPEngine/Store/StoreError.swift \
  Sources/OTPEngine/Delivery/CodeSender.swift Sources/OTPEngine/Engine/StartRequest.swift \
  Sources/OTPEngine/Store/StoreTime.swift Sources/OTPHTTP/API/APIError+Verifier.swift \
  Sources/OTPTokens/Encoding/StrictJSON.swift

build() {  # $1: name
  if ! swiftc -sanitize=fuzzer,address -parse-as-library -O -package-name otpfuzz -module-name "Fuzz_$1" \
    "$work/$1"/*.swift -o "$work/fuzz-$1" >"$work/build-$1.log" 2>&1; then
    grep -v "Cannot export local symbol" "$work/build-$1.log" | tail -n 30 >&2
    echo "fuzz: the $1 target did not build" >&2
    return 1
  fi
}
build normalizer
build bodies

# Seeds: the shapes real input has, so the runs start from valid bodies and codes.
mkdir -p "$work/seeds-normalizer" "$work/seeds-bodies"
printf '\x06482 019' >"$work/seeds-normalizer/spaced"
printf '\x06G-482019' >"$work/seeds-normalizer/prefixed"
printf '\x06\xd9\xa4\xd9\xa8\xd9\xa2\xd9\xa0\xd9\xa1\xd9\xa9' >"$work/seeds-normalizer/arabic-indic"
printf '\x86ab-12c3' >"$work/seeds-normalizer/alphanumeric"
printf '\x06482019482019' >"$work/seeds-normalizer/doubled"
printf '\x00{"to":"+12015550100","channel":"sms"}' >"$work/seeds-bodies/start-sms"
printf '\x00{"to":"Ana@Example.org"}' >"$work/seeds-bodies/start-email"
printf '\x01{"code":"482 019"}' >"$work/seeds-bodies/check"
printf '\x01{"code":482019}' >"$work/seeds-bodies/check-number"
printf '\x02/v1/verifications/vf_abc/check' >"$work/seeds-bodies/path"
printf '\x03a\xe2\x80\xa2\xe2\x80\xa2\xe2\x80\xa2@ex\\ample.org/"\x01' >"$work/seeds-bodies/response-text"

run() {  # $1: name; prints the executions done
  mkdir -p "$work/corpus-$1"
  if ! "$work/fuzz-$1" -runs="$runs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$artifacts/$1-" "$work/corpus-$1" "$work/seeds-$1" >"$work/run-$1.log" 2>&1; then
    tail -n 40 "$work/run-$1.log" >&2
    echo "fuzz: the $1 target failed; the input is under $artifacts" >&2
    return 1
  fi
  sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 runs in \2 s/p' "$work/run-$1.log" | tail -n 1
}
normalizer=$(run normalizer) || { echo "fuzz: code normalisation crashed"; exit 1; }
bodies=$(run bodies) || { echo "fuzz: request body decoding crashed"; exit 1; }
echo "fuzz: code normalisation $normalizer, request bodies $bodies, 0 crashes, 0 sanitizer reports"
