#!/usr/bin/env bash
# Installs the browser the report tests drive: Debian's chromium package, driven by
# Playwright through executablePath. Playwright's own browser download cannot be used here
# (no network beyond the npm registry and Debian's packages), so we never run
# `playwright install`.
#
# Idempotent and quiet: does nothing when /usr/bin/chromium exists; prints one line either way.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  echo "setup-browser: $CHROMIUM present ($("$CHROMIUM" --version 2>/dev/null || echo 'version unknown'))"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  SUDO=sudo
else
  SUDO=
fi

# apt's chatter goes to a log that is shown only when something fails.
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq --no-install-recommends chromium; } >"$LOG" 2>&1; then
  cat "$LOG" >&2
  echo "setup-browser: installing chromium failed" >&2
  exit 1
fi

if [ ! -x "$CHROMIUM" ]; then
  echo "setup-browser: apt-get finished but $CHROMIUM is missing" >&2
  exit 1
fi
echo "setup-browser: installed $("$CHROMIUM" --version 2>/dev/null || echo chromium)"
