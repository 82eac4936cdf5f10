#!/usr/bin/env bash
# The package as its users get it: pack the tarball, install it into an empty directory, and
# from there certify the bundled reference and a target given by a config file, checking exit
# codes and that the reports land in that directory and nowhere inside the installed package;
# that the installed command shows its own usage, default report folder and version, lists the
# same tests at the same file:line as the clone's dry run, points a failure's stack at the line
# of the .ts source, and certifies the conformance.yaml init wrote when no --config is given.
# Prints the wall time of each step. .ci/run calls it after npm test.
#
# The install uses --prefer-offline: after the clone's own `npm ci` every dependency is in the
# npm cache, so nothing is downloaded; on a cold cache it falls back to the registry.
# better-sqlite3 still compiles (about a minute): its prebuilt binaries are not reachable here.
set -euo pipefail
cd "$(dirname "$0")/.."
HARNESS=$PWD
WORK=$(mktemp -d "${TMPDIR:-/tmp}/check-package-XXXXXX")
SERVER_PID=
FAULTY_PID=
cleanup() {
  if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
  if [ -n "$FAULTY_PID" ]; then kill "$FAULTY_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() { echo "check-package: FAIL: $*" >&2; exit 1; }
step_started=0
step() { step_started=$(date +%s%N); echo "check-package: $*"; }
took() { local ms=$((($(date +%s%N) - step_started) / 1000000)); printf 'check-package: %s took %d.%d s\n' "$1" $((ms / 1000)) $((ms % 1000 / 100)); }
# expect_exit CODE COMMAND...: run it, keep its output in $WORK/last.log, check its exit code
expect_exit() {
  local want=$1 got=0
  shift
  "$@" >"$WORK/last.log" 2>&1 || got=$?
  if [ "$got" -ne "$want" ]; then tail -n 20 "$WORK/last.log" >&2; fail "$* exited $got, expected $want"; fi
}
summary() { grep -E '^(CONFORMANT|NOT CONFORMANT|PARTIAL|HARNESS ERROR)' "$WORK/last.log" | tail -n 1; }
expect_reports() {
  for f in report.json report.html junit.xml; do [ -s "$1/$f" ] || fail "no $f in $1"; done
}

step "the clone's dry run, to compare the installed one with"
# From an empty directory, so no conformance.yaml of the caller's is taken for the target.
mkdir "$WORK/empty"
INIT_CWD="$WORK/empty" node --import tsx cli/certify.ts --dry-run >"$WORK/dry-clone.txt" 2>&1 || { cat "$WORK/dry-clone.txt" >&2; fail "the clone's dry run failed"; }
took "dry run (clone)"
# The line the AUTH-002 matcher of the bearer suite stands on, where a failure's stack must point.
AUTH002_LINE=$(grep -n "toBeCoreError(401, 'UNAUTHORIZED', \`AUTH-002:" suites/bearer/bearer.spec.ts | head -n 1 | cut -d: -f1)
[ -n "$AUTH002_LINE" ] || fail "no AUTH-002 check found in suites/bearer/bearer.spec.ts"
VERSION=$(node -p 'require("./package.json").version')

step "pack"
tarball=$(npm pack --silent --pack-destination "$WORK" 2>/dev/null | tail -n 1)
[ -f "$WORK/$tarball" ] || fail "npm pack wrote no tarball"
took "pack ($tarball, $(du -k "$WORK/$tarball" | cut -f1) KiB)"
# A clone's own runs and keys never ship: reports/out/, databases, *.pem.
leaked=$(tar tzf "$WORK/$tarball" | grep -E '^package/(reports/out/|.*\.(db|db-wal|db-shm|pem)$)' || true)
[ -z "$leaked" ] || fail "the tarball carries files of local runs or keys: $leaked"
# Nor the kill matrix's faults: the shipped server cannot be broken.
faulty=$(tar tzf "$WORK/$tarball" | grep -E '^package/(faults/|cli/sensitivity)' || true)
[ -z "$faulty" ] || fail "the tarball carries the kill matrix's faults: $faulty"

step "install into an empty directory"
USER_DIR="$WORK/user"
mkdir "$USER_DIR"
cd "$USER_DIR"
echo '{ "name": "conformance-user", "private": true }' >package.json
expect_exit 0 npm install --prefer-offline --no-audit --no-fund "$WORK/$tarball"
took "install"
PKG="$USER_DIR/node_modules/messaging-conformance"
BIN="$USER_DIR/node_modules/.bin/messaging-conformance"
[ -x "$BIN" ] || fail "the install put no messaging-conformance command in node_modules/.bin"
for d in spec suites harness generators reports reference cli; do [ -d "$PKG/$d" ] || fail "the tarball lacks $d/"; done
[ -f "$PKG/playwright.config.ts" ] || fail "the tarball lacks playwright.config.ts"
touch "$WORK/installed"

expect_exit 0 npx --no-install messaging-conformance --help
grep -q '^  certify' "$WORK/last.log" || fail "--help does not list certify"
expect_exit 2 npx --no-install messaging-conformance no-such-command
grep -q 'unknown command' "$WORK/last.log" || fail "an unknown command is not named as such"

step "the installed command knows it is installed: help, version"
expect_exit 0 npx --no-install messaging-conformance certify --help
grep -q '^Usage: messaging-conformance certify \[options\]' "$WORK/last.log" || fail "certify --help does not show the installed usage"
grep -q '(default ./conformance-report)' "$WORK/last.log" || fail "certify --help does not name ./conformance-report as the default report folder"
! grep -q 'npm run' "$WORK/last.log" || fail "certify --help shows the clone's npm run commands: $(grep 'npm run' "$WORK/last.log" | head -n 1)"
for args in "--version" "certify --version"; do
  # shellcheck disable=SC2086
  expect_exit 0 npx --no-install messaging-conformance $args
  [ "$(cat "$WORK/last.log")" = "messaging-conformance $VERSION" ] || fail "messaging-conformance $args printed: $(head -c 200 "$WORK/last.log")"
done

step "the installed dry run lists what the clone's does, at the same file:line"
expect_exit 0 npx --no-install messaging-conformance certify --dry-run
took "dry run (installed)"
head -n 1 "$WORK/last.log" | grep -q '^certify: no --config, and no conformance.yaml, conformance.yml, conformance.json in .*: certifying the bundled reference server$' \
  || fail "the first line does not say the bundled reference is certified: $(head -n 1 "$WORK/last.log")"
# every line but the first (the directory) and the ones naming the reference's port
same() { grep -v -E '^certify: |127\.0\.0\.1:[0-9]+' "$1"; }
if ! diff <(same "$WORK/dry-clone.txt") <(same "$WORK/last.log") >"$WORK/dry.diff"; then
  head -n 20 "$WORK/dry.diff" >&2
  fail "the installed dry run differs from the clone's (above: < clone, > installed)"
fi
grep -q '^Number settings: [1-9][0-9]* tests change' "$WORK/last.log" || fail "the installed dry run counts no settings changes: $(grep '^Number settings' "$WORK/last.log")"
echo "check-package: $(grep -o '^Number settings: [0-9]* tests' "$WORK/last.log") in both, every test at the clone's file:line"

step "certify the bundled reference from the user's directory"
expect_exit 0 npx --no-install messaging-conformance certify
took "certify (bundled reference)"
summary | grep -q '^CONFORMANT' || fail "the bundled reference is not CONFORMANT: $(summary)"
expect_reports "$USER_DIR/conformance-report"
echo "check-package: $(summary)"

step "certify a target given by a config file"
"$BIN" serve --port 0 --fresh --db "$WORK/target.db" --log-level warn --allow-webhook-host 127.0.0.1 --fixtures-out "$WORK/target.json" >"$WORK/serve.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 100); do [ -s "$WORK/target.json" ] && break; sleep 0.2; done
[ -s "$WORK/target.json" ] || { cat "$WORK/serve.log" >&2; fail "the reference started by serve wrote no fixtures file"; }
# A config as a user writes it: the secrets come from the environment.
node -e '
  const t = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const c = (role) => t.clients.find((x) => x.role === role);
  process.stdout.write(`label: packaged target\nbaseUrl: ${t.baseUrl}\nclients:\n  primary: { clientId: "${c("primary").clientId}", clientSecret: "\${TARGET_SECRET}" }\n`);
  require("fs").writeFileSync(process.argv[2], c("primary").clientSecret);
' "$WORK/target.json" "$WORK/secret" >"$USER_DIR/target.yaml"
expect_exit 0 env TARGET_SECRET="$(cat "$WORK/secret")" npx --no-install messaging-conformance certify --config target.yaml --grep @SEND-00 --out vendor-report
took "certify (config target, @SEND-00*)"
summary | grep -q '^PARTIAL' || fail "a --grep run is not reported partial: $(summary)"
expect_reports "$USER_DIR/vendor-report"
echo "check-package: $(summary)"
expect_exit 2 npx --no-install messaging-conformance certify --config absent.yaml
grep -q 'absent.yaml: no such file' "$WORK/last.log" || fail "a missing config is not named"
expect_exit 2 env TARGET_SECRET=wrong npx --no-install messaging-conformance certify --config target.yaml --grep @SEND-004 --out wrong-secret

step "a failure's stack points at the line of the .ts source"
# The faulty target is the clone's (the package ships no faults); the harness is the installed one.
expect_exit 2 timeout 60 "$BIN" serve --port 0 --fresh --db "$WORK/faulty.db" --faults auth.malformed-bearer-500
(cd "$HARNESS" && exec node --import tsx faults/main.ts --faults auth.malformed-bearer-500 --port 0 --fresh --db "$WORK/faulty.db" --log-level warn --fixtures-out "$WORK/faulty.json") >"$WORK/faulty-serve.log" 2>&1 &
FAULTY_PID=$!
for _ in $(seq 1 100); do [ -s "$WORK/faulty.json" ] && break; sleep 0.2; done
[ -s "$WORK/faulty.json" ] || { kill "$FAULTY_PID"; cat "$WORK/faulty-serve.log" >&2; fail "the faulty reference wrote no fixtures file"; }
node -e '
  const t = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const c = t.clients.find((x) => x.role === "primary");
  process.stdout.write(`label: faulty\nbaseUrl: ${t.baseUrl}\nprofile: reference\nclients:\n  primary: { clientId: "${c.clientId}", clientSecret: "${c.clientSecret}" }\n`);
' "$WORK/faulty.json" >"$USER_DIR/faulty.yaml"
expect_exit 1 npx --no-install messaging-conformance certify --config faulty.yaml --grep @AUTH-002 --max-failures 1 --out faulty-report
kill "$FAULTY_PID"
FAULTY_PID=
took "certify (a faulty target, @AUTH-002, to its first failure)"
grep -q "suites/bearer/bearer.spec.ts:$AUTH002_LINE:[0-9]" "$WORK/last.log" || fail "no stack frame at suites/bearer/bearer.spec.ts:$AUTH002_LINE, the line of the failing check"
! grep -q -E '\.spec\.ts:1:[0-9]{3,}' "$WORK/last.log" || fail "stack frames point into compiled code: $(grep -o -E '[a-z./-]+\.spec\.ts:1:[0-9]{3,}' "$WORK/last.log" | head -n 1)"
grep -q '^fail: AUTH-002 .*\[report\.html#AUTH-002\]$' "$WORK/last.log" || fail "the run does not end with the failed requirement and its anchor"
echo "check-package: failures point at suites/bearer/bearer.spec.ts:$AUTH002_LINE"

step "init against the same target, then certify with the config it wrote"
credentials=$(node -e '
  const t = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  for (const role of ["primary", "secondary"]) { const c = t.clients.find((x) => x.role === role); console.log(`CONFORMANCE_${role.toUpperCase()}_CLIENT_ID=${c.clientId}`, `CONFORMANCE_${role.toUpperCase()}_CLIENT_SECRET=${c.clientSecret}`); }
' "$WORK/target.json")
# shellcheck disable=SC2086
expect_exit 0 env $credentials npx --no-install messaging-conformance init --base-url "$(node -p 'require(process.argv[1]).baseUrl' "$WORK/target.json")"
took "init"
[ -s "$USER_DIR/conformance.yaml" ] || fail "init wrote no conformance.yaml"
grep -q 'next: messaging-conformance certify --config conformance.yaml' "$WORK/last.log" || fail "init does not print the next command"
grep -q '^#   expireToken:' "$USER_DIR/conformance.yaml" || fail "init wrote no commented trigger stubs"
grep -q '# webhookSecret: ' "$USER_DIR/conformance.yaml" || fail "init wrote no webhook secret stub"
step "certify with the config init wrote, found without --config"
# shellcheck disable=SC2086
expect_exit 0 env $credentials npx --no-install messaging-conformance certify --out init-report
took "certify (init's config)"
head -n 1 "$WORK/last.log" | grep -q "^certify: using $USER_DIR/conformance.yaml " || fail "certify without --config did not use ./conformance.yaml: $(head -n 1 "$WORK/last.log")"
summary | grep -q '^CONFORMANT' || fail "the reference is not CONFORMANT with init's config: $(summary)"
echo "check-package: $(summary)"
kill "$SERVER_PID"
SERVER_PID=

# Nothing of a run may land inside the installed package.
written=$(find "$PKG" -newer "$WORK/installed" -not -path '*/node_modules/*' | head -n 5)
[ -z "$written" ] || fail "runs wrote into the installed package: $written"

echo "check-package: OK (harness at $HARNESS)"
