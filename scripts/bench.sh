#!/usr/bin/env bash
# Benchmarks (docs/PERFORMANCE.md): a release build of handyd-bench, then its table and JSON lines.
#   scripts/bench.sh            full run (~25 min: figure 4 streams 1 M frames to 64 subscribers)
#   scripts/bench.sh --short    a few hundred ms per figure; CI runs this so the benchmark keeps
#                               building and running (no timing assertions)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product handyd-bench
# Figures 3 and 4 run the real daemon as a kiosk gets it: the Debian package's build (static Swift
# runtime, the flags in scripts/static-build-flags, the same scratch folder as `make deb`, which
# then reuses it).
# shellcheck disable=SC2046
swift build $(cat scripts/static-build-flags) --scratch-path .build/static --product handyd
# Named explicitly, so figures 3 and 4 fail (exit 1) rather than skip if it is missing; handyd-bench
# exits 1 when any figure could not be measured.
bin=$(swift build -c release --show-bin-path)
# shellcheck disable=SC2046
daemon=$(swift build $(cat scripts/static-build-flags) --scratch-path .build/static --show-bin-path)/handyd
"$bin/handyd-bench" --handyd "$daemon" "$@"
