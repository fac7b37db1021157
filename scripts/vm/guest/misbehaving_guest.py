#!/usr/bin/env python3
"""Misbehaving devices on a real kernel (issue 8): uinput devices that break the rules, the real
handyd reading them, a subscriber counting what reaches the wire.

Runs INSIDE the qemu guest (scripts/vm/guest/in-guest.sh): root, /dev/uinput, udev with our rule.
Each case plays a recording with `handyctl inject` (most are the crafted files in
Tests/Fixtures/misbehaving/, see its README), waits for the device to be removed, then checks:
  - handyd is still running and answers status;
  - every gesture id that began on the device ended or was cancelled exactly once;
  - no touch is left active after the device went (touches frames: began ... ended|cancelled).
The device that vanishes mid-frame must end its open pinch as `cancelled` on the wire.
Standard library only; every read has a timeout.

  misbehaving_guest.py --bin DIR [--only NAME...]
"""
import argparse, os, signal, subprocess, sys, tempfile, time, traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from handyd_guest import (Client, Context, Failure, Stream, check, added, removed, write_recording,  # noqa: E402
                          injector_bytes_written, run_tests, W, H, SCALE)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FIXTURES = os.path.join(ROOT, "Tests/Fixtures/misbehaving")


class Tally:
    """What one subscriber saw for one device."""
    def __init__(self, messages, dev):
        self.began, self.finished, self.phases = {}, {}, {}
        self.active = set()
        self.frames = 0
        self.cancelled_touches = 0
        for m in messages:
            if m.get("device") != dev:
                continue
            if m.get("type") == "gesture":
                gid, phase = m["id"], m["phase"]
                self.phases.setdefault(gid, []).append(f"{m['gesture']} {phase}")
                if phase == "began":
                    self.began[gid] = self.began.get(gid, 0) + 1
                elif phase in ("ended", "cancelled"):
                    self.finished[gid] = self.finished.get(gid, 0) + 1
            elif m.get("type") == "touches":
                self.frames += 1
                for t in m["touches"]:
                    if t["phase"] in ("ended", "cancelled"):
                        self.active.discard(t["id"])
                        self.cancelled_touches += t["phase"] == "cancelled"
                    else:
                        self.active.add(t["id"])

    def check_balanced(self, what):
        for gid, n in self.began.items():
            check(n == 1 and self.finished.get(gid, 0) == 1,
                  f"{what}: gesture {gid} began {n}x, ended/cancelled {self.finished.get(gid, 0)}x: {self.phases[gid]}")
        for gid, n in self.finished.items():
            check(gid in self.began, f"{what}: gesture {gid} ended without beginning: {self.phases[gid]}")
        check(not self.active, f"{what}: touches {sorted(self.active)} still active after the device went")

    def summary(self):
        n = sum(self.began.values())
        cancelled = sum(1 for p in self.phases.values() if p and p[-1].endswith("cancelled"))
        return (f"{self.frames} touch frames, {n} gestures began, {cancelled} cancelled, "
                f"{self.cancelled_touches} touches cancelled")


def play(ctx, recording, name, touches=True, hold=1.0, speed=1.0, during=None):
    """Injects `recording` as a device named `name`, waits for it to go, returns (tally, client).
    The injector is gated: it writes its first event only once handyd has announced the device
    (events written before handyd's open are lost, and under TCG on a loaded host udev's add plus
    the open take seconds), not after a fixed delay. inj.started_at: when it was let go."""
    if not ctx.daemon_alive():
        ctx.start_daemon()
    c = Client(ctx.socket, subscribe={"touches": touches})
    # start_delay: the window in which the SIGSTOP must land before the first write.
    inj = ctx.inject(recording, name, hold=hold, start_delay=1.0, speed=speed, gated=True)
    node_seen_at = time.monotonic()
    dev = c.expect(added(inj.devnode, inj.name), f"{name}: device added")["device"]["id"]
    inj.wchar_at_go = injector_bytes_written(inj)
    inj.device_id = dev
    inj.go()
    inj.started_at = max(time.monotonic(), node_seen_at + 1.0)   # when the first event is written
    t0 = time.monotonic()
    if during:
        during(ctx, c)
    c.expect(removed(inj.devnode), f"{name}: device removed", timeout=120)
    elapsed = time.monotonic() - t0
    inj.proc.wait(10)
    c.send({"type": "status"})
    c.expect(lambda m: m.get("type") == "status", f"{name}: status after the device went", timeout=10)
    check(ctx.daemon_alive(), f"{name}: handyd died")
    tally = Tally(c.seen, dev)
    tally.check_balanced(name)
    c.close()
    return tally, elapsed


# The fault each fixture holds, as handyd's journal warning names it (DeviceFaultReport), where it
# survives the kernel and libevdev: the input core drops slot numbers beyond the device's slots
# and holds events until a SYN_REPORT, and libevdev discards a tracking id that skips -1
# (docs/RELIABILITY.md), so only values beyond their range reach a reader of a real device.
FAULTS = {"values-beyond-range.evemu": "axis values beyond their range"}


