#!/usr/bin/env bash
# Benchmarks (docs/PERFORMANCE.md): the package's release build of handyd-bench and handyd, then the
# table and JSON lines.
#   scripts/bench.sh            full run (~25 min: figure 4 streams 1 M frames to 64 subscribers)
#   scripts/bench.sh --short    a few hundred ms per figure; CI runs this so the benchmark keeps
#                               building and running (no timing assertions)
#   SKIP_BUILD=1 scripts/bench.sh   run on the last build (scripts/test.sh builds first, then runs
#                                   the bench beside its replay checks)
set -euo pipefail
cd "$(dirname "$0")/.."
# One release build for everything: handyd-bench, and the daemon that figures 3 and 4 run as a kiosk
# gets it, are both built as the Debian package's build (static Swift runtime, the flags in
# scripts/static-build-flags, the same scratch folder as `make deb`, which then reuses it; soak.sh
# too). So the project compiles its release configuration once, not once per configuration.
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  # shellcheck disable=SC2046
  swift build $(cat scripts/static-build-flags) --scratch-path .build/static --product handyd-bench
  # shellcheck disable=SC2046
  swift build $(cat scripts/static-build-flags) --scratch-path .build/static --product handyd
fi
# Named explicitly, so figures 3 and 4 fail (exit 1) rather than skip if it is missing; handyd-bench
# exits 1 when any figure could not be measured.
# shellcheck disable=SC2046
bin=$(swift build $(cat scripts/static-build-flags) --scratch-path .build/static --show-bin-path)
"$bin/handyd-bench" --handyd "$bin/handyd" "$@"
