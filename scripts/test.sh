#!/usr/bin/env bash
# README command 2: installs what is needed, builds, runs every test.
#   scripts/test.sh            host tests, then the qemu guest suite (real kernel, uinput, udev)
#   scripts/test.sh --host     host tests only
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
if [ "$mode" = --host ]; then scripts/install-deps.sh; else scripts/install-deps.sh --vm; fi
start=$(date +%s)
# Each step's time: on stderr as it ends, so a slow step shows in CI's log, and in a table at the end
# (also when a step fails: the table then ends with that step, marked FAILED).
steps=()
timed() {
  local t0 rc=0; t0=$(date +%s)
  "$@" || rc=$?
  steps+=("$(( $(date +%s) - t0 ))|$([ $rc -eq 0 ] || echo 'FAILED ')$*")
  echo "test.sh: [$(( $(date +%s) - t0 )) s] $*" >&2
  return $rc
}
table() {
  local rc=$? row
  {
    echo "test.sh: step times (s)"
    for row in "${steps[@]}"; do printf '%6s  %s\n' "${row%%|*}" "$(cut -c1-100 <<<"${row#*|}")"; done
    printf '%6s  %s\n' "$(( $(date +%s) - start ))" "total$([ $rc -eq 0 ] || echo ", FAILED (exit $rc)")"
  } >&2
}
# Steps in the background (the release build beside the host suite, the two guests beside the
# CPU-bound steps): each in its own process group (setsid), its output in .build/<name>.log, shown
# when it is waited for (bg_wait), its row in the table its own time from start to end. A
# foreground step that fails ends the run and stops them (their logs so far stay in .build/).
declare -A bg_pid=() bg_t0=()
bg_start() {
  local name=$1; shift
  bg_t0[$name]=$(date +%s)
  rm -f ".build/$name.end"
  # shellcheck disable=SC2016
  setsid -w bash -c '"${@:2}"; rc=$?; date +%s > "$1"; exit $rc' _ ".build/$name.end" "$@" > ".build/$name.log" 2>&1 &
  bg_pid[$name]=$!
  echo "test.sh: [background] $name started: $*" >&2
}
bg_wait() {
  local name=$1 rc=0 t0 end; t0=$(date +%s)
  wait "${bg_pid[$name]}" || rc=$?
  unset "bg_pid[$name]"
  echo "==== $name (.build/$name.log): exit $rc"
  cat ".build/$name.log"
  end=$(cat ".build/$name.end" 2>/dev/null || date +%s)
  local row="$name (background, .build/$name.log; waited for it $(( $(date +%s) - t0 )) s)"
  steps+=("$(( end - bg_t0[$name] ))|$([ $rc -eq 0 ] || echo 'FAILED ')$row")
  echo "test.sh: [$(( end - bg_t0[$name] )) s, background] $name" >&2
  [ $rc -eq 0 ] || echo "test.sh: $name FAILED (exit $rc)" >&2
  return $rc
}
stop_bg() {
  local name
  for name in "${!bg_pid[@]}"; do
    kill -- -"${bg_pid[$name]}" 2>/dev/null || true
    echo "test.sh: stopped $name (its output so far: .build/$name.log)" >&2
  done
}
trap 'table; stop_bg' EXIT
# The guests' kernel and initramfs (scripts/vm/setup.sh: Debian's kernel downloaded and unpacked,
# the initramfs made, ~35 s from nothing) while the first build compiles: it is mostly download and
# unpacking. The guest step waits for it (and runs setup.sh again, ~1.5 s on a warm cache).
if [ "$mode" != --host ]; then
  mkdir -p .build
  LAB=${LAB:-/var/tmp/handyd-vm} timeout 900 scripts/vm/setup.sh > .build/vm-setup.log 2>&1 & vm_setup=$!
fi
# The code's format (.swift-format; `swift format -i -r Sources Tests Fuzz Package.swift` mends it):
# a change that leaves it unformatted fails here, in about a second.
timed swift format lint --strict --recursive --parallel Sources Tests Fuzz Package.swift
timed swift build --build-tests
# The one release build (scripts/static-build-flags, .build/static): the benchmark, the package's
# handyd and handyctl. The bench (short mode below, among the replay checks), the soak's daemon,
# `make deb` and the guests' daemon-level checks all use it. It compiles in the background while
# the host suite runs: the suite waits on its daemons and sockets more than it computes (126-129
# CPU s in 376-625 s runs under load; 170 s on a quiet machine), the build computes (412 CPU s from
# nothing under load; ~155 s alone on a quiet machine), and its own scratch path (.build/static)
# leaves the tested debug build alone. The host suite passed beside it, flood tests included.
static_build() {
  local product
  for product in handyd-bench handyd handyctl; do
    # shellcheck disable=SC2046
    swift build $(cat scripts/static-build-flags) --scratch-path .build/static --product "$product" || return 1
  done
}
export -f static_build
bg_start static-build bash -c static_build
timed swift test --skip-build
bg_wait static-build
# shellcheck disable=SC2046
static_bin=$(swift build $(cat scripts/static-build-flags) --scratch-path .build/static --show-bin-path)
debug_bin=$(swift build --show-bin-path)
# The web side: the JavaScript client (node, real WebSocket, real daemon) and the demo app in
# Debian's chromium through Playwright; screenshots in .build/artefacts/web-demo/. Alone: chromium
# needs the CPU (its double-tap and glide checks read the page's animation, which a starved
# chromium draws late; it failed once when it shared the machine with the checks below).
timed scripts/test-web.sh
# The Qt Quick and GTK 4 kiosk examples (examples/qt, examples/gtk) headless against the same handyd,
# each started before the daemon and kept across a restart; PNGs of their windows in
# .build/artefacts/{qt,gtk}-example/ (scripts/gui_examples_test.py; about 15 s). Alone, like the web
# test: they draw, and their checks read what they drew.
HANDYD_BIN=$debug_bin timed python3 scripts/gui_examples_test.py
# The checks that run a real handyd replaying a recording at its own pace, each with its own socket,
# port and temporary folder: they mostly wait (the demo 13 s, the soak 30 s with a few seconds of
# CPU), so they run at the same time, each's output kept and shown, any one failing fails the step.
#  - demo: README command 1 as a user runs it (no stdin, no terminal): the bundled replay reaches a
#    subscriber, with the right- and the left-hand pinch it holds.
#  - soak: short mode, 64 clients on a looping replay, RSS/fd flat, identical counts
#    (docs/RELIABILITY.md), against the package's daemon.
#  - pytest: the Python client (clients/python): the shared placement cases and properties, and its
#    clients against the built handyd replaying the demo.
#  - tk: the Tk example (examples/tk/popover.py) headless under Xvfb against the same handyd: both
#    demo pinches' popovers on the clear side and out of the region, a screenshot in
#    .build/artefacts/tk-example/.
#  - prometheus: fleets (docs/FLEET.md): Debian's Prometheus scrapes a real handyd replaying a stuck
#    contact and a pinch; the series arrive through Prometheus's API, promtool accepts the text and
#    the alert rules.
#  - bench: the benchmark in its short mode (scripts/bench.sh --short on the release build above),
#    so it keeps building and running; no timing assertions (a figure that cannot be measured
#    fails it). It too mostly waits on its daemons: 26 s, 5 CPU s.
demo_check() {
  scripts/demo.sh > .build/demo.out < /dev/null || return 1
  local hand
  for hand in right left; do
    grep -q "pinch began .* hand=$hand(" .build/demo.out \
      || { echo "test.sh: scripts/demo.sh showed no $hand-hand pinch:"; cat .build/demo.out; return 1; }
  done
  echo "test.sh: the demo showed the right- and the left-hand pinch"
}
replays() {
  local dir; dir=$(mktemp -d "${TMPDIR:-/tmp}/handyd-replays.XXXXXX")
  local -A pid=()
  local name rc=0 t0; t0=$(date +%s)
  start_one() {
    name=$1; shift
    { "$@"; echo $? > "$dir/$name.rc"; date +%s > "$dir/$name.end"; } > "$dir/$name.log" 2>&1 &
    pid[$name]=$!
  }
  start_one demo demo_check
  start_one soak env HANDYD_BINARY="$static_bin/handyd" scripts/soak.sh --short
  start_one pytest env HANDYD_BIN="$debug_bin" python3 -m pytest -q -p no:cacheprovider clients/python/tests
  start_one tk env HANDYD_BIN="$debug_bin" python3 scripts/tk_example_test.py
  start_one prometheus env HANDYD_BIN="$debug_bin" python3 scripts/prometheus_proof.py
  start_one bench env SKIP_BUILD=1 scripts/bench.sh --short
  for name in demo soak pytest tk prometheus bench; do
    wait "${pid[$name]}" || true
    local r; r=$(cat "$dir/$name.rc" 2>/dev/null || echo '?')
    echo "==== $name: exit $r after $(( $(cat "$dir/$name.end" 2>/dev/null || date +%s) - t0 )) s"
    cat "$dir/$name.log"
    [ "$r" = 0 ] || { echo "test.sh: $name FAILED (exit $r)" >&2; rc=1; }
  done
  rm -rf "$dir"
  return $rc
}
# The fuzz step's instrumented modules compile meanwhile (CPU the waiting checks leave idle).
scripts/fuzz.sh --build-only > .build/fuzz-build.log 2>&1 & fuzz_build=$!
timed replays
# ThreadSanitizer's build (its step is below) starts here, in the background: from the replays to
# make deb the machine has CPU to spare (vmstat every 5 s over a CI run: 18-65 % idle), and the
# build is most of that step (351 s of its 540 beside the guests, CI of c5f2adb).
tsan_suites="HandyDaemonTests HandyClientTests handyctlTests HandyActionsTests HandyInputTests HandyFilesTests"
bg_start tsan-build env HANDYD_TEST_TARGETS="$tsan_suites" \
  swift build --build-tests --sanitize=thread --scratch-path .build-tsan
# The real kernel, both boots in the background from here (scripts/vm/run-guest-tests.sh), beside
# the CPU-bound steps below (make deb, ThreadSanitizer, fuzz): the guests mostly wait on their own
# paced injections and on their readers (qemu used 174 CPU s of a 325 s udev boot; the systemd+deb
# boot, apt and dpkg under TCG, more: 573 of 1,115 s at load average 10-20), not on fixed delays.
# Strict: a check that cannot run is a failure. Their daemon-level checks run the package's handyd
# and handyctl (.build/static, what a kiosk runs); the Swift suites in the guest (HandyInputTests,
# AccessTests) the debug build's test bundle.
#  - guest-udev: uinput devices, udev rules, the daemon's guest checks (the storm's subscriber is
#    read while it waits: unread, the daemon dropped it as slow beside ThreadSanitizer, c980045).
#  - guest-systemd-deb, once `make deb` has made the package: systemd as PID 1, the systemd checks
#    (units, socket activation, udev SYSTEMD_WANTS, reload, watchdog, actions), then the .deb on a
#    root without the Swift toolchain, one after the other in that boot.
# Both boots at once: each qemu is its own process with its own results folder; the kernel and the
# initramfs in $LAB are only read (setup.sh replaces the initramfs whole, by rename). A boot's time
# limit (GUEST_TIMEOUT, the systemd boot twice it) is 900 s, not 600: beside the steps below a boot
# takes longer (the udev boot 327 s beside ThreadSanitizer against 246 s alone, quiet machine), and
# the limit is there for a hung guest, not to judge its speed.
if [ "$mode" != --host ]; then
  wait "$vm_setup" || { echo "test.sh: scripts/vm/setup.sh failed:" >&2; cat .build/vm-setup.log >&2; exit 1; }
  guest_env=(env GUEST_TIMEOUT=900 SKIP_BUILD=1 HANDYD_GUEST_STRICT=1 DAEMON_BIN="$static_bin")
  bg_start guest-udev "${guest_env[@]}" GUEST_PART=udev scripts/vm/run-guest-tests.sh
  # The kiosk package (Swift runtime linked statically, lintian). handyd and handyctl are built
  # already (.build/static). Compressed at xz level 1 here (DPKG_DEB_COMPRESSOR_LEVEL, dpkg-deb's
  # own variable): the same files, checks and lintian, 25.1 MB instead of 21.6 MB, made in 4 s
  # instead of 18 s on a quiet machine (xz -6, dpkg's default and what a plain `make deb` uses,
  # was a third of this step beside the guest and ThreadSanitizer's build).
  DPKG_DEB_COMPRESSOR_LEVEL=1 timed make deb
  bg_start guest-systemd-deb "${guest_env[@]}" GUEST_PART=systemd-deb scripts/vm/run-guest-tests.sh
fi
# The fuzzers' build is waited for only now: the guests and the package come first, because the
# systemd boot is the run's last step to end (558 s of 1,126, CI of 1a22a96, where it started
# after this wait's 57 s), and the fuzz build goes on compiling meanwhile.
fuzz_build_wait() {
  wait "$fuzz_build" || { echo "test.sh: scripts/fuzz.sh --build-only failed:" >&2; cat .build/fuzz-build.log >&2; return 1; }
}
timed fuzz_build_wait
# Data races: the suites whose code has threads under ThreadSanitizer (own scratch path
# .build-tsan): the daemon (event loops, broadcaster, input loop, WebSocket, metrics), the clients,
# handyctl, the actions service, the input devices and the file layer (a pthread writer). The pure
# suites (HandyCore, HandyWire, HandyProtocol, HandyRecording, HandySettings, HandySynthetic,
# HandyPlot) are single-threaded code checked by Swift 6's strict concurrency at compile time; they
# run in the plain host suite above, and HANDYD_TEST_TARGETS (Package.swift) leaves their test
# targets (and the benchmark) out of the sanitized build, which compiled them for nothing before.
# Five flood tests (a 1 MiB line, a Unix and a WebSocket client that never reads, a HandyClient
# whose consumer stalls, a WebSocket ping flood that never reads) push megabytes through the daemon
# and are slow in a sanitized build with the guests beside it (the ping flood: over a minute). What
# they check is not about threads: one event loop reads, bounds and drops. The unsanitized host
# suite above runs all five.
bg_wait tsan-build
HANDYD_TEST_TARGETS=$tsan_suites timed scripts/sanitize.sh thread \
  --filter "^(${tsan_suites// /|})\\." \
  --skip 'aMebibyteLineWithoutNewline|aClientThatNeverReads\(|aWebClientThatNeverReads\(|aHandyClientWhoseConsumerStalls|aPingFloodThatNeverReadsIsNotQueued'
# The libFuzzer harnesses keep building and running (30 s each, two at once on CI's two cores;
# docs/RELIABILITY.md), on the modules built beside the replay checks above.
SKIP_BUILD=1 FUZZ_JOBS=2 timed scripts/fuzz.sh --short
if [ "$mode" != --host ]; then
  guests_rc=0
  bg_wait guest-udev || guests_rc=1
  bg_wait guest-systemd-deb || guests_rc=1
  [ $guests_rc -eq 0 ] || exit 1
fi
echo "test.sh: all done in $(( $(date +%s) - start )) s"
