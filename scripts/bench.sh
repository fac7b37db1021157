#!/usr/bin/env bash
# Benchmarks (docs/PERFORMANCE.md): a release build of handyd-bench, then its table and JSON lines.
#   scripts/bench.sh            full run (~2 min)
#   scripts/bench.sh --short    a few hundred ms per figure; CI runs this so the benchmark keeps
#                               building and running (no timing assertions)
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product handyd-bench
"$(swift build -c release --show-bin-path)/handyd-bench" "$@"
