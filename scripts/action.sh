#!/usr/bin/env bash
# The shell steps of the GitHub Action (action.yml), one subcommand per step, so that they can
# be run, and are in CI (scripts/check-action.sh), outside GitHub. They read the step's inputs
# from INPUT_* variables and write outputs to $GITHUB_OUTPUT and the job summary to
# $GITHUB_STEP_SUMMARY, as GitHub does.
#
#   action.sh install   install the harness into $RUNNER_TEMP (INPUT_PACKAGE: an npm spec or a
#                       tarball; empty: this checkout, packed); outputs bin
#   action.sh certify   certify from $GITHUB_WORKSPACE with INPUT_CONFIG, INPUT_BASELINE,
#                       INPUT_OUT, INPUT_STRICT, INPUT_ARGS (BIN: the installed command);
#                       outputs exit-code, summary, report-dir; never fails the step itself
#   action.sh gate      fail the job on CERTIFY_EXIT_CODE, saying what it means
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"

output() { echo "$1=$2" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"; }
need() { [ -n "${!1:-}" ] || { echo "action: $1 is not set" >&2; exit 2; }; }

install() {
  need RUNNER_TEMP
  local dir="$RUNNER_TEMP/messaging-conformance"
  local spec=${INPUT_PACKAGE:-}
  mkdir -p "$dir"
  if [ -z "$spec" ]; then
    # the action's own checkout is the harness: pack it as a release would be
    spec="$dir/$(cd "$HERE" && npm pack --silent --pack-destination "$dir" | tail -n 1)"
  fi
  [ -f "$dir/package.json" ] || echo '{ "name": "conformance-runner", "private": true }' >"$dir/package.json"
  (cd "$dir" && npm install --prefer-offline --no-audit --no-fund "$spec")
  local bin="$dir/node_modules/.bin/messaging-conformance"
  [ -x "$bin" ] || { echo "action: the install of $spec put no messaging-conformance command in $dir" >&2; exit 2; }
  output bin "$bin"
}

certify() {
  need BIN
  need GITHUB_WORKSPACE
  need INPUT_CONFIG
  local out=${INPUT_OUT:-conformance-report}
  local args=(certify --config "$INPUT_CONFIG" --out "$out")
  [ -z "${INPUT_BASELINE:-}" ] || args+=(--baseline "$INPUT_BASELINE")
  [ "${INPUT_STRICT:-false}" != true ] || args+=(--strict)
  # further flags, split on white space (e.g. "--rate-limit 5 --seed 42")
  # shellcheck disable=SC2206
  [ -z "${INPUT_ARGS:-}" ] || args+=(${INPUT_ARGS})
  local code
  set +e
  (cd "$GITHUB_WORKSPACE" && "$BIN" "${args[@]}") 2>&1 | tee "${RUNNER_TEMP:-/tmp}/certify.log"
  code=${PIPESTATUS[0]}
  set -e
  local line
  line=$(grep -E '^(CONFORMANT|NOT CONFORMANT|PARTIAL|HARNESS ERROR)' "${RUNNER_TEMP:-/tmp}/certify.log" | tail -n 1 || true)
  output exit-code "$code"
  output summary "${line:-no summary line: see the log of the certify step}"
  output report-dir "$GITHUB_WORKSPACE/$out"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    { echo '### Conformance'; echo '```'; echo "${line:-no summary line: see the log of the certify step}"; echo '```'; } >>"$GITHUB_STEP_SUMMARY"
  fi
}

gate() {
  need CERTIFY_EXIT_CODE
  case "$CERTIFY_EXIT_CODE" in
    0) echo "conformance: passed" ;;
    1) echo "conformance: not conformant (a failure the baseline does not list); see the report artifact" >&2 ;;
    2) echo "conformance: harness or configuration error, or a run stopped on the harness side; see the certify step's log" >&2 ;;
    *) echo "conformance: certify exited $CERTIFY_EXIT_CODE" >&2 ;;
  esac
  exit "$CERTIFY_EXIT_CODE"
}

case "${1:-}" in
  install | certify | gate) "$1" ;;
  *) echo "usage: action.sh install|certify|gate" >&2; exit 2 ;;
esac
