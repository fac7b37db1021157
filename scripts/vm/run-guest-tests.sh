#!/bin/bash
# The kernel-path test suite: builds on the host, then runs in ONE qemu guest (--udev) the
# HandyInputTests bundle with HANDYD_REQUIRE_UINPUT=1 (uinput missing = failure, not a skip),
# plus the daemon-level guest tests when handyd is built. Prints the total time; non-zero on failure.
#
#   scripts/vm/run-guest-tests.sh            # LAB=/var/tmp/handyd-vm (kernel + initramfs cache)
#   SKIP_BUILD=1 scripts/vm/run-guest-tests.sh      # reuse the host build
#   SKIP_SYSTEMD=1 / ONLY_SYSTEMD=1                 # just one of the two guests
#   SKIP_DEB=1                                      # not the third guest (the .deb of make deb)
set -euo pipefail
T0=$(date +%s.%N)
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
export LAB=${LAB:-/var/tmp/handyd-vm}
GUEST_TIMEOUT=${GUEST_TIMEOUT:-600}   # per guest; a normal run needs 70-160 s each
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$(date +%s.%N)"; }

# 1. kernel + initramfs, every run: the kernel is Debian's current one (re-downloaded when a security
#    update changed it), the initramfs is rebuilt from this checkout's mk-initramfs.sh (~1.5 s when
#    $LAB is warm, ~35 s from nothing), so a warm cache takes the same path as a fresh CI machine.
timeout 900 "$HERE/setup.sh"

# 2. host build: the test bundle and the binaries (the guest sees the host's root over 9p)
cd "$ROOT"
if [ -z "${SKIP_BUILD:-}" ]; then
  timeout 1800 swift build --build-tests
fi
BIN=$(swift build --show-bin-path)
BUNDLE="$BIN/handydPackageTests.xctest"
[ -x "$BUNDLE" ] || { echo "run-guest-tests: $BUNDLE missing (build with swift build --build-tests)" >&2; exit 1; }
echo "run-guest-tests: host build ready after $(elapsed "$T0") s"

# 3. one guest: install the rules, run every guest test, report per step
RESULTS=$(mktemp -d /var/tmp/handyd-guest.XXXXXX)   # not under /tmp: see scripts/vm/README.md
trap 'rm -rf "$RESULTS"' EXIT
# A fresh token each run: the guests check it arrived through qemu-run.sh's HANDYD_* passing, so
# HANDYD_GUEST_STRICT and the other switches cannot silently stay behind on the host.
export HANDYD_GUEST_ENV_TOKEN="$$-$RANDOM-$(date +%s%N)"
echo "$HANDYD_GUEST_ENV_TOKEN" > "$RESULTS/env-token"
# A strict run runs every guest: a switch that leaves one out is refused, not obeyed.
if [ "${HANDYD_GUEST_STRICT:-}" = 1 ]; then
  for switch in ONLY_SYSTEMD SKIP_SYSTEMD SKIP_DEB; do
    if [ -n "${!switch:-}" ]; then
      echo "run-guest-tests: $switch is set, but HANDYD_GUEST_STRICT=1 runs every guest (unset it)" >&2
      exit 1
    fi
  done
fi
set +e
rc=0
if [ -z "${ONLY_SYSTEMD:-}" ]; then
"$HERE/qemu-run.sh" --udev --rw "$RESULTS" --timeout "$GUEST_TIMEOUT" -- \
  env ROOT="$ROOT" BIN="$BIN" RESULTS="$RESULTS" /bin/bash "$HERE/guest/in-guest.sh"
rc=$?
echo "run-guest-tests: --udev guest exit status $rc after $(elapsed "$T0") s"
fi
# 4. a second guest with systemd as PID 1: units, socket activation, udev SYSTEMD_WANTS, reload, stop
if [ -z "${SKIP_SYSTEMD:-}" ]; then
  "$HERE/qemu-run.sh" --systemd --rw "$RESULTS" --timeout "$GUEST_TIMEOUT" -- \
    env ROOT="$ROOT" BIN="$BIN" RESULTS="$RESULTS" /bin/bash "$HERE/guest/systemd-guest.sh"
  src=$?
  echo "run-guest-tests: --systemd guest exit status $src"
  [ $src -eq 0 ] || rc=1
fi
# 5. a third guest, systemd again: the .deb of `make deb` installed on a root without the Swift
#    toolchain (hidden), udev start, a pinch with its hand, reload, purge, reinstall. SKIP_DEB=1 skips it.
if [ -z "${SKIP_DEB:-}" ] && [ -z "${ONLY_SYSTEMD:-}" ]; then
  if ls "$ROOT"/.build/deb/handyd_"$(cat "$ROOT/VERSION")"_*.deb >/dev/null 2>&1 || [ "${HANDYD_GUEST_STRICT:-}" = 1 ]; then
    T1=$(date +%s.%N)
    "$HERE/qemu-run.sh" --systemd --rw "$RESULTS" --timeout "$GUEST_TIMEOUT" -- \
      env ROOT="$ROOT" RESULTS="$RESULTS" /bin/bash "$HERE/guest/deb-guest.sh"
    drc=$?
    echo "run-guest-tests: deb guest exit status $drc after $(elapsed "$T1") s"
    [ $drc -eq 0 ] || rc=1
  else
    echo "SKIP deb: no .build/deb/handyd_$(cat "$ROOT/VERSION")_*.deb (make deb)" | tee -a "$RESULTS/summary"
  fi
fi
set -e
echo "run-guest-tests: total $(elapsed "$T0") s"
echo "---- summary"
[ -f "$RESULTS/summary" ] && cat "$RESULTS/summary"
exit $rc
