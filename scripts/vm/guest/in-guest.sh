#!/bin/bash
# Runs INSIDE the qemu guest (qemu-run.sh --udev): root, systemd-udevd running, /dev/uinput.
# Env from run-guest-tests.sh: ROOT (repo), BIN (swift build bin path: the test bundle), DAEMON_BIN
# (handyd and handyctl for the daemon-level tests; default BIN), RESULTS (rw share); every
# HANDYD_* variable of the host (qemu-run.sh passes them), HANDYD_GUEST_ENV_TOKEN among them.
set -uo pipefail
cd "$ROOT"
DAEMON_BIN=${DAEMON_BIN:-$BIN}
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

# xctest NAME TIMEOUT FILTER [ENV=VALUE...]: a Swift Testing run in the guest. Under
# HANDYD_GUEST_STRICT=1 a skipped test is a failure too (each suite here is gated on what the guest
# has: uinput, udevd, root), except the one that checks the error where uinput is missing.
xctest() {
  local name=$1 limit=$2 filter=$3; shift 3
  local out="$RESULTS/$name.log"
  step "$name" "$limit" bash -c 'filter=$0 out=$1; shift
    env "$@" "$BIN/handydPackageTests.xctest" --testing-library swift-testing --filter "$filter" 2>&1 | tee "$out"
    exit "${PIPESTATUS[0]}"' "$filter" "$out" "$@"
  local skipped; skipped=$(grep -E '(Test|Suite) .* skipped' "$out" || true)
  if [ -n "$skipped" ]; then
    if [ "${HANDYD_GUEST_STRICT:-}" = 1 ]; then
      echo "FAIL $name: tests skipped under HANDYD_GUEST_STRICT=1: $skipped" | tee -a "$RESULTS/summary"; fail=1
    else
      echo "SKIP $name: $skipped" | tee -a "$RESULTS/summary"
    fi
  fi
}

# The host's switches reached the guest (a strict run that silently ran lenient was a past bug).
step environment-reached-guest 5 test "${HANDYD_GUEST_ENV_TOKEN:-missing}" = "$(cat "$RESULTS/env-token")"

# The project's rule plus test-only rules (ignored / configured devices by name).
install -m 644 udev/70-handyd.rules udev/90-handyd-systemd.rules scripts/vm/99-handyd-test.rules /etc/udev/rules.d/
udevadm control --reload
echo "guest: rules installed at uptime $(uptime_s) s"

xctest HandyInputTests 120 HandyInputTests HANDYD_REQUIRE_UINPUT=1 HANDYD_TEST_RULES=1
# Who may connect (socket mode, group): needs root, which the guest has and a CI host may not.
xctest AccessTests 180 AccessTests HANDYD_REQUIRE_ROOT=1
step daemon-guest-tests 330 python3 scripts/vm/guest/handyd_guest.py --bin "$DAEMON_BIN"
# handyctl actions: swipes through uinput -> a command and a chord read back from the virtual keyboard.
# /usr/bin/python3: Debian's python3-libevdev (scripts/vm/setup.sh) belongs to the system interpreter.
step actions-guest 180 /usr/bin/python3 scripts/vm/guest/actions_guest.py --bin "$DAEMON_BIN"
step record-replay-round-trip 180 python3 scripts/vm/guest/record_guest.py --bin "$DAEMON_BIN"
# Figures 3 and 5 of docs/PERFORMANCE.md (no timing assertions; HANDYD_PERF_FULL=1 for the full run).
step perf-libinput-idle 120 python3 scripts/vm/guest/perf_guest.py --bin "$DAEMON_BIN"
step misbehaving-devices 420 python3 scripts/vm/guest/misbehaving_guest.py --bin "$DAEMON_BIN"
# Hovering fingers (issue 55): a real Win8 panel's report descriptor through uhid, so the kernel's
# hid-multitouch makes the evdev stream (ABS_MT_DISTANCE 1 then 0 on one tracking id) handyd reads.
step hover-through-hid-multitouch 180 /usr/bin/python3 scripts/vm/guest/hover_guest.py --bin "$DAEMON_BIN"
echo "guest: tests done at uptime $(uptime_s) s"
exit $fail
