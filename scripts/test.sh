#!/usr/bin/env bash
# README command 2: installs what is needed, builds, runs every test.
#   scripts/test.sh            host tests, then the qemu guest suite (real kernel, uinput, udev)
#   scripts/test.sh --host     host tests only
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
if [ "$mode" = --host ]; then scripts/install-deps.sh; else scripts/install-deps.sh --vm; fi
start=$(date +%s)
# Each step's time on stderr, so a slow step shows in CI's log (CI has 30 minutes).
timed() {
  local t0; t0=$(date +%s)
  "$@"
  echo "test.sh: [$(( $(date +%s) - t0 )) s] $*" >&2
}
# The code's format (.swift-format; `swift format -i -r Sources Tests Fuzz Package.swift` mends it):
# a change that leaves it unformatted fails here, in about a second.
timed swift format lint --strict --recursive --parallel Sources Tests Fuzz Package.swift
timed swift build --build-tests
timed swift test --skip-build
# README command 1 as a user runs it (no stdin, no terminal): the bundled replay reaches a
# subscriber, with the right- and the left-hand pinch it holds.
timed scripts/demo.sh > .build/demo.out < /dev/null
for hand in right left; do
  grep -q "pinch began .* hand=$hand(" .build/demo.out \
    || { echo "test.sh: scripts/demo.sh showed no $hand-hand pinch:" >&2; cat .build/demo.out >&2; exit 1; }
done
# The benchmark in its short mode, so it keeps building and running (no timing assertions).
timed scripts/bench.sh --short
# Soak in its short mode: 64 clients on a looping replay, RSS/fd flat, identical counts (docs/RELIABILITY.md).
timed scripts/soak.sh --short
# The web side: the JavaScript client (node, real WebSocket, real daemon) and the demo app in
# Debian's chromium through Playwright; screenshots in .build/artefacts/web-demo/.
timed scripts/test-web.sh
# The Python client (clients/python) under pytest: the shared placement cases and properties, and
# its clients against the built handyd replaying the demo (about 15 s).
HANDYD_BIN=$(swift build --show-bin-path) timed python3 -m pytest -q -p no:cacheprovider clients/python/tests
# The Tk example (examples/tk/popover.py) headless under Xvfb against the same handyd: both demo
# pinches' popovers on the clear side and out of the region, a screenshot in .build/artefacts/tk-example/
# (about 1 s).
HANDYD_BIN=$(swift build --show-bin-path) timed python3 scripts/tk_example_test.py
# The Qt Quick and GTK 4 kiosk examples (examples/qt, examples/gtk) headless against the same handyd,
# each started before the daemon and kept across a restart; PNGs of their windows in
# .build/artefacts/{qt,gtk}-example/ (scripts/gui_examples_test.py; about 15 s).
HANDYD_BIN=$(swift build --show-bin-path) timed python3 scripts/gui_examples_test.py
# Fleets (docs/FLEET.md): Debian's Prometheus scrapes a real handyd replaying a stuck contact and a
# pinch; the series arrive through Prometheus's API, promtool accepts the text and the alert rules
# (about 11 s).
HANDYD_BIN=$(swift build --show-bin-path) timed python3 scripts/prometheus_proof.py
# Data races: the host suite again under ThreadSanitizer (own scratch path .build-tsan). Three hostile-
# client tests (a 1 MiB line, a Unix and a WebSocket client that never reads) time the daemon's
# reaction to a flood and are too slow to judge in a sanitized build.
# The handedness evaluations on the family and on real recordings are single-threaded arithmetic
# (nothing for the race detector to see) and take minutes sanitized: the plain run has them.
timed scripts/sanitize.sh thread --skip 'aMebibyteLineWithoutNewline|aClientThatNeverReads\(|aWebClientThatNeverReads\(|aHandyClientWhoseConsumerStalls|HandednessSensitivityTests|HandednessEvaluationTests|RealHandsTests'
# The libFuzzer harnesses keep building and running (30 s each, two at once on CI's two cores;
# docs/RELIABILITY.md).
FUZZ_JOBS=2 timed scripts/fuzz.sh --short
if [ "$mode" != --host ]; then
  # The kiosk package (Swift runtime linked statically, lintian), installed by the guest suite's
  # third guest on a root without the Swift toolchain.
  timed make deb
  # Real kernel: uinput devices, udev rules, systemd units, in qemu guests. Strict: a check that
  # cannot run (no tracker, no recognizers, no uinput) is a failure, not a skip.
  SKIP_BUILD=1 HANDYD_GUEST_STRICT=1 timed scripts/vm/run-guest-tests.sh
fi
echo "test.sh: all done in $(( $(date +%s) - start )) s"
