#!/usr/bin/env python3
"""Writes the device-health fixtures (evemu, the synthetic test panel of scripts/evemu_text.py).

  stuck-contact-pinch.evemu  one contact held still (jitter within 0.3 mm) for 35 s at the lower
                             left, while at 31 s a right hand pinches beside it (index up and to the
                             right of the thumb, closing from 60 to 20 mm apart); everything lifts at 35 s.
                             Before handyd left stuck contacts out it read a 35 s one-finger long
                             press that became a three-finger long press and pan, and no pinch.
  stuck-every-slot.evemu     all 10 slots down and still for 32 s, then lifted one by one.

Deterministic (no randomness): run it again and the files come out byte for byte the same.
  python3 Tests/Fixtures/health/make_health_fixtures.py
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "scripts"))
from evemu_text import EvemuEvents  # noqa: E402

ABS_X, ABS_Y, SLOT, POS_X, POS_Y, TRACKING = 0x00, 0x01, 0x2F, 0x35, 0x36, 0x39
BTN_TOUCH = 0x14A


class Frames(EvemuEvents):
    def __init__(self):
        super().__init__()
        self.down = {}   # slot -> (x, y)
        self.tid = 1

    def frame(self, t, contacts):
        """contacts: {slot: (x, y) | None}; slots not named are unchanged."""
        was_down = bool(self.down)
        for slot, pos in sorted(contacts.items()):
            if pos is None and slot not in self.down:
                continue
            self.abs(t, SLOT, slot)
            if pos is None:
                self.abs(t, TRACKING, -1)
                del self.down[slot]
                continue
            if slot not in self.down:
                self.abs(t, TRACKING, self.tid)
                self.tid += 1
            old = self.down.get(slot)
            if old is None or old[0] != pos[0]:
                self.abs(t, POS_X, pos[0])
            if old is None or old[1] != pos[1]:
                self.abs(t, POS_Y, pos[1])
            self.down[slot] = pos
        if self.down and not was_down:
            self.ev(t, 1, BTN_TOUCH, 1)
        if was_down and not self.down:
            self.ev(t, 1, BTN_TOUCH, 0)
        if self.down:
            x, y = self.down[min(self.down)]
            self.abs(t, ABS_X, x)
            self.abs(t, ABS_Y, y)
        self.syn(t)


def jitter(i):
    """-3..3 units (0.3 mm) in a fixed pattern."""
    return (0, 2, 3, 1, -1, -3, -2, 0, 1, -1)[i % 10]


def stuck_contact_pinch():
    f = Frames()
    f.comment("handyd device-health fixture: a contact still for 35 s, a right-hand pinch beside it at 31 s")
    ghost = (60, 1020)
    pinch_start, pinch_frames, cx, cy = 31.0, 50, 1200, 500
    t, i = 0.0, 0
    pinch_step = 0
    while t < 35.0 - 1e-9:
        contacts = {0: (ghost[0] + jitter(i), ghost[1] + jitter(i + 3))}
        if pinch_start <= t and pinch_step <= pinch_frames:
            h = 200 - (100 * pinch_step) // pinch_frames
            contacts[1] = (cx + h, cy - h)   # index: up and to the right of the thumb
            contacts[2] = (cx - h, cy + h)   # thumb
            pinch_step += 1
        elif pinch_step > pinch_frames and 1 in f.down:
            contacts[1] = None
            contacts[2] = None
        f.frame(round(t, 6), contacts)
        # 10 frames a second while only the ghost is down, 100 while the pinch moves.
        t += 0.01 if pinch_start - 0.01 <= t < pinch_start + 0.6 else 0.1
        i += 1
    f.frame(35.0, {0: None})
    return f


def stuck_every_slot():
    f = Frames()
    f.comment("handyd device-health fixture: all 10 slots still for 32 s, then lifted one by one")
    positions = {s: (150 + 170 * s, 300 + 40 * s) for s in range(10)}
    t, i = 0.0, 0
    while t < 32.0 - 1e-9:
        f.frame(round(t, 6), {s: (x + jitter(i + s), y + jitter(i + s + 5)) for s, (x, y) in positions.items()})
        t += 0.1
        i += 1
    for s in range(10):
        f.frame(round(32.0 + 0.05 * s, 6), {s: None})
    return f


def main():
    for name, frames in [("stuck-contact-pinch.evemu", stuck_contact_pinch()), ("stuck-every-slot.evemu", stuck_every_slot())]:
        with open(os.path.join(HERE, name), "w") as out:
            out.write(frames.text("handyd-test touchscreen"))


if __name__ == "__main__":
    main()
