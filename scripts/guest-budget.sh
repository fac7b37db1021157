#!/usr/bin/env bash
# The guest's budget per frame (docs/PERFORMANCE.md section 5, "The budget per frame"): handyd's and
# `libinput debug-events`' user-space instructions a frame, counted with callgrind on the same
# uinput device in the qemu guest (perf_guest.py --callgrind, 480 frames at 1/50 speed), in each of
# handyd's forms, side by side against the budget: default form <= 1.00x libinput, compact <= 0.90x.
#   scripts/guest-budget.sh                 both forms (~10-20 min under TCG on a loaded machine)
#   scripts/guest-budget.sh --forms full    one form
#   scripts/guest-budget.sh --strace        also each reader's system calls a frame (one more run)
#   --strace-speed 0.25                     that run at this speed, 480 frames (60 Hz: most frames
#                                           a wake-up of their own; poll + epoll_wait a frame are
#                                           the wake-ups a frame); default full speed, 1,200 frames
#   scripts/guest-budget.sh --check         exit 1 when a form is over its budget
#   --skip-build                            use the builds already there
# Needs the guest (LAB as for scripts/vm/setup.sh). The measured handyd is the package's build
# (.build/static, as scripts/bench.sh makes it); the stream's injector is the debug handyctl.
set -euo pipefail
cd "$(dirname "$0")/.."
forms="full compact"; frames=480; strace=0; strace_speed=; check=0; build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --forms) forms=$2; shift;; --frames) frames=$2; shift;; --strace) strace=1;;
    --strace-speed) strace=1; strace_speed=$2; shift;;
    --check) check=1;; --skip-build) build=0;;
    *) echo "usage: $0 [--forms 'full compact'] [--frames N] [--strace] [--strace-speed S] [--check] [--skip-build]" >&2; exit 2;;
  esac; shift
done
if [ "$build" = 1 ]; then
  # shellcheck disable=SC2046
  swift build $(cat scripts/static-build-flags) --scratch-path .build/static --product handyd
  swift build --product handyctl
fi
# shellcheck disable=SC2046
static=$(swift build $(cat scripts/static-build-flags) --scratch-path .build/static --show-bin-path)
debug=$(swift build --show-bin-path)
out=$(mktemp -d /var/tmp/handyd-budget.XXXXXX)
guest="install -m 644 udev/70-handyd.rules /etc/udev/rules.d/ && udevadm control --reload"
for form in $forms; do
  guest+=" && python3 scripts/vm/guest/perf_guest.py --bin $debug --frames $frames --speed 0.02 --form $form --callgrind $out/$form"
done
if [ "$strace" = 1 ] && [ -n "$strace_speed" ]; then
  guest+=" && python3 scripts/vm/guest/perf_guest.py --bin $debug --frames $frames --speed $strace_speed --strace $out/strace"
elif [ "$strace" = 1 ]; then
  guest+=" && python3 scripts/vm/guest/perf_guest.py --bin $debug --frames 1200 --strace $out/strace"
fi
HANDYD_PERF_BIN=$static scripts/vm/qemu-run.sh --udev --rw "$out" --timeout $((1500 * $(wc -w <<<"$forms") + 600)) -- \
  env HANDYD_GUEST_TIMEOUT_SCALE=3 /bin/bash -c "cd $PWD && $guest" | tee "$out/guest.log"
python3 - "$out/guest.log" "$check" <<'EOF'
import json, sys
budget = {"full": 1.00, "compact": 0.90}
rows, calls = [], None
for line in open(sys.argv[1], errors="replace"):
    line = line.strip()
    if not line.startswith("{"):
        continue
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("bench") == "instructions-guest":
        rows.append(m)
    elif m.get("bench") == "syscalls-guest":
        calls = m
print("\nBudget per frame in the guest (callgrind, user space, all threads; docs/PERFORMANCE.md section 5)")
print(f"{'form':<8} {'frames':>6} {'handyd':>9} {'libinput':>9} {'lisgd':>7} {'handyd/libinput':>16} {'budget':>7}  verdict")
over = False
for m in rows:
    per, form = m["perFrame"], m["form"]
    ratio = per["handyd"] / per["libinput"]
    ok = ratio <= budget[form]
    over |= not ok
    print(f"{form:<8} {m['frames']:>6} {per['handyd']:>9,} {per['libinput']:>9,} {per.get('lisgd', 0):>7,} "
          f"{ratio:>16.3f} {budget[form]:>7.2f}  {'within' if ok else 'OVER'}")
if calls:
    total = {n: sum(c.values()) for n, c in calls["callsPerFrame"].items()}
    print("system calls a frame: " + ", ".join(f"{n} {v:.2f}" for n, v in total.items())
          + ("  (handyd within libinput's)" if total.get("handyd", 0) <= total.get("libinput", 0) else "  (handyd OVER libinput's)"))
if not rows:
    print("no measurement came back from the guest (see the log above)")
    sys.exit(1)
print(json.dumps({"bench": "guest-budget", "forms": {m["form"]: {"handyd": m["perFrame"]["handyd"], "libinput": m["perFrame"]["libinput"],
                  "ratio": round(m["perFrame"]["handyd"] / m["perFrame"]["libinput"], 3)} for m in rows}}))
sys.exit(1 if over and sys.argv[2] == "1" else 0)
EOF
