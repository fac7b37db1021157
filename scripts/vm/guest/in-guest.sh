#!/bin/bash
# Runs INSIDE the qemu guest (qemu-run.sh --udev): root, systemd-udevd running, /dev/uinput.
# Env from run-guest-tests.sh: ROOT (repo), BIN (swift build bin path), RESULTS (rw share).
set -uo pipefail
cd "$ROOT"
fail=0
uptime_s() { cut -d' ' -f1 /proc/uptime; }
echo "guest: tests start at uptime $(uptime_s) s"
step() {  # step NAME TIMEOUT CMD...: run with a timeout, record pass/fail and time
  local name=$1 limit=$2; shift 2
  local t0; t0=$(date +%s.%N)
  echo "=== guest: $name"
  timeout --kill-after=5 "$limit" "$@"
  local rc=$?
  local dt; dt=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t0" "$(date +%s.%N)")
  if [ $rc -eq 0 ]; then echo "PASS $name (${dt} s)" | tee -a "$RESULTS/summary"
  else echo "FAIL $name: exit $rc (${dt} s)" | tee -a "$RESULTS/summary"; fail=1; fi
}

# The project's rule plus test-only rules (ignored / configured devices by name).
install -m 644 udev/70-handyd.rules scripts/vm/99-handyd-test.rules /etc/udev/rules.d/
udevadm control --reload
echo "guest: rules installed at uptime $(uptime_s) s"

step HandyInputTests 120 env HANDYD_REQUIRE_UINPUT=1 HANDYD_TEST_RULES=1 \
  "$BIN/handydPackageTests.xctest" --testing-library swift-testing --filter HandyInputTests

if [ -x "$BIN/handyd" ] && "$BIN/handyd" --help 2>&1 | grep -q -- --socket; then
  step daemon-guest-tests 240 python3 scripts/vm/guest/handyd_guest.py --bin "$BIN"
  step record-replay-round-trip 180 python3 scripts/vm/guest/record_guest.py --bin "$BIN"
  # Figures 3 and 5 of docs/PERFORMANCE.md (no timing assertions; HANDYD_PERF_FULL=1 for the full run).
  step perf-libinput-idle 120 python3 scripts/vm/guest/perf_guest.py --bin "$BIN"
  step misbehaving-devices 420 python3 scripts/vm/guest/misbehaving_guest.py --bin "$BIN"
else
  echo "SKIP daemon guest tests: $BIN/handyd has no --socket yet" | tee -a "$RESULTS/summary"
fi
echo "guest: tests done at uptime $(uptime_s) s"
exit $fail
