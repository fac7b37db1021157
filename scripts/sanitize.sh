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

# One run, its output kept. A failure is final, with one exception: the sanitizer's own runtime
# crashing while it handled a signal ("ThreadSanitizer:DEADLYSIGNAL ... nested bug", the process
# gone with no report of ours to read). Seen once in a CI thread run (2026-11-27, under load) and
# not in four full runs after; it names no code of ours and stops every later test. Then the suite
# runs once more and must pass. A report (a race, a use after free: "WARNING:"/"ERROR:" lines of a
# report of the sanitizer's) is never run again: it fails as it is.
out=$(mktemp "${TMPDIR:-/tmp}/sanitize.XXXXXX")
trap 'rm -f "$out"' EXIT
run_suite() {
  set +e
  swift test --skip-build --sanitize="$kind" --scratch-path "$scratch" "$@" 2>&1 | tee "$out"
  local rc=${PIPESTATUS[0]}
  set -e
  return "$rc"
}
runtime_crash() {
  [ "$kind" = thread ] && grep -q 'Sanitizer:DEADLYSIGNAL' "$out" && grep -q 'Sanitizer: nested bug in the same thread' "$out" \
    && ! grep -q '^WARNING: .*Sanitizer:' "$out"
}
if ! run_suite "$@"; then
  runtime_crash || { echo "sanitize.sh: $kind: the test suite failed" >&2; exit 1; }
  echo "sanitize.sh: $kind: the sanitizer's runtime crashed (DEADLYSIGNAL, nested bug, no report): the suite once more" >&2
  run_suite "$@" || { echo "sanitize.sh: $kind: the test suite failed on its second run" >&2; exit 1; }
fi
echo "sanitize.sh: $kind: test suite passed in $(( $(date +%s) - start )) s"
