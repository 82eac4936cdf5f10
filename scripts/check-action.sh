#!/usr/bin/env bash
# The GitHub Action's shell steps (scripts/action.sh, as action.yml calls them) run outside
# GitHub with the variables GitHub would set: install this checkout, certify a target from a
# config in a "caller's repository", check the outputs, the job summary and the report files,
# and that the gate fails the job on a harness error. .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
ACTION=$PWD/scripts/action.sh
WORK=$(mktemp -d "${TMPDIR:-/tmp}/check-action-XXXXXX")
SERVER_PID=
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "check-action: FAIL: $*" >&2; exit 1; }
# output NAME: the last value a step wrote for NAME to $GITHUB_OUTPUT
output() { grep "^$1=" "$GITHUB_OUTPUT" | tail -n 1 | cut -d= -f2-; }

export RUNNER_TEMP="$WORK/runner-temp" GITHUB_WORKSPACE="$WORK/caller-repo" GITHUB_OUTPUT="$WORK/github-output" GITHUB_STEP_SUMMARY="$WORK/step-summary"
mkdir -p "$RUNNER_TEMP" "$GITHUB_WORKSPACE/.conformance"
: >"$GITHUB_OUTPUT"

started=$(date +%s)
INPUT_PACKAGE='' bash "$ACTION" install >"$WORK/install.log" 2>&1 || { tail -n 20 "$WORK/install.log" >&2; fail "the install step failed"; }
echo "check-action: install took $(($(date +%s) - started)) s"
BIN=$(output bin)
[ -x "$BIN" ] || fail "the install step gave no command (bin=$BIN)"

# A target for the caller's config: the bundled reference, started by the installed command.
"$BIN" serve --port 0 --fresh --db "$WORK/target.db" --log-level warn --fixtures-out "$WORK/target.json" >"$WORK/serve.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do [ -s "$WORK/target.json" ] && break; sleep 0.2; done
[ -s "$WORK/target.json" ] || { cat "$WORK/serve.log" >&2; fail "the reference wrote no fixtures file"; }
node -e '
  const t = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const c = t.clients.find((x) => x.role === "primary");
  process.stdout.write(`label: caller target\nbaseUrl: ${t.baseUrl}\nclients:\n  primary: { clientId: "${c.clientId}", clientSecret: "\${TARGET_SECRET}" }\n`);
  require("fs").writeFileSync(process.argv[2], c.clientSecret);
' "$WORK/target.json" "$WORK/secret" >"$GITHUB_WORKSPACE/.conformance/vendor.yaml"
echo 'expectedFailures: []' >"$GITHUB_WORKSPACE/.conformance/baseline.yaml"

certify() { # certify SECRET: the certify step as action.yml runs it
  BIN=$BIN INPUT_CONFIG=.conformance/vendor.yaml INPUT_BASELINE=.conformance/baseline.yaml INPUT_STRICT=false \
    INPUT_ARGS='--grep @CTX-001' INPUT_OUT=conformance-report TARGET_SECRET=$1 bash "$ACTION" certify >"$WORK/certify.log" 2>&1 ||
    { tail -n 20 "$WORK/certify.log" >&2; fail "the certify step itself failed (it must leave failing to the gate)"; }
}

certify "$(cat "$WORK/secret")"
[ "$(output exit-code)" = 0 ] || { tail -n 20 "$WORK/certify.log" >&2; fail "certify exited $(output exit-code), expected 0"; }
[[ "$(output summary)" == PARTIAL* ]] || fail "the summary output is not the run's summary line: $(output summary)"
[ "$(output report-dir)" = "$GITHUB_WORKSPACE/conformance-report" ] || fail "report-dir is $(output report-dir)"
for f in report.json report.html junit.xml; do [ -s "$GITHUB_WORKSPACE/conformance-report/$f" ] || fail "no $f for the upload steps"; done
grep -q '^PARTIAL' "$GITHUB_STEP_SUMMARY" || fail "the job summary lacks the summary line"
CERTIFY_EXIT_CODE=0 bash "$ACTION" gate >/dev/null || fail "the gate failed a passing run"

certify wrong-secret
[ "$(output exit-code)" = 2 ] || fail "a wrong secret gave exit code $(output exit-code), expected 2"
code=0
CERTIFY_EXIT_CODE=2 bash "$ACTION" gate 2>"$WORK/gate.log" || code=$?
[ "$code" = 2 ] || fail "the gate exited $code on a harness error, expected 2"
grep -q 'harness or configuration error' "$WORK/gate.log" || fail "the gate does not say what exit code 2 means"

echo "check-action: OK"
