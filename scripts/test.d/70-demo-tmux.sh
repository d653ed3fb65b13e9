#!/usr/bin/env bash
# End to end: drives `otp demo` in tmux like a person would, and checks the terminal is restored.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh
bin="$(swift build --show-bin-path)/otp"
[ -x "$bin" ] || swift build --product otp >/dev/null
work=$(mktemp -d)
server="otp-e2e-$$"
tmx() { tmux -u -L "$server" "$@"; }
cleanup() { tmx kill-server 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

screen() { tmx capture-pane -p -t demo; }
# Waits up to 20 s for text on screen, polling; prints the screen and fails when it never shows.
wait_for() {
  for _ in $(seq 200); do
    screen | grep -qF -- "$1" && return 0
    sleep 0.1
  done
  echo "never saw: $1"; echo "---- screen ----"; screen; return 1
}
type_code() { for ((i = 0; i < ${#1}; i++)); do tmx send-keys -t demo "${1:i:1}"; done; }
suggested() { screen | sed -n 's/.*From Messages  \([0-9]*\).*/\1/p' | head -n 1; }
wrong_of() { local c=$1; printf '%s%s' "$(((${c:0:1} + 1) % 10))" "${c:1}"; }

run_demo() {  # $1: session script after the demo
  tmx new-session -d -s demo -x 110 -y 30 \
    "stty -g > $work/before; $bin demo --cooldown 2 $2; echo \$? > $work/status; stty -g > $work/after; $1"
}

echo "demo: wrong codes, lock, resend, suggestion, verified, quit"
run_demo "sleep 60" "--reduce-motion"
wait_for "Enter the code"
wait_for "We sent a 6-digit code to"
wait_for "From Messages"
code=$(suggested)
[ ${#code} -eq 6 ] || { echo "no code in the suggestion bar"; screen; exit 1; }
type_code "$(wrong_of "$code")"
wait_for "Code doesn't match. 2 attempts left."
type_code "$(wrong_of "$(wrong_of "$code")")"
wait_for "Code doesn't match. 1 attempt left."
type_code "$(wrong_of "$(wrong_of "$(wrong_of "$code")")")"
wait_for "Too many attempts. Request a new code."
wait_for "[r] Resend code"
tmx send-keys -t demo r
wait_for "New code sent"
wait_for "From Messages"
tmx send-keys -t demo Tab
wait_for "Verified"
tmx send-keys -t demo q
for _ in $(seq 100); do [ -s "$work/after" ] && break; sleep 0.1; done
[ "$(cat "$work/status")" = 0 ] || { echo "demo exited with $(cat "$work/status")"; exit 1; }
cmp -s "$work/before" "$work/after" || { echo "terminal settings not restored after q"; exit 1; }
[ "$(tmx display -p -t demo '#{alternate_on}')" = 0 ] || { echo "still on the alternate screen"; exit 1; }
tmx kill-session -t demo
echo "  ok: wrong, lock, resend, Tab, Verified, q restores the terminal"

echo "demo: ← and → select a digit to correct; the corrected code submits (F11)"
rm -f "$work/before" "$work/after" "$work/status"
run_demo "sleep 60" "--reduce-motion"
wait_for "From Messages"
code=$(suggested)
[ ${#code} -eq 6 ] || { echo "no code in the suggestion bar"; screen; exit 1; }
type_code "$(wrong_of "$code")"
wait_for "Code doesn't match. 2 attempts left."
for _ in 1 2 3 4 5 6; do tmx send-keys -t demo Left; done
tmx send-keys -t demo "${code:0:1}"
wait_for "Verified"
tmx send-keys -t demo q
for _ in $(seq 100); do [ -s "$work/after" ] && break; sleep 0.1; done
tmx kill-session -t demo
echo "  ok: ← six times selects the first digit, one key corrects it, the code verifies"

echo "demo: --totp enrols a factor, shows its QR code, and verifies the authenticator's code"
rm -f "$work/before" "$work/after" "$work/status"
run_demo "sleep 60" "--totp --reduce-motion"
wait_for "Scan this with an authenticator app"
screen | grep -q "otpauth://totp/OTPKit%20demo:demo@example.org" || { echo "no otpauth URI"; screen; exit 1; }
tmx send-keys -t demo Enter
wait_for "Enter the code from your authenticator app."
wait_for "From your authenticator"
if screen | grep -qF "Resend"; then echo "a Resend button in authenticator mode"; screen; exit 1; fi
code=$(screen | sed -n 's/.*From your authenticator  \([0-9]*\).*/\1/p' | head -n 1)
[ ${#code} -eq 6 ] || { echo "no code in the authenticator suggestion"; screen; exit 1; }
type_code "$code"
wait_for "Verified"
tmx send-keys -t demo q
for _ in $(seq 100); do [ -s "$work/after" ] && break; sleep 0.1; done
[ "$(cat "$work/status")" = 0 ] || { echo "demo --totp exited with $(cat "$work/status")"; exit 1; }
tmx kill-session -t demo
echo "  ok: QR code and URI, the authenticator prompt, no Resend, the offered code verifies"

echo "demo: --locale de shows the screen in German"
rm -f "$work/before" "$work/after" "$work/status"
run_demo "sleep 60" "--locale de --reduce-motion"
wait_for "Code eingeben"
wait_for "Aus Nachrichten"
wait_for "Backspace löscht"
code=$(screen | sed -n 's/.*Aus Nachrichten  \([0-9]*\).*/\1/p' | head -n 1)
[ ${#code} -eq 6 ] || { echo "no code in the German suggestion bar"; screen; exit 1; }
type_code "$(wrong_of "$code")"
wait_for "Der Code stimmt nicht. Noch 2 Versuche."
tmx send-keys -t demo q
for _ in $(seq 100); do [ -s "$work/after" ] && break; sleep 0.1; done
tmx kill-session -t demo
echo "  ok: German title, suggestion bar, hints and plural"

echo "demo: SIGTERM restores the terminal"
rm -f "$work/before" "$work/after" "$work/status"
run_demo "sleep 60" ""
wait_for "Enter the code"
pid=$(pgrep -f "^$bin demo --cooldown 2" | head -n 1)
kill -TERM "$pid"
for _ in $(seq 100); do [ -s "$work/after" ] && break; sleep 0.1; done
cmp -s "$work/before" "$work/after" || { echo "terminal settings not restored after SIGTERM"; exit 1; }
tmx kill-session -t demo
echo "  ok: SIGTERM restores the terminal"

echo "demo --web: the hosted page, the phone, the form without JavaScript, the token checked by the app"
"$bin" demo --web --cooldown 2 >"$work/web.out" 2>"$work/web.err" &
web=$!
for _ in $(seq 100); do grep -q '^phone: your code is ' "$work/web.out" 2>/dev/null && break; sleep 0.1; done
page=$(sed -n 's/^the hosted page:  //p' "$work/web.out")
code=$(sed -n 's/^phone: your code is //p' "$work/web.out" | tail -n 1)
[ -n "$page" ] && [ -n "$code" ] || { echo "no page or code: $(cat "$work/web.out" "$work/web.err")"; kill "$web"; exit 1; }
# Without JavaScript the page answers a form that posts the token to the app (form_post); press its button.
back=$(curl -s -X POST -H "Content-Type: application/x-www-form-urlencoded" -d "code=$code" "$page/check")
action=$(echo "$back" | sed -n 's/.*<form id="otp-return" method="post" action="\([^"]*\)".*/\1/p')
token=$(echo "$back" | sed -n 's/.*name="token" value="\([^"]*\)".*/\1/p')
state=$(echo "$back" | sed -n 's/.*name="state" value="\([^"]*\)".*/\1/p')
[ -n "$action" ] && [ -n "$token" ] || { echo "no return form: $back"; kill "$web"; exit 1; }
case "$back" in *"$token"*"Continue"*) ;; *) echo "no Continue button: $back"; kill "$web"; exit 1 ;; esac
landed=$(curl -s -X POST --data-urlencode "state=$state" --data-urlencode "token=$token" "$action")
echo "$landed" | grep -q "verified: +1" || { echo "the app did not verify the token: $landed"; kill "$web"; exit 1; }
for _ in $(seq 50); do grep -q '^verified: +1' "$work/web.out" && break; sleep 0.1; done
# The form posted again after approval (its answer lost): Verified, and Continue without a token.
again=$(curl -s -X POST -H "Content-Type: application/x-www-form-urlencoded" -d "code=$code" "$page/check")
echo "$again" | grep -q '<form id="otp-verified-back" class="otp-back" method="post"' &&
  echo "$again" | grep -q 'name="error" value="token_lost"' ||
  { echo "no Continue without a token after approval: $again"; kill "$web"; exit 1; }
landed=$(curl -s -X POST --data-urlencode "state=$state" --data-urlencode "error=token_lost" "$action")
echo "$landed" | grep -q "back without a token: error token_lost" ||
  { echo "the app did not take the return without a token: $landed"; kill "$web"; exit 1; }
kill -INT "$web"
wait "$web" || { echo "otp demo --web did not exit cleanly on SIGINT"; exit 1; }
grep -q '^verified: +1' "$work/web.out" || { echo "the terminal did not show the verified token"; exit 1; }
echo "  ok: page, phone, form post, the token posted to the app and verified there (nonce, number), Continue without a token after approval, clean stop"

echo "demo: stdin that is not a terminal gets a clear message"
set +e
out=$(echo | "$bin" demo 2>&1)
status=$?
set -e
[ "$status" -eq 2 ] || { echo "expected exit 2, got $status: $out"; exit 1; }
echo "$out" | grep -q "interactive terminal" || { echo "unclear message: $out"; exit 1; }
echo "  ok: $out"

echo "client commands and demo options: bad usage exits 2, no server exits 1, each with one line"
expect_exit() {  # expected status, text the message must hold, command...
  local want=$1 text=$2; shift 2
  set +e
  out=$(env -u OTP_API_KEY -u OTP_SERVER "$@" 2>&1 </dev/null)
  got=$?
  set -e
  [ "$got" -eq "$want" ] || { echo "expected exit $want from $*, got $got: $out"; exit 1; }
  echo "$out" | grep -qF -- "$text" || { echo "no '$text' in: $out"; exit 1; }
}
expect_exit 2 "--length must be a whole number from 4 to 8" "$bin" demo --length 9
expect_exit 2 "--server needs --api-key" "$bin" demo --server http://127.0.0.1:1
expect_exit 2 "--locale must be one of en, de, ar, ja" "$bin" demo --locale fr
expect_exit 2 "--web runs its own server" "$bin" demo --web --offline
expect_exit 2 "otp token takes: verify TOKEN" "$bin" token check x
expect_exit 2 "--jwks is needed" "$bin" token verify x --audience https://app.example
expect_exit 2 "cannot read the key set" "$bin" token verify x --jwks /nonexistent/jwks.json --audience a --issuer otpkit
expect_exit 2 "OTP_REDUCE_MOTION must be 1 or 0" env OTP_REDUCE_MOTION=maybe "$bin" demo
expect_exit 2 "an API key is needed" "$bin" check vf_x 482019
expect_exit 2 "otp check takes 2 arguments" "$bin" check vf_x --api-key k
expect_exit 2 "--channel must be sms or email" "$bin" start --to +12015550100 --channel fax --api-key k
expect_exit 2 "--server must be an http or https URL" "$bin" status vf_x --api-key k --server ftp://x
expect_exit 2 "unknown option --color" "$bin" status vf_x --api-key k --color
expect_exit 1 "network_failure" "$bin" status vf_x --api-key k --server "http://127.0.0.1:$(free_port)"
expect_exit 2 "--totp needs a server" "$bin" demo --totp --offline
expect_exit 2 "--totp needs a server" "$bin" demo --totp --web
echo "  ok: 16 usage and failure paths"
