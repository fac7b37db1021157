#!/usr/bin/env bash
# The web side, against the built handyd: the JavaScript client's tests under node (a real
# WebSocket to a real daemon), then the demo app (examples/web/) in Debian's chromium driven by
# Playwright. Screenshots: .build/artefacts/web-demo/. scripts/test.sh runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-$(swift build --show-bin-path)}
has_websocket='process.exit(typeof WebSocket === "function" ? 0 : 1)'
flags=()
# node 22 has a WebSocket; node 20 behind a flag; older nodes use the ws package (the tests fall back).
if ! node -e "$has_websocket" && node --experimental-websocket -e "$has_websocket" 2>/dev/null; then
  flags=(--experimental-websocket)
fi
HANDYD_BIN=$BIN node "${flags[@]}" --test clients/js/test/
python3 scripts/web_demo_test.py --bin "$BIN"
