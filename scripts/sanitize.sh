#!/usr/bin/env bash
# The host test suite under a sanitizer (docs/RELIABILITY.md "Sanitizers").
#
#   scripts/sanitize.sh thread             ThreadSanitizer  (scratch path .build-tsan)
#   scripts/sanitize.sh address            AddressSanitizer (scratch path .build-asan)
#   scripts/sanitize.sh thread --filter X  only the tests matching X
#
# Each sanitizer builds into its own scratch path, so the normal .build is untouched. The daemon
# tests run the handyd binary of the same scratch path (sanitized too): the harness finds it beside
# the test bundle, and HANDYD_BINARY is set here so there is no doubt. A sanitizer report fails
# the run (halt_on_error), it does not just print.
set -euo pipefail
cd "$(dirname "$0")/.."

kind=${1:-thread}
shift || true
case "$kind" in
  thread) scratch=.build-tsan ;;
  address) scratch=.build-asan ;;
  *) echo "usage: scripts/sanitize.sh thread|address [swift test options]" >&2; exit 2 ;;
esac

start=$(date +%s)
swift build --build-tests --sanitize="$kind" --scratch-path "$scratch"
bin=$(swift build --sanitize="$kind" --scratch-path "$scratch" --show-bin-path)
export HANDYD_BINARY=$bin/handyd
# Tests that bound the daemon's RSS allow for the sanitizer's shadow memory.
export HANDYD_SANITIZER=$kind
# The handyctl tests look beside the test bundle, which is this scratch path's bin folder.

# Foundation and the Swift runtime are not built with the sanitizer; these options keep the reports
# to our code and make any report fatal.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
# Leak checking is off: the Swift runtime's metadata caches and Foundation's singletons are
# "leaked" by design at exit and would drown real reports.
export ASAN_OPTIONS="halt_on_error=1 detect_leaks=0 ${ASAN_OPTIONS:-}"

swift test --skip-build --sanitize="$kind" --scratch-path "$scratch" "$@"
echo "sanitize.sh: $kind: test suite passed in $(( $(date +%s) - start )) s"
