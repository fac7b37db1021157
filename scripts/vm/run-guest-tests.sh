#!/bin/bash
# The kernel-path test suite: builds on the host, then runs in a qemu guest (--udev) the
# HandyInputTests bundle with HANDYD_REQUIRE_UINPUT=1 (uinput missing = failure, not a skip),
# plus the daemon-level guest tests when handyd is built; then, in a second guest (systemd as PID 1),
# the systemd checks and the package checks, one after the other in the same boot. Two boots.
# Prints the total time; non-zero on failure.
#
#   scripts/vm/run-guest-tests.sh            # LAB=/var/tmp/handyd-vm (kernel + initramfs cache)
#   SKIP_BUILD=1 scripts/vm/run-guest-tests.sh      # reuse the host build
#   SKIP_SYSTEMD=1 / ONLY_SYSTEMD=1                 # not the systemd checks / only them
#   SKIP_DEB=1                                      # not the package checks (the .deb of make deb)
#   GUEST_PART=udev / GUEST_PART=systemd-deb        # one of the two boots (scripts/test.sh runs
#                                                   # both: the first beside its CPU-bound steps)
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
# The daemon-level checks (the Python guest tests, the systemd checks) run handyd and handyctl of
# DAEMON_BIN (default: $BIN, the debug build). scripts/test.sh (CI) passes the package's build,
# .build/static/release: what a kiosk runs, and far cheaper under TCG (scripts/vm/README.md).
DAEMON_BIN=${DAEMON_BIN:-$BIN}
for b in handyd handyctl; do
  [ -x "$DAEMON_BIN/$b" ] || { echo "run-guest-tests: $DAEMON_BIN/$b missing" >&2; exit 1; }
done
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
GUEST_PART=${GUEST_PART:-all}
case "$GUEST_PART" in
  all|udev|systemd-deb) ;;
  *) echo "run-guest-tests: GUEST_PART is '$GUEST_PART' (all, udev or systemd-deb)" >&2; exit 2;;
esac
# A strict run with GUEST_PART runs one boot of the two; its caller runs the other (scripts/test.sh
# does, and its step table names both), so the part is said, not silent.
[ "$GUEST_PART" = all ] || echo "run-guest-tests: GUEST_PART=$GUEST_PART: this run boots only that guest"
set +e
rc=0
if [ -z "${ONLY_SYSTEMD:-}" ] && [ "$GUEST_PART" != systemd-deb ]; then
"$HERE/qemu-run.sh" --udev --rw "$RESULTS" --timeout "$GUEST_TIMEOUT" -- \
  env ROOT="$ROOT" BIN="$BIN" DAEMON_BIN="$DAEMON_BIN" RESULTS="$RESULTS" /bin/bash "$HERE/guest/in-guest.sh"
rc=$?
echo "run-guest-tests: --udev guest exit status $rc after $(elapsed "$T0") s"
fi
# 4. a second guest with systemd as PID 1, one boot for two sets of checks (systemd-then-deb.sh):
#    first the checkout's build installed with make install-files (systemd-guest.sh: units, socket
#    activation, udev SYSTEMD_WANTS, reload, stop, actions, watchdog), then, that install taken away,
#    the .deb of `make deb` on a root without the Swift toolchain (deb-guest.sh: udev start, a pinch
#    with its hand, reload, purge, reinstall). SKIP_SYSTEMD=1 / SKIP_DEB=1 leave one set out.
parts=
[ -z "${SKIP_SYSTEMD:-}" ] && [ "$GUEST_PART" != udev ] && parts=systemd
if [ -z "${SKIP_DEB:-}" ] && [ -z "${ONLY_SYSTEMD:-}" ] && [ "$GUEST_PART" != udev ]; then
  if ls "$ROOT"/.build/deb/handyd_"$(cat "$ROOT/VERSION")"_*.deb >/dev/null 2>&1 || [ "${HANDYD_GUEST_STRICT:-}" = 1 ]; then
    parts="$parts deb"
  else
    echo "SKIP deb: no .build/deb/handyd_$(cat "$ROOT/VERSION")_*.deb (make deb)" | tee -a "$RESULTS/summary"
  fi
fi
if [ -n "$parts" ]; then
  T1=$(date +%s.%N)
  # Two guests' work in one boot: twice the per-guest limit.
  "$HERE/qemu-run.sh" --systemd --rw "$RESULTS" --timeout $(( 2 * GUEST_TIMEOUT )) -- \
    env ROOT="$ROOT" BIN="$DAEMON_BIN" RESULTS="$RESULTS" PARTS="$parts" /bin/bash "$HERE/guest/systemd-then-deb.sh"
  src=$?
  echo "run-guest-tests: --systemd guest ($parts) exit status $src after $(elapsed "$T1") s"
  [ $src -eq 0 ] || rc=1
fi
set -e
echo "run-guest-tests: total $(elapsed "$T0") s"
echo "---- summary"
[ -f "$RESULTS/summary" ] && cat "$RESULTS/summary"
exit $rc
