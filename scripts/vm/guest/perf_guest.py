#!/usr/bin/env python3
"""Performance figures 3 and 5 on a real kernel (docs/PERFORMANCE.md): runs INSIDE the qemu guest
(qemu-run.sh --udev, root, /dev/uinput, udev with udev/70-handyd.rules).

Figure 5, side by side with libinput and lisgd: `handyctl inject` creates one uinput touchscreen
and plays a generated two-finger stream (pinch + turn + drift, 240 Hz, like a fast controller) into
it; `handyd` (live, one subscriber reading gestures and touches), `libinput debug-events --device
NODE` (output to a file) and `lisgd -d NODE` (Debian's C touchscreen gesture daemon, on libinput,
with swipe bindings that run `true`) read the SAME evdev node at the same time. CPU seconds of each
(utime + stime from /proc/PID/stat) from "all have the device" to "the last frame was read", per
10,000 frames, and handyd / libinput and handyd / lisgd as ratios in the same run.

Figure 3, idle with a real device open: after the stream, the uinput device stays (inject --hold),
no finger is down; context switches (all threads, /proc/PID/task/*/status) and CPU of handyd (and,
for comparison, of libinput debug-events) over IDLE seconds.

Prints a table and one JSON line per figure (`{"bench":...}`); exit 0 unless something could not
run (no timing assertions). A stream whose events the kernel dropped (handyd's `dropped` device
message: SYN_DROPPED, the readers were not scheduled for the ~0.2 s the evdev buffer holds) is
played again on a new device, at most 3 times. Standard library only.

  perf_guest.py --bin DIR [--frames N] [--idle S] [--callgrind DIR --speed X] [--form compact]
  --form compact: handyd's subscriber asks for the compact form (default: the full form).
  --handyd-cpus LIST: handyd under `taskset -c LIST` (an experiment: e.g. 0 keeps its two threads on
  one vCPU). Each reader's CPU is also printed as user and kernel time, with its context switches.
  --callgrind DIR: instead of CPU seconds, count each reader's instructions (user space, all its
  threads) while it reads the stream, under valgrind's callgrind (DIR gets the profiles): a count
  that does not depend on how TCG emulates each kind of instruction. The readers are ~100x slower
  there, so the stream is played slower (--speed, e.g. 0.05); no idle figure.
  env: HANDYD_PERF_BIN (binaries, e.g. a release build; default --bin), HANDYD_PERF_FULL=1 (24,000
  frames and 10 s idle instead of 120 frames and 1 s: CI runs a debug build under TCG),
  HANDYD_PERF_CALLGRIND_OPTIONS (more valgrind options for handyd's profile, e.g. --dump-instr=yes
  to see the cost of each instruction with callgrind_annotate --auto=no and objdump).
"""
import argparse, json, os, re, select, shutil, signal, socket, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from handyd_guest import W, H, Stream, Failure, cannot_run, connect_unix  # the same synthetic panel and evemu writer as the daemon tests

TICK = os.sysconf("SC_CLK_TCK")
RATE_HZ = 240
STREAM_NAME = "handyd-perf touchscreen"


def cpu_seconds(pid):
    """utime + stime of a process (all threads)."""
    return sum(cpu_parts(pid))


def cpu_parts(pid):
    """(utime, stime) of a process (all threads): its own code, and the kernel's on its behalf."""
    with open(f"/proc/{pid}/stat") as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return int(rest[11]) / TICK, int(rest[12]) / TICK


def thread_cpu(pid):
    """{thread name: utime + stime seconds}, summed over threads of the same name."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                head, rest = f.read().rsplit(")", 1)
        except OSError:
            continue
        name = head.split("(", 1)[1]
        fields = rest.split()
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / TICK
    return out


def switches(pid):
    """{tid: (name, voluntary + nonvoluntary context switches)}."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                fields = dict(line.split(":", 1) for line in f.read().splitlines() if ":" in line)
        except OSError:
            continue
        out[tid] = (fields["Name"].strip(), int(fields["voluntary_ctxt_switches"]) + int(fields["nonvoluntary_ctxt_switches"]))
    return out


