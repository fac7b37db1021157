#!/usr/bin/env bash
# README command 1: builds handyd, runs it on a bundled recording replayed as a device (no
# touchscreen needed) and shows what a subscriber receives.
#   scripts/demo.sh [RECORDING]      default: examples/recordings/demo.evemu (one of each gesture)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
recording=${1:-examples/recordings/demo.evemu}
swift build --product handyd
swift build --product handyctl
bin=$(swift build --show-bin-path)
run=$(mktemp -d)
sock=$run/handyd.sock
# The replay starts when the first subscriber is there, so it sees every gesture.
"$bin/handyd" --replay "$recording" --socket "$sock" --wait-clients 1 --log-level warning &
daemon=$!
trap 'kill $daemon 2>/dev/null || true; wait $daemon 2>/dev/null || true; rm -rf "$run"' EXIT
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || { echo "demo: handyd did not create $sock" >&2; exit 1; }
echo "== handyd is replaying $recording as a device; a subscriber (handyctl monitor) prints:"
# The bundled demo lasts ~10 s; stop the subscriber a little after.
rc=0
timeout --foreground "${DEMO_SECONDS:-13}" "$bin/handyctl" monitor --socket "$sock" | tee "$run/seen" || rc=$?
# 124: the timeout stopped the subscriber, as meant; any other failure is handyctl's (or tee's).
[ "$rc" = 0 ] || [ "$rc" = 124 ] || { echo "demo: handyctl monitor failed (exit $rc)" >&2; exit 1; }
echo "== raw protocol: one line of JSON per event (socat - UNIX-CONNECT:$sock shows the same)"
grep -q . "$run/seen" || { echo "demo: the subscriber received nothing" >&2; exit 1; }
# handyd is still up after the replay and stops cleanly on SIGTERM, as under systemd.
kill -0 "$daemon" 2>/dev/null || { echo "demo: handyd is gone before the end" >&2; exit 1; }
kill -TERM "$daemon"
rc=0
wait "$daemon" || rc=$?
[ "$rc" = 0 ] || { echo "demo: handyd exited with $rc on SIGTERM" >&2; exit 1; }