def fixture_case(filename, expect_cancel=False):
    def test(ctx):
        logged_before = os.path.getsize(ctx.log) if os.path.exists(ctx.log) else 0
        tally, _ = play(ctx, os.path.join(FIXTURES, filename), f"handyd-test misbehaving {filename[:-6]}")
        check(tally.frames > 5, f"{filename}: only {tally.frames} touch frames reached the wire")
        if filename in FAULTS:
            with open(ctx.log, errors="replace") as f:
                f.seek(logged_before)
                warnings = [l for l in f if "device breaks the multitouch protocol" in l]
            check(any(FAULTS[filename] in l for l in warnings),
                  f"{filename}: no journal warning naming '{FAULTS[filename]}' (got {warnings[:3]})")
        if expect_cancel:
            pinch_ids = [g for g, p in tally.phases.items() if p[0] == "pinch began"]
            check(pinch_ids, f"{filename}: no pinch began")
            check(tally.phases[pinch_ids[-1]][-1] == "pinch cancelled",
                  f"{filename}: the open pinch ended as {tally.phases[pinch_ids[-1]][-1]!r}, expected cancelled")
        print(f"  {filename}: {tally.summary()}", flush=True)
    test.__name__ = "test_" + filename[:-6].replace("-", "_")
    return test


def storm_recording(ctx, seconds=0.5, rate=10_000):
    """`rate` frames/s for `seconds`: two fingers down, then each frame moves one of them (slot,
    x, SYN_REPORT: 3 events), then both lift. Lean on purpose: handyctl inject (a debug build
    under TCG) must read the file before it creates the device."""
    lines = []
    def ev(t, type_, code, value):
        lines.append(f"E: {t:.6f} {type_:04x} {code:04x} {value}")
    ev(0, 3, 0x2f, 0); ev(0, 3, 0x39, 500); ev(0, 3, 0x35, 600); ev(0, 3, 0x36, 400)
    ev(0, 3, 0x2f, 1); ev(0, 3, 0x39, 501); ev(0, 3, 0x35, 1300); ev(0, 3, 0x36, 700)
    ev(0, 1, 0x14a, 1); ev(0, 0, 0, 0)
    frames = int(seconds * rate)
    for i in range(1, frames + 1):
        t = i / rate
        slot = i % 2
        ev(t, 3, 0x2f, slot)
        ev(t, 3, 0x35, 600 + (i // 2) % 500 if slot == 0 else 1300 - (i // 2) % 500)  # a new value every frame
        ev(t, 0, 0, 0)
    t = (frames + 1) / rate
    ev(t, 3, 0x2f, 0); ev(t, 3, 0x39, -1); ev(t, 3, 0x2f, 1); ev(t, 3, 0x39, -1); ev(t, 1, 0x14a, 0); ev(t, 0, 0, 0)
    from handyd_guest import evemu_header
    path = os.path.join(ctx.dir, "storm.evemu")
    with open(path, "w") as f:
        f.write(evemu_header("handyd-test storm") + "\n".join(lines) + "\n")
    return path, frames + 2


def frames_tracked(ctx):
    """handyd's count of touch frames with changes so far (its status), over every device."""
    if not ctx.daemon_alive():
        ctx.start_daemon()
    c = Client(ctx.socket)
    c.send({"type": "status"})
    status = c.expect(lambda m: m.get("type") == "status", "status", timeout=10)
    c.close()
    return status["frames"]


def test_storm_10k_frames_per_second(ctx):
    """5 002 frames in 0.5 s of device time (10 k frames/s). Gestures only (a Python subscriber
    cannot decode 10 k touch frames/s under TCG; the daemon would rightly drop it as slow)."""
    rec, frames = storm_recording(ctx)
    before = frames_tracked(ctx)
    timing = {}
    def time_the_writes(ctx, c):
        inj = ctx.injectors[-1]
        # "done" comes after the hold. The subscriber keeps reading meanwhile: a storm's gesture
        # updates left unread pass the daemon's queue bound and it drops the subscriber as slow
        # (CI of c980045 and 9963a40: "daemon closed the connection").
        inj.wait_done(120, reading=c)
        timing["writing"] = max(time.monotonic() - inj.started_at - 1.0, 1e-3)
    tally, _ = play(ctx, rec, "handyd-test misbehaving storm", touches=False, during=time_the_writes)
    # inject plays in real time as far as the guest can: report the rate it reached.
    w = timing["writing"]
    print(f"  storm: {frames} frames written in about {w:.1f} s ({frames / w:.0f} frames/s); {tally.summary()}", flush=True)
    # Gestures may or may not begin (an overflow under TCG can cancel the touches first), but the
    # daemon must have read and tracked the storm, not only its first frames: the kernel's buffer
    # overflows under TCG (SYN_DROPPED, the frames in it are lost by design), and CI runs tracked
    # 978 and 1 051 of the 5 002; 100 (2 %) leaves room for a slower host.
    tracked = frames_tracked(ctx) - before
    check(tracked >= 100, f"storm: handyd's status counts {tracked} new touch frames after {frames} were written")
    print(f"  storm: handyd tracked {tracked} frames with changes", flush=True)


def test_storm_while_stopped_syn_dropped(ctx):
    """The storm while handyd is stopped (SIGSTOP): the kernel's buffer overflows (SYN_DROPPED);
    after SIGCONT nothing is stuck and every gesture is closed."""
    rec, frames = storm_recording(ctx)   # 5 002 frames at 10 k frames/s of device time
    events = sum(1 for line in open(rec) if line.startswith("E:"))
    def stop_during(ctx, c):
        # handyd is stopped once the storm's first touches reached the wire, and continued once
        # the injector has written the rest of the storm and the lift (/proc/PID/io wchar, 24
        # bytes an event): they overflow the kernel's buffer whatever the speeds of the readers
        # (the release handyd keeps up with the storm; a stop 0.2 s into it came after the lift
        # under load). Played at 1/10 speed so the stop lands long before the lift.
        inj = ctx.injectors[-1]
        c.expect(lambda m: m.get("type") == "touches" and m.get("device") == inj.device_id, "the storm's first touches")
        ctx.daemon.send_signal(signal.SIGSTOP)
        try:
            deadline = time.monotonic() + 60 * SCALE
            while injector_bytes_written(inj) - inj.wchar_at_go < 24 * events:
                check(time.monotonic() < deadline, f"storm + SIGSTOP: the injector wrote "
                      f"{injector_bytes_written(inj) - inj.wchar_at_go} of {24 * events} bytes in {60 * SCALE:.0f} s")
                time.sleep(0.05)
        finally:
            ctx.daemon.send_signal(signal.SIGCONT)
    # hold: the device stays 5 s after the lift, so handyd resumes while it is still there (its
    # touches are then cancelled by the resync, not by the device going).
    tally, _ = play(ctx, rec, "handyd-test misbehaving storm stopped", touches=True, hold=5.0, speed=0.1,
                    during=stop_during)
    print(f"  storm + SIGSTOP: {tally.summary()}", flush=True)
    check(tally.frames > 0, "storm + SIGSTOP: no touch frame reached the wire")
    # The lift was written into the overflowed buffer: after the resync the two touches are gone
    # without their lift, so they must be cancelled (ended would mean no SYN_DROPPED was seen).
    check(tally.cancelled_touches >= 2, f"storm + SIGSTOP: {tally.cancelled_touches} touches cancelled, expected 2 "
          "(the lift lost in the overflow)")


def test_vanish_mid_frame_unplugged(ctx):
    """A pinch in progress, the device unplugged (SIGKILL to inject) with half a frame written:
    the open pinch must be cancelled on the wire and no touch stays."""
    s = Stream()
    s.pinch(0.0, "right", duration=3.0, lift=False)
    s.ev(3.1, 3, 0x2f, 0); s.ev(3.1, 3, 0x35, 1000)   # half a frame, never reported
    rec = write_recording(ctx.dir, "vanish.evemu", s)
    def unplug_mid_pinch(ctx, c):
        c.expect(lambda m: m.get("type") == "gesture" and m.get("gesture") == "pinch" and m.get("phase") == "began",
                 "pinch began before the unplug")
        ctx.injectors[-1].unplug()
    tally, _ = play(ctx, rec, "handyd-test misbehaving vanish", hold=5, during=unplug_mid_pinch)
    pinch = [p for p in tally.phases.values() if p[0] == "pinch began"]
    check(pinch and pinch[-1][-1] == "pinch cancelled", f"vanish: the pinch ended as {pinch[-1][-1] if pinch else None}")
    check(tally.cancelled_touches >= 2, f"vanish: {tally.cancelled_touches} touches cancelled, expected 2")
    print(f"  vanish (unplugged): {tally.summary()}", flush=True)


TESTS = [
    fixture_case("tracking-id-jump.evemu"),
    fixture_case("slot-beyond-range.evemu"),
    fixture_case("values-beyond-range.evemu"),
    fixture_case("missing-syn-report.evemu"),
    fixture_case("vanish-mid-frame.evemu", expect_cancel=True),
    fixture_case("syn-dropped.evemu"),
    test_vanish_mid_frame_unplugged,
    test_storm_10k_frames_per_second,
    test_storm_while_stopped_syn_dropped,
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    ctx = Context(args.bin, tempfile.mkdtemp(prefix="handyd-misbehaving-", dir="/run"))
    sys.exit(1 if run_tests(TESTS, ctx, args.only) else 0)


if __name__ == "__main__":
    main()