def has_open(pid, node):
    """Whether the process holds `node` open (its fds, /proc/PID/fd)."""
    try:
        return any(os.readlink(f"/proc/{pid}/fd/{fd}") == node for fd in os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return False


def wakeups(before, after):
    per = {}
    for tid, (name, n) in after.items():
        d = n - before.get(tid, (name, 0))[1]
        if d:
            per[f"{name}[{tid}]"] = d
    return sum(per.values()), per


def recording(directory, frames):
    """`frames` frames of two fingers at RATE_HZ: 1 s down (pinch + turn + drift), 1 frame up."""
    import math
    s = Stream()
    t, k = 0.0, 0
    per_episode = RATE_HZ
    while k < frames:
        n = min(per_episode, frames - k - 1)
        direction = 1 if (k // per_episode) % 2 == 0 else -1
        for i in range(max(n, 1)):
            u = i / per_episode
            r = (200 + 250 * u * direction + (250 if direction < 0 else 0))
            a = 0.8 * u * direction
            cx, cy = W / 2 + 200 * u * direction, H / 2
            s.frame(t, {0: (cx + r * math.cos(a), cy + r * math.sin(a) * 0.8),
                        1: (cx - r * math.cos(a), cy - r * math.sin(a) * 0.8)})
            t += 1 / RATE_HZ
            k += 1
        s.frame(t, {0: None, 1: None})
        t += 1 / RATE_HZ
        k += 1
    path = os.path.join(directory, "perf.evemu")
    with open(path, "w") as f:
        f.write(s.text(STREAM_NAME))
    return path, k


# handyd's time thresholds and their defaults (docs/GESTURES.md "Thresholds"): milliseconds, and
# speeds in mm/s. The test `perfGuestScalesEveryTimeThreshold` checks this list against the code.
TIME_THRESHOLDS_MS = {"tap-timeout-ms": 180, "double-tap-timeout-ms": 300, "long-press-ms": 500,
                      "swipe-max-duration-ms": 400, "velocity-window-ms": 100, "velocity-pause-ms": 40}
SPEED_THRESHOLDS_MM_S = {"swipe-min-speed-mm-s": 150, "flick-min-speed-mm-s": 100}


def time_scaled_properties(speed):
    """udev properties that make handyd read a stream played at `speed` as it would read it at
    full speed: every time threshold divided by `speed`, every speed threshold multiplied by it.
    Without them a stream slowed 50 times is a slow hand to handyd (samples 208 ms apart are
    beyond the 40 ms velocity pause, a still pair of fingers becomes a long press): other gestures
    than the full-speed stream's, and other work. Not scaled: momentum-decay-per-ms (its range ends
    below the scaled value; it changes the glide's value on an `ended` event, not the work) and
    the tracker's 30 ms touch velocity smoothing (not a threshold; its values, not its work)."""
    props = {}
    for key, value in TIME_THRESHOLDS_MS.items():
        props[key] = value / speed
    for key, value in SPEED_THRESHOLDS_MM_S.items():
        props[key] = value * speed
    for key, value in props.items():
        limit = (1, 60_000) if key.endswith("-ms") else (1, 100_000)
        if not limit[0] <= value <= limit[1]:
            raise RuntimeError(f"--speed {speed}: {key} would be {value:g}, outside {limit[0]}…{limit[1]}; choose another speed")
    return {"HANDYD_THRESHOLD_" + key.upper().replace("-", "_"): f"{value:g}" for key, value in props.items()}


def install_time_scale(speed, name):
    """A udev rule giving the stream's device the time-scaled thresholds (before it is created)."""
    props = time_scaled_properties(speed)
    rule = f'SUBSYSTEM=="input", KERNEL=="event*", ATTRS{{name}}=="{name}", ' + ", ".join(f'ENV{{{k}}}="{v}"' for k, v in props.items())
    with open("/etc/udev/rules.d/71-handyd-perf-time-scale.rules", "w") as f:
        f.write("# perf_guest.py: the stream is played slower; handyd reads it at full speed\n" + rule + "\n")
    subprocess.run(["udevadm", "control", "--reload"], check=True)
    return props


class Subscriber(threading.Thread):
    """Reads everything handyd sends (gestures + touches) in `form` and counts touches frames."""
    def __init__(self, path, timeout, form="full"):
        super().__init__(daemon=True)
        self.sock = connect_unix(path, timeout)
        self.sock.sendall(b'{"type":"subscribe","touches":true,"form":"%s"}\n' % form.encode())
        self.frames = 0
        self.gestures = 0
        self.kinds = {}
        self.devices = []
        self.kernel_drops = 0   # handyd's `dropped` device messages (docs/PROTOCOL.md "device")
        self.lock = threading.Lock()

    def run(self):
        buf = b""
        while True:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                return
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in lines:
                with self.lock:
                    if line.startswith(b'{"type":"touches"'):
                        self.frames += 1
                    elif line.startswith(b'{"type":"gesture"'):
                        self.gestures += 1
                        self.count_kinds(line)
                    elif line.startswith(b'{"type":"frame"'):   # the compact form: a moment's gestures and touches
                        self.frames += b'"touches":[{"id"' in line
                        self.gestures += line.count(b'{"gesture":')
                        self.count_kinds(line)
                    elif b'"added"' in line:
                        self.devices.append(json.loads(line)["device"].get("path"))
                    elif line.startswith(b'{"type":"device"') and json.loads(line).get("event") == "dropped":
                        self.kernel_drops += 1

    def count_kinds(self, line):
        """Gestures by kind (the stream's mix: see `time_scaled_properties`)."""
        for kind in re.findall(rb'"gesture":"([a-z-]+)"', line):
            self.kinds[kind.decode()] = self.kinds.get(kind.decode(), 0) + 1

    def snapshot(self):
        with self.lock:
            return self.frames, self.gestures, list(self.devices), dict(self.kinds)


def wait_for(what, predicate, timeout, step=0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(step)
    raise RuntimeError(f"timed out after {timeout:.0f} s waiting for {what}")


def settle(pid, quiet=0.5, timeout=60):
    """Waits until the process used no CPU for `quiet` seconds (it read everything)."""
    deadline = time.monotonic() + timeout
    last = cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(quiet)
        now = cpu_seconds(pid)
        if now == last:
            return
        last = now


def instructions(readers, frames, seen, folder, form):
    """Stops counting, ends the readers (callgrind writes its profile at exit) and prints the
    instructions each executed per frame of the stream."""
    for p in readers.values():
        subprocess.run(["callgrind_control", "-i", "off", str(p.pid)], check=True, stdout=subprocess.DEVNULL)
    # Each ends the way it is asked to: handyd on SIGTERM, the two libinput tools on SIGINT (Ctrl-C).
    for name, p in readers.items():
        p.send_signal(signal.SIGTERM if name == "handyd" else signal.SIGINT)
    for p in readers.values():
        p.wait(300)
    counts = {}
    for name in readers:
        with open(os.path.join(folder, name + ".callgrind")) as f:
            totals = [line for line in f if line.startswith("totals:")]
        if not totals:
            raise RuntimeError(f"no callgrind profile of {name} in {folder}")
        counts[name] = int(totals[-1].split()[1])
    got_frames, got_gestures, _, kinds = seen
    print(f"\n5b. Instructions per frame under callgrind (same uinput device, same {frames} frames; user space, all threads; handyd's subscriber in the {form} form)")
    print("handyd's gestures: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    print(f"{'reader':<10} {'instructions':>14} {'per frame':>12}")
    for name, n in counts.items():
        print(f"{name:<10} {n:>14,} {n / frames:>12,.0f}")
    ratio = {k: counts["handyd"] / v for k, v in counts.items() if k != "handyd" and v > 0}
    print("ratio handyd / " + ", handyd / ".join(f"{k}: {v:.2f}" for k, v in ratio.items()))
    print(json.dumps({"bench": "instructions-guest", "form": form, "frames": frames, "handydTouchFrames": got_frames,
                      "handydGestures": got_gestures, "handydGesturesByKind": kinds, "instructions": counts,
                      "perFrame": {k: round(v / frames) for k, v in counts.items()},
                      "ratio": {k: round(v, 3) for k, v in ratio.items()}}), flush=True)
    return 0


def system_calls(tracers, frames, folder):
    """Stops each reader's strace and prints its system calls per frame, by call."""
    for t in tracers.values():
        t.send_signal(signal.SIGINT)
    for t in tracers.values():
        t.wait(60)
    per = {}
    for name in tracers:
        calls = {}
        for line in open(os.path.join(folder, name + ".txt")):
            f = line.split()
            # "% time seconds usecs/call calls [errors] syscall"
            if len(f) >= 5 and f[0][0].isdigit() and f[-1] != "total":
                calls[f[-1]] = (int(f[3]), int(f[4]) if len(f) == 6 else 0)
        per[name] = calls
        total = sum(c for c, _ in calls.values())
        print(f"{name}: {total / frames:.2f} system calls per frame: "
              + ", ".join(f"{k} {c / frames:.2f}" + (f" ({e / frames:.2f} failed)" if e else "")
                          for k, (c, e) in sorted(calls.items(), key=lambda kv: -kv[1][0])))
    print(json.dumps({"bench": "syscalls-guest", "frames": frames,
                      "callsPerFrame": {n: {k: round(c / frames, 3) for k, (c, _) in calls.items()} for n, calls in per.items()}}), flush=True)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    full = os.environ.get("HANDYD_PERF_FULL") == "1"
    ap.add_argument("--frames", type=int, default=24000 if full else 120)
    ap.add_argument("--idle", type=float, default=10.0 if full else 1.0)
    ap.add_argument("--callgrind", help="count instructions under callgrind, profiles into this folder")
    ap.add_argument("--speed", type=float, default=1.0, help="play the stream at this speed (handyctl inject --speed)")
    ap.add_argument("--handyd-cpus", help="run handyd under taskset -c on these CPUs (e.g. 0: both its threads on one vCPU, "
                    "so the hop between them wakes no other CPU)")
    ap.add_argument("--strace", help="count each reader's system calls during the stream (strace -c -f, all its threads) "
                    "into this folder and print them per frame; the CPU figures are then not measured")
    ap.add_argument("--form", choices=("full", "compact"), default="full",
                    help="the form handyd's subscriber asks for (docs/PROTOCOL.md \"frame (compact form)\")")
    args = ap.parse_args()
    bindir = os.environ.get("HANDYD_PERF_BIN") or args.bin
    # The measured daemon from HANDYD_PERF_BIN (e.g. the package's static build in .build/static);
    # handyctl only injects the stream, so it may come from --bin.
    handyd = os.path.join(bindir, "handyd")
    handyctl = next(p for p in (os.path.join(bindir, "handyctl"), os.path.join(args.bin, "handyctl")) if os.path.exists(p) or p.startswith(args.bin))
    libinput, lisgd = shutil.which("libinput"), shutil.which("lisgd")
    for tool, package in ((libinput, "libinput-tools"), (lisgd, "lisgd")):
        if not tool:
            try:
                cannot_run("perf-peers", f"{package} not installed (apt-get install {package}; scripts/install-deps.sh --vm)")
            except Failure as e:
                print(f"FAIL {e}", flush=True)
                return 1
            return 0
    scale = float(os.environ.get("HANDYD_GUEST_TIMEOUT_SCALE", "1"))
    # A stream the kernel dropped events of (SYN_DROPPED: the reader was not scheduled for the
    # ~0.2 s its evdev buffer holds at 240 Hz, as under TCG on a host busy with other builds)
    # measures nothing: every reader missed frames. Played again on a new device, at most
    # STREAM_ATTEMPTS times, each drop said; a handyd too slow for the stream drops every time.
    for attempt in range(1, STREAM_ATTEMPTS + 1):
        try:
            return measure(args, handyd, handyctl, libinput, lisgd, bindir, scale)
        except KernelDropped as e:
            print(f"perf_guest: {e} (attempt {attempt} of {STREAM_ATTEMPTS})", flush=True)
    print(f"perf_guest: the kernel dropped events in every one of {STREAM_ATTEMPTS} attempts")
    return 1


class KernelDropped(Exception):
    """handyd said the kernel dropped events of the stream's device (its `dropped` device message)."""


STREAM_ATTEMPTS = 3


def measure(args, handyd, handyctl, libinput, lisgd, bindir, scale):
    """One stream and idle window, side by side (see the module's docstring); 0, or 1 when
    something could not run. Raises KernelDropped when the kernel dropped events of the stream."""
    work = tempfile.mkdtemp(prefix="handyd-perf.")
    procs = []
    def under_callgrind(name, argv):
        if not args.callgrind:
            return argv
        extra = os.environ.get("HANDYD_PERF_CALLGRIND_OPTIONS", "").split() if name == "handyd" else []
        return ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--trace-children=yes",
                f"--callgrind-out-file={os.path.join(args.callgrind, name + '.callgrind')}"] + extra + argv
    try:
        rec, frames = recording(work, args.frames)
        if args.callgrind:
            os.makedirs(args.callgrind, exist_ok=True)
            # Debian's valgrind 3.19 gives up on the Swift binary's DWARF; the symbols suffice.
            stripped = os.path.join(work, "handyd")
            subprocess.run(["strip", "--strip-debug", "-o", stripped, handyd], check=True)
            handyd = stripped
        sock = os.path.join(work, "handyd.sock")
        log = open(os.path.join(work, "handyd.log"), "w")
        pinned = ["taskset", "-c", args.handyd_cpus] if args.handyd_cpus else []
        daemon = subprocess.Popen(pinned + under_callgrind("handyd", [handyd, "--socket", sock, "--log-level", "notice"]),
                                  stderr=log, stdout=subprocess.DEVNULL)
        procs.append(daemon)
        sub = Subscriber(sock, 60 * scale, args.form)
        sub.start()
        # The device appears at once; inject is stopped (SIGSTOP) as soon as it names it and let go
        # (SIGCONT) once handyd, libinput and lisgd have it open and are quiet, so no reader misses
        # the first frame however long udev and the readers' starts take, and nothing waits longer
        # than they need (a fixed 20 s start delay before).
        start_delay = 1   # the window in which the SIGSTOP must land before the first write
        ready_timeout = 60 * scale
        if args.speed != 1:
            props = install_time_scale(args.speed, STREAM_NAME)
            print(f"perf_guest: stream at speed {args.speed:g}, handyd's time thresholds scaled to match: "
                  + " ".join(f"{k}={v}" for k, v in props.items()), flush=True)
        # The device must stay through the stream, the catch-up and the idle window; inject is
        # stopped at the end (it prints `done` only after the hold, when the device is gone).
        hold = 3600
        inject = subprocess.Popen([handyctl, "inject", "--start-delay", str(start_delay), "--hold", str(hold),
                                   "--speed", str(args.speed), rec],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(inject)
        node = None
        while node is None:
            line = inject.stdout.readline()
            if not line:
                raise RuntimeError(f"handyctl inject gave no device: {inject.stderr.read()[:500]}")
            if line.startswith("device "):
                inject.send_signal(signal.SIGSTOP)
                node = line.split(" ", 1)[1].strip()
        t_created = time.monotonic()
        li_out = open(os.path.join(work, "libinput.txt"), "w")
        li = subprocess.Popen(under_callgrind("libinput", [libinput, "debug-events", "--device", node]),
                              stdout=li_out, stderr=subprocess.STDOUT)
        procs.append(li)
        # lisgd: the panel's size in pixels (no display here), swipes with one and two fingers in
        # every direction the stream moves, each running `true` (in a child: not lisgd's CPU).
        gestures = [f"{n},{g},*,*,R,true" for n in (1, 2) for g in ("LR", "RL", "UD", "DU")]
        lg_out = open(os.path.join(work, "lisgd.txt"), "w")
        lg = subprocess.Popen(under_callgrind("lisgd", [lisgd, "-d", node, "-w", str(W), "-h", str(H)] + [a for g in gestures for a in ("-g", g)]),
                              stdout=lg_out, stderr=subprocess.STDOUT)
        procs.append(lg)
        peers = {"libinput": li, "lisgd": lg}
        def progress(what):
            print(f"perf_guest: {what} {time.monotonic() - t_created:.1f} s after the device appeared", flush=True)
        wait_for("handyd to open " + node, lambda: node in sub.snapshot()[2] and has_open(daemon.pid, node),
                 ready_timeout - (time.monotonic() - t_created))
        progress("handyd has the device")
        for name, p in peers.items():
            wait_for(f"{name} to open {node}", lambda: has_open(p.pid, node), ready_timeout - (time.monotonic() - t_created))
            progress(f"{name} has the device")
        settle(daemon.pid, quiet=0.3)
        for p in peers.values():
            settle(p.pid, quiet=0.3)
        progress("all quiet")
        readers = {"handyd": daemon, **peers}
        if args.callgrind:
            for name, p in readers.items():
                subprocess.run(["callgrind_control", "-i", "on", str(p.pid)], check=True, stdout=subprocess.DEVNULL)
            progress("callgrind counting")
        tracers = {}
        if args.strace:
            os.makedirs(args.strace, exist_ok=True)
            for name, p in readers.items():
                tracers[name] = subprocess.Popen(["strace", "-f", "-c", "-S", "calls", "-o", os.path.join(args.strace, name + ".txt"),
                                                  "-p", str(p.pid)], stderr=subprocess.PIPE, text=True)
            for name, t in tracers.items():
                line = t.stderr.readline()  # "strace: Process N attached" once it holds the process
                if "attached" not in line:
                    raise RuntimeError(f"strace did not attach to {name}: {line.strip()}")
            progress("strace counting")
        c0 = {k: cpu_seconds(p.pid) for k, p in readers.items()}
        u0 = {k: cpu_parts(p.pid) for k, p in readers.items()}
        x0 = {k: sum(n for _, n in switches(p.pid).values()) for k, p in readers.items()}
        t0 = thread_cpu(daemon.pid)
        time.sleep(max(0.0, t_created + start_delay - time.monotonic()))   # its start delay is over
        w0 = time.monotonic()
        inject.send_signal(signal.SIGCONT)   # the stream starts now
        # Both must have consumed the whole stream before CPU is read.
        # A debug build under TCG is slow but must not stall: wait while it makes progress.
        seen, stalled_since = -1, time.monotonic()
        while sub.snapshot()[0] < frames - 2:
            now_seen = sub.snapshot()[0]
            if sub.kernel_drops:
                raise KernelDropped(f"the kernel dropped events of the stream (SYN_DROPPED) after handyd's "
                                    f"touches frame {now_seen} of {frames}: no reader saw the whole stream")
            if now_seen != seen:
                seen, stalled_since = now_seen, time.monotonic()
            elif time.monotonic() - stalled_since > 30 * scale:
                raise RuntimeError(f"handyd published {seen} of {frames} frames and then nothing for {30 * scale:.0f} s")
            time.sleep(0.2)
        played = time.monotonic() - w0
        for p in readers.values():
            settle(p.pid)
        for name, p in peers.items():
            if p.poll() is not None:
                raise RuntimeError(f"{name} ended during the stream (exit {p.returncode}); see its output in {work}")
        c1 = {k: cpu_seconds(p.pid) for k, p in readers.items()}
        u1 = {k: cpu_parts(p.pid) for k, p in readers.items()}
        x1 = {k: sum(n for _, n in switches(p.pid).values()) for k, p in readers.items()}
        t1 = thread_cpu(daemon.pid)
        if args.callgrind:
            return instructions(readers, frames, sub.snapshot(), args.callgrind, args.form)
        if args.strace:
            return system_calls(tracers, frames, args.strace)
        # Where handyd's CPU went: the input thread (evdev reads, tracker, recognizers) vs the
        # NIO event loop (JSON encoding, socket writes) vs the rest.
        split = {k: round(v - t0.get(k, 0.0), 3) for k, v in t1.items() if v - t0.get(k, 0.0) > 0}
        got_frames, got_gestures, _, _ = sub.snapshot()
        cpu = {k: c1[k] - c0[k] for k in c0}
        per10k = {k: v * 10000 / frames for k, v in cpu.items()}
        ratios = {k: (cpu["handyd"] / cpu[k] if cpu[k] > 0 else float("nan")) for k in peers}
        ratio = ratios["libinput"]
        print(f"\n5. Side by side with libinput and lisgd (same uinput device, same {frames} frames at {RATE_HZ} Hz, handyd had the last one {played:.1f} s after the first was due)")
        print(f"{'reader':<10} {'CPU s':>8} {'CPU s / 10k frames':>19} {'output':>28}")
        print(f"{'handyd':<10} {cpu['handyd']:>8.3f} {per10k['handyd']:>19.3f} {f'{got_frames} touches + {got_gestures} gestures':>28}")
        print(f"{'libinput':<10} {cpu['libinput']:>8.3f} {per10k['libinput']:>19.3f} {'touch events as text':>28}")
        print(f"{'lisgd':<10} {cpu['lisgd']:>8.3f} {per10k['lisgd']:>19.3f} {'swipes, commands run':>28}")
        print(f"ratio handyd / libinput: {ratio:.2f}; handyd / lisgd: {ratios['lisgd']:.2f}")
        print("handyd CPU by thread: " + " ".join(f"{k}={v}" for k, v in sorted(split.items(), key=lambda kv: -kv[1])))
        # User space against the kernel on its behalf, and how often its threads were switched out
        # (each a sleep and a wake-up): under TCG the kernel's side is a large part of a reader's CPU.
        user = {k: round(u1[k][0] - u0[k][0], 3) for k in u0}
        kernel = {k: round(u1[k][1] - u0[k][1], 3) for k in u0}
        switched = {k: round((x1[k] - x0[k]) / frames, 2) for k in x0}
        for k in readers:
            print(f"{k}: user {user[k]:.3f} s, kernel {kernel[k]:.3f} s, context switches per frame {switched[k]}")
        print(json.dumps({"bench": "libinput", "frames": frames, "rateHz": RATE_HZ, "playedSeconds": round(played, 2),
                          "handydCpuSeconds": round(cpu["handyd"], 3), "libinputCpuSeconds": round(cpu["libinput"], 3),
                          "handydCpuSecondsPer10kFrames": round(per10k["handyd"], 3),
                          "libinputCpuSecondsPer10kFrames": round(per10k["libinput"], 3),
                          "lisgdCpuSeconds": round(cpu["lisgd"], 3), "lisgdCpuSecondsPer10kFrames": round(per10k["lisgd"], 3),
                          "ratio": round(ratio, 3), "ratioLisgd": round(ratios["lisgd"], 3), "handydTouchFrames": got_frames, "handydGestures": got_gestures,
                          "handydCpuByThread": split, "userSeconds": user, "kernelSeconds": kernel,
                          "contextSwitchesPerFrame": switched, "binaries": bindir}), flush=True)

        # Figure 3 with a real device: it stays open (hold), nothing is touched.
        time.sleep(1.0)  # recognizer timers of the last lift (tap, momentum) end within this
        s0 = {k: switches(p.pid) for k, p in readers.items()}
        i0 = {k: cpu_seconds(p.pid) for k, p in readers.items()}
        t0 = time.monotonic()
        time.sleep(args.idle)
        elapsed = time.monotonic() - t0
        if inject.poll() is not None or not all(has_open(p.pid, node) for p in readers.values()):
            raise RuntimeError(f"{node} was not open in handyd, libinput and lisgd for the whole idle window")
        print(f"\n3. Idle with a real uinput touchscreen open, no finger down, {elapsed:.1f} s")
        print(f"{'process':<10} {'wake-ups':>9} {'wake-ups/s':>11} {'CPU s':>7}  threads that woke")
        for name, pid in ((k, p.pid) for k, p in readers.items()):
            total, per = wakeups(s0[name], switches(pid))
            cpu_idle = cpu_seconds(pid) - i0[name]
            print(f"{name:<10} {total:>9} {total / elapsed:>11.2f} {cpu_idle:>7.3f}  {' '.join(f'{k}={v}' for k, v in per.items()) or 'none'}")
            print(json.dumps({"bench": "idle-guest", "process": name, "seconds": round(elapsed, 2), "wakeups": total,
                              "wakeupsPerSecond": round(total / elapsed, 3), "cpuSeconds": round(cpu_idle, 3),
                              "wakers": per, "device": node}), flush=True)
        return 0
    except (RuntimeError, Failure) as e:
        print(f"perf_guest: {e}")
        # What handyd said (a kernel overflow is a warning "dropped events"): a stall and a
        # loss look alike from the subscriber's side.
        try:
            with open(os.path.join(work, "handyd.log"), errors="replace") as f:
                for line in f.readlines()[-15:]:
                    print(f"perf_guest: handyd: {line.rstrip()}")
        except OSError:
            pass
        return 1
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                p.send_signal(signal.SIGCONT)   # a still gated inject takes the SIGTERM only once continued
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
