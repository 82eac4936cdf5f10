#!/usr/bin/env bash
# Loads spec/openapi.yaml in the two tools a user is most likely to point at it, and proves
# each one serves it: Stoplight Prism (mock server) and Specmatic (example validation and stub).
# Run with `npm run spec:tools`. Not part of `npm test`: the first run downloads Prism (npm)
# and Specmatic (an npm wrapper around a ~85 MB jar run by Java 17 or later).
#
# Specmatic cannot read status ranges ("2XX", "4XX"), which the document needs to leave a
# success status open, so it is given the reference-profile view written by
# test/spec/specmatic-view.ts (see spec/README.md, "Loading it in your tools").
#
# Environment: PRISM_PORT (default 4010), SPECMATIC_PORT (default 9000).
set -euo pipefail

cd "$(dirname "$0")/.."

PRISM_VERSION=5.14.2       # later Prism releases need Node 24
SPECMATIC_VERSION=2.55.1
PRISM_PORT=${PRISM_PORT:-4010}
SPECMATIC_PORT=${SPECMATIC_PORT:-9000}

WORK=$(mktemp -d)
SERVER_PID=

# Each server runs in its own process group (setsid), so the npx wrapper and the tool it
# started (Specmatic's JVM) stop together. The JVM takes a few seconds to shut down, so wait
# for the group to empty before moving on; force it after 15 s.
stop_server() {
  [ -n "$SERVER_PID" ] || return 0
  kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
  for _ in $(seq 1 30); do
    pgrep -g "$SERVER_PID" >/dev/null || break
    sleep 0.5
  done
  kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
}

cleanup() {
  stop_server
  rm -rf "$WORK"
}
trap cleanup EXIT

say() { printf '\n== %s\n' "$*"; }
fail() { echo "spec-tools: $*" >&2; exit 1; }

# start_server LOG READY_PATTERN COMMAND...: starts COMMAND, waits up to 180 s for READY_PATTERN.
start_server() {
  local log=$1 ready=$2
  shift 2
  : >"$log"
  setsid "$@" >"$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 180); do
    if grep -q "$ready" "$log"; then return 0; fi
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then cat "$log" >&2; fail "server exited before it was ready"; fi
    sleep 1
  done
  cat "$log" >&2
  fail "server not ready after 180 s"
}

# expect_status NAME STATUS CURL_ARGS...: one request, its status must be STATUS.
expect_status() {
  local name=$1 want=$2
  shift 2
  local got
  got=$(curl -s -o "$WORK/body" -w '%{http_code}' "$@")
  printf '   %-44s %s  %s\n' "$name" "$got" "$(head -c 120 "$WORK/body" | tr -s ' \n' ' ')"
  [ "$got" = "$want" ] || fail "$name: expected $want, got $got"
}

SEND_BODY='{"sendFrom":"num_01","to":["+12025550123"],"messageType":"SMS","text":"Hello","externalReference":"order-1001"}'

# ── Stoplight Prism ──────────────────────────────────────────────────────────────────────────
say "Stoplight Prism $PRISM_VERSION: prism mock spec/openapi.yaml"
start_server "$WORK/prism.log" "Prism is listening" \
  npx --yes "@stoplight/prism-cli@$PRISM_VERSION" mock -p "$PRISM_PORT" spec/openapi.yaml
grep -v '^npm warn' "$WORK/prism.log" | sed 's/^/   /'
if grep -Eqi '\b(error|fatal)\b' "$WORK/prism.log"; then fail "Prism reported errors loading the document"; fi
P="http://127.0.0.1:$PRISM_PORT"
expect_status 'POST /api/auth/token' 200 -X POST "$P/api/auth/token" -H 'content-type: application/json' \
  -d '{"grant_type":"client_credentials","client_id":"demo-primary","client_secret":"s3cret"}'
expect_status 'GET /api/core/whoami' 200 "$P/api/core/whoami" -H 'authorization: Bearer t'
expect_status 'GET /api/core/whoami without a token' 401 "$P/api/core/whoami"
# Prism answers a "2XX" response as 200: the document leaves the send status open (the
# reference profile's 202 is not in it), so 200 is Prism's pick, not the interface's.
expect_status 'POST /api/core/messages/send' 200 -X POST "$P/api/core/messages/send" -H 'authorization: Bearer t' \
  -H 'content-type: application/json' -H 'idempotency-key: 5f0c2d9e-6b1a-4c43-9d0e-2b7f3f1e8a11' -d "$SEND_BODY"
# Prism's own answer to a request that breaks the document is 422, with the 400 example body.
expect_status 'POST /api/core/messages/send without key' 422 -X POST "$P/api/core/messages/send" \
  -H 'authorization: Bearer t' -H 'content-type: application/json' -d "$SEND_BODY"
stop_server

# ── Specmatic ────────────────────────────────────────────────────────────────────────────────
command -v java >/dev/null || fail "Specmatic needs Java 17 or later on PATH"
JAVA_MAJOR=$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
[ "${JAVA_MAJOR:-0}" -ge 17 ] || fail "Specmatic needs Java 17 or later (found ${JAVA_MAJOR:-none})"

VIEW="$WORK/openapi.specmatic.yaml"
node --import tsx test/spec/specmatic-view.ts "$VIEW"

say "Specmatic $SPECMATIC_VERSION: examples validate (reference-profile view)"
npx --yes "specmatic@$SPECMATIC_VERSION" examples validate --examples-to-validate=INLINE --spec-file "$VIEW" \
  >"$WORK/examples.log" 2>&1 || true # it exits 0 even when it throws; the log decides
grep -v '^npm warn' "$WORK/examples.log" | grep -v '^\s*$' | sed 's/^/   /'
if grep -q 'Exception' "$WORK/examples.log"; then fail "Specmatic could not load the document"; fi
grep -q '^All [0-9]* example(s) are valid' "$WORK/examples.log" || fail "Specmatic found invalid examples"

say "Specmatic $SPECMATIC_VERSION: stub (reference-profile view)"
start_server "$WORK/stub.log" "Mock server is running" \
  npx --yes "specmatic@$SPECMATIC_VERSION" stub --port "$SPECMATIC_PORT" "$VIEW"
grep -v '^npm warn' "$WORK/stub.log" | grep -v '^\s*$' | sed 's/^/   /'
S="http://127.0.0.1:$SPECMATIC_PORT"
expect_status 'GET /api/core/whoami' 200 "$S/api/core/whoami" -H 'authorization: Bearer t'
expect_status 'POST /api/core/messages/send (example sms)' 202 -X POST "$S/api/core/messages/send" \
  -H 'authorization: Bearer t' -H 'content-type: application/json' \
  -H 'idempotency-key: 5f0c2d9e-6b1a-4c43-9d0e-2b7f3f1e8a11' -d "$SEND_BODY"
expect_status 'POST /api/core/messages/send without key' 400 -X POST "$S/api/core/messages/send" \
  -H 'authorization: Bearer t' -H 'content-type: application/json' -d "$SEND_BODY"
stop_server

say "spec-tools: Prism and Specmatic both load and serve spec/openapi.yaml"
