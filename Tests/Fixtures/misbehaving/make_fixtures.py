#!/usr/bin/env python3
"""Writes the misbehaving-device recordings in this folder (evemu text). Deterministic: running it
again gives the same files. The tests (Tests/HandyCoreTests/MisbehavingDeviceTests.swift) assert
counts that follow from what each file contains, listed in README.md.

All use one device: a 10-slot protocol-B touchscreen, 1920 x 1080 units at 10 units/mm.
"""
import os
import sys

# One evemu writer for the synthetic panel, shared with the guest tests.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
from evemu_text import W, H, EvemuEvents  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


class Stream(EvemuEvents):
    def write(self, filename, what):
        with open(os.path.join(HERE, filename), "w") as f:
            f.write(f"# {what}\n# Written by make_fixtures.py.\n")
            f.write(self.text("handyd-test misbehaving touchscreen"))


def pinch_positions(i, steps, cx=W // 2, cy=H // 2, start=150, end=40):
    h = start + (end - start) * i / steps
    return (int(cx + h), int(cy - h)), (int(cx - h), int(cy + h))


def pinch(s, t0, steps, tids=(100, 101), syn_every=True, skip_syn=()):
    """Two fingers (slots 0, 1) closing in, one frame per 12 ms; returns the next free time."""
    for i in range(steps + 1):
        t = t0 + i * 0.012
        a, b = pinch_positions(i, steps)
        s.abs(t, 0x2f, 0)
        if i == 0:
            s.abs(t, 0x39, tids[0])
        s.abs(t, 0x35, a[0]); s.abs(t, 0x36, a[1])
        s.abs(t, 0x2f, 1)
        if i == 0:
            s.abs(t, 0x39, tids[1])
        s.abs(t, 0x35, b[0]); s.abs(t, 0x36, b[1])
        if i == 0:
            s.ev(t, 1, 0x14a, 1)
        if i not in skip_syn:
            s.syn(t)
    return t0 + (steps + 1) * 0.012


def lift_both(s, t):
    s.abs(t, 0x2f, 0); s.abs(t, 0x39, -1)
    s.abs(t, 0x2f, 1); s.abs(t, 0x39, -1)
    s.ev(t, 1, 0x14a, 0)
    s.syn(t)


def tracking_id_jump():
    s = Stream()
    t = pinch(s, 0.0, 20)
    s.comment("slot 0 jumps to tracking id 150 without a -1 (the old contact must be cancelled)")
    s.abs(t, 0x2f, 0); s.abs(t, 0x39, 150); s.abs(t, 0x35, 1100); s.syn(t)
    t += 0.012
    s.comment("slot 1 repeats its tracking id 101 without a lift (no change: same contact)")
    s.abs(t, 0x2f, 1); s.abs(t, 0x39, 101); s.abs(t, 0x35, 900); s.syn(t)
    t += 0.012
    s.comment("slot 1 jumps to 151, slot 0 to 152, in one frame")
    s.abs(t, 0x2f, 1); s.abs(t, 0x39, 151); s.abs(t, 0x2f, 0); s.abs(t, 0x39, 152); s.syn(t)
    t += 0.012
    lift_both(s, t)
    s.write("tracking-id-jump.evemu", "Tracking ids that jump (3 times) or repeat (once) without a lift, during a pinch.")


def slot_beyond_range():
    s = Stream()
    t = pinch(s, 0.0, 20)
    for k, slot in enumerate([10, 15, -1, 2147483647]):
        s.comment(f"slot {slot} is beyond the declared 0..9")
        s.abs(t, 0x2f, slot); s.abs(t, 0x39, 500 + k); s.abs(t, 0x35, 100); s.abs(t, 0x36, 100)
        s.abs(t, 0x2f, 0); s.abs(t, 0x35, 1100 - k); s.syn(t)
        t += 0.012
    lift_both(s, t)
    s.write("slot-beyond-range.evemu", "A pinch with contacts in slots 10, 15, -1 and 2147483647 of a 10-slot device.")


def values_beyond_range():
    s = Stream()
    t = pinch(s, 0.0, 10)
    s.comment("positions beyond min/max: 4 out-of-range values")
    s.abs(t, 0x2f, 0); s.abs(t, 0x35, -500); s.abs(t, 0x36, 5000)
    s.abs(t, 0x2f, 1); s.abs(t, 0x35, 2147483647); s.abs(t, 0x36, -2147483648); s.syn(t)
    t += 0.012
    s.comment("back in range")
    s.abs(t, 0x2f, 0); s.abs(t, 0x35, 1000); s.abs(t, 0x36, 500)
    s.abs(t, 0x2f, 1); s.abs(t, 0x35, 900); s.abs(t, 0x36, 600); s.syn(t)
    t += 0.012
    lift_both(s, t)
    s.write("values-beyond-range.evemu", "A pinch whose positions go beyond the axis ranges (4 values), then back.")


def missing_syn_report():
    s = Stream()
    s.comment("frames 3, 4 and 9 of the pinch have no SYN_REPORT (merged into the next frame)")
    t = pinch(s, 0.0, 12, skip_syn=(3, 4, 9))
    s.comment("slot 0 lifts and a new contact begins in it with no SYN_REPORT between")
    s.abs(t, 0x2f, 0); s.abs(t, 0x39, -1)
    s.abs(t, 0x39, 102); s.abs(t, 0x35, 700); s.abs(t, 0x36, 700); s.syn(t)
    t += 0.012
    s.comment("slot 2 begins and lifts in one frame")
    s.abs(t, 0x2f, 2); s.abs(t, 0x39, 103); s.abs(t, 0x35, 300); s.abs(t, 0x36, 300); s.abs(t, 0x39, -1); s.syn(t)
    t += 0.012
    s.comment("the last frame (the lift) has no SYN_REPORT: the stream just stops")
    s.abs(t, 0x2f, 0); s.abs(t, 0x39, -1)
    s.abs(t, 0x2f, 1); s.abs(t, 0x39, -1)
    s.ev(t, 1, 0x14a, 0)
    s.write("missing-syn-report.evemu", "Frames without SYN_REPORT: merged frames, a lift and a new contact in one frame, an unterminated last frame.")


def vanish_mid_frame():
    s = Stream()
    t = pinch(s, 0.0, 20)
    s.comment("the device vanishes here: half a frame, no SYN_REPORT, fingers still down")
    s.abs(t, 0x2f, 0); s.abs(t, 0x35, 1000); s.abs(t, 0x36, 500)
    s.abs(t, 0x2f, 1)
    s.write("vanish-mid-frame.evemu", "A pinch in progress; the recording stops in the middle of a frame with both fingers down.")


def syn_dropped():
    s = Stream()
    t = pinch(s, 0.0, 20)
    s.comment("SYN_DROPPED as evemu-record writes it (libevdev's resync): the device's state now. Both")
    s.comment("fingers were lifted in the lost events, so their touches must be cancelled, not ended.")
    s.ev(t, 0, 3, 0)
    s.abs(t, 0x2f, 0); s.abs(t, 0x39, -1); s.abs(t, 0x2f, 1); s.abs(t, 0x39, -1)
    s.ev(t, 1, 0x14a, 0); s.syn(t)
    t += 0.1
    s.comment("a later one-finger tap")
    s.abs(t, 0x2f, 0); s.abs(t, 0x39, 200); s.abs(t, 0x35, 400); s.abs(t, 0x36, 400); s.ev(t, 1, 0x14a, 1); s.syn(t)
    t += 0.05
    s.abs(t, 0x39, -1); s.ev(t, 1, 0x14a, 0); s.syn(t)
    s.write("syn-dropped.evemu", "SYN_DROPPED during a pinch (libevdev resync form: both fingers gone), then a later one-finger tap.")


def time_goes_back():
    s = Stream()
    t = pinch(s, 1.0, 20)
    lift_both(s, t)
    s.comment("a tap stamped before the pinch ended (the clock went back 0.2 s): 9 events earlier than one before")
    back = t - 0.2
    s.abs(back, 0x2f, 0); s.abs(back, 0x39, 200); s.abs(back, 0x35, 400); s.abs(back, 0x36, 400); s.ev(back, 1, 0x14a, 1); s.syn(back)
    back += 0.05
    s.abs(back, 0x39, -1); s.ev(back, 1, 0x14a, 0); s.syn(back)
    t += 1.0
    s.comment("the clock is right again: a later one-finger tap")
    s.abs(t, 0x39, 201); s.abs(t, 0x35, 1400); s.abs(t, 0x36, 600); s.ev(t, 1, 0x14a, 1); s.syn(t)
    t += 0.05
    s.abs(t, 0x39, -1); s.ev(t, 1, 0x14a, 0); s.syn(t)
    s.write("time-goes-back.evemu", "A pinch, then a tap whose events are stamped 0.2 s before the pinch's lift, then a later tap.")


if __name__ == "__main__":
    tracking_id_jump()
    slot_beyond_range()
    values_beyond_range()
    missing_syn_report()
    vanish_mid_frame()
    syn_dropped()
    time_goes_back()
