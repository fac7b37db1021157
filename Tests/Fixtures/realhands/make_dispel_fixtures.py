#!/usr/bin/env python3
"""Turns DISPEL's pinch-test recordings (real hands, the hand stated) into labelled evemu files.

Source: github.com/newcastleuniversity/DISPEL @35e8bba (MIT, (c) 2023 Biogen Inc.),
tests/providers/bdh/_resources/PINCH/*.json: Konectom "pinch-activity" sessions on phones. Each
session has one level per hand (`configuration.hand`, left or right): for 30 s the person pinches
targets on the screen with two fingers of that hand (which two is not recorded). The touch log gives, per touch event, the
time (ms), a path id per finger, x and y in points (iOS) or dp (Android), and start/move/end.

Out: one evemu recording per pinch attempt (from the first finger down until no finger is down,
kept when two fingers were down at once), on a protocol-B device of the phone's screen size at
10 units/mm, positions only (no contact size or orientation is logged; the iPhone X's force is
left out so every file is the positions tier), each with

    # handyd-label: hand=<left|right> tier=positions source=dispel:<file>:<level>:<attempt>

so `handyctl eval handedness Tests/Fixtures/realhands/dispel` evaluates them as they are. The
study's pseudonymous user and study ids are not copied. `bug-pinch.json` is left out: both of its
levels are labelled left (DISPEL keeps it as a test of that fault), so one label is wrong.

Usage: make_dispel_fixtures.py PINCH_DIR OUT_DIR
"""
import json
import os
import sys

FILES = {
    "uat_pinch.json": "iphone12",
    "pinch_radius_lvl_index.json": "iphonex",
    "uat_pinch_overwrite.json": "galaxys10",
    "0ff8a0e4-204f-410e-8988-7d993ddb0724.json": "reno2z",
}
UNITS_PER_MM = 10
SLOTS = 10

ABS_X, ABS_Y = 0x00, 0x01
ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x2F, 0x35, 0x36, 0x39
EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
BTN_TOUCH = 0x14A


def header(name, max_x, max_y, comment):
    lines = ["# EVEMU 1.3"] + [f"# {c}" for c in comment]
    lines += [
        f'# Input device name: "{name}"',
        f"N: {name}",
        "I: 0003 1d6b 0105 0001",
        "P: 02 00 00 00 00 00 00 00",  # INPUT_PROP_DIRECT
        "B: 00 0b 00 00 00 00 00 00 00",
    ]
    lines += ["B: 01 00 00 00 00 00 00 00 00"] * 5
    lines += ["B: 01 00 04 00 00 00 00 00 00"]  # BTN_TOUCH
    lines += ["B: 01 00 00 00 00 00 00 00 00"] * 6
    lines += [
        "B: 02 00 00 00 00 00 00 00 00",
        "B: 03 03 00 00 00 00 80 60 02",  # ABS_X, ABS_Y, MT_SLOT, MT_POSITION_X/Y, MT_TRACKING_ID
        "B: 04 00 00 00 00 00 00 00 00",
        "B: 05 00 00 00 00 00 00 00 00",
        "B: 11 00 00 00 00 00 00 00 00",
        "B: 12 00 00 00 00 00 00 00 00",
        "B: 14 00 00 00 00 00 00 00 00",
        "B: 15 00 00 00 00 00 00 00 00",
        "B: 15 00 00 00 00 00 00 00 00",
        f"A: 00 0 {max_x} 0 0 {UNITS_PER_MM}",
        f"A: 01 0 {max_y} 0 0 {UNITS_PER_MM}",
        f"A: 2f 0 {SLOTS - 1} 0 0 0",
        f"A: 35 0 {max_x} 0 0 {UNITS_PER_MM}",
        f"A: 36 0 {max_y} 0 0 {UNITS_PER_MM}",
        "A: 39 0 65535 0 0 0",
    ]
    return lines


def attempts(touch_events):
    """Rows grouped into attempts: each ends when no finger is down."""
    rows = sorted(zip(touch_events["timestamp"], range(len(touch_events["x"])), touch_events["touch_path_id"],
                      touch_events["x"], touch_events["y"], touch_events["action"]))
    current, down, most = [], set(), 0
    for t, _, path, x, y, action in rows:
        if x is None or y is None or t is None:
            continue
        if action == "start":
            down.add(path)
        elif path not in down:
            continue  # a move or end of a finger whose start was not logged
        current.append((t, path, x, y, action))
        most = max(most, len(down))
        if action in ("end", "cancel"):
            down.discard(path)
            if not down:
                if most >= 2:
                    yield current
                current, most = [], 0
    # An attempt still open when the level ended is left out (its fingers never lifted).


def events(rows, mm_per_x, mm_per_y, max_x, max_y):
    out = []
    t0 = rows[0][0]
    slot_of, free, last_slot, next_id = {}, list(range(SLOTS)), 0, 0
    last = {}
    frames = []
    for row in rows:
        if frames and frames[-1][0] == row[0]:
            frames[-1][1].append(row)
        else:
            frames.append((row[0], [row]))
    touching = False
    for t, frame in frames:
        time = 100.0 + (t - t0) / 1000.0
        ev = []
        ended = []
        for _, path, x, y, action in frame:
            if action == "start":
                if path in slot_of or not free:
                    continue
                slot_of[path] = free.pop(0)
            if path not in slot_of:
                continue
            slot = slot_of[path]
            if slot != last_slot:
                ev.append((EV_ABS, ABS_MT_SLOT, slot))
                last_slot = slot
            if action == "start":
                ev.append((EV_ABS, ABS_MT_TRACKING_ID, next_id))
                next_id = (next_id + 1) % 65536
            ux = min(max(round(x * mm_per_x * UNITS_PER_MM), 0), max_x)
            uy = min(max(round(y * mm_per_y * UNITS_PER_MM), 0), max_y)
            if last.get((slot, "x")) != ux:
                ev.append((EV_ABS, ABS_MT_POSITION_X, ux))
                last[(slot, "x")] = ux
            if last.get((slot, "y")) != uy:
                ev.append((EV_ABS, ABS_MT_POSITION_Y, uy))
                last[(slot, "y")] = uy
            if action in ("end", "cancel"):
                ev.append((EV_ABS, ABS_MT_TRACKING_ID, -1))
                ended.append(path)
        for path in ended:
            free.append(slot_of.pop(path))
            free.sort()
        now_touching = bool(slot_of)
        if now_touching != touching:
            ev.append((EV_KEY, BTN_TOUCH, 1 if now_touching else 0))
            touching = now_touching
        if not ev:
            continue
        ev.append((EV_SYN, 0, 0))
        out += [f"E: {time:.6f} {typ:04x} {code:04x} {value:04d}" for typ, code, value in ev]
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, target = sys.argv[1], sys.argv[2]
    os.makedirs(target, exist_ok=True)
    written = 0
    for file_name, short in FILES.items():
        with open(os.path.join(source, file_name)) as f:
            data = json.load(f)
        device = data["header"]["acquisition_provenance"]["source_device"]
        width_mm, height_mm = float(device["screen_width_mm"]), float(device["screen_height_mm"])
        width_pt, height_pt = float(device["screen_width_pt_dp"]), float(device["screen_height_pt_dp"])
        max_x, max_y = round(width_mm * UNITS_PER_MM), round(height_mm * UNITS_PER_MM)
        name = f"DISPEL pinch test {device['model_name']} ({device['platform']})"
        for level in data["body"]["levels"]:
            hand = level["configuration"]["hand"]
            for k, rows in enumerate(attempts(level["raw_data"]["touch_events"])):
                source_tag = f"dispel:{file_name}:{level.get('name', hand)}:{k}"
                comment = [
                    "Real hands: DISPEL (github.com/newcastleuniversity/DISPEL @35e8bba, MIT, (c) 2023 Biogen Inc.),",
                    f"tests/providers/bdh/_resources/PINCH/{file_name}, level {level.get('name', hand)}, attempt {k};",
                    "converted by Tests/Fixtures/realhands/make_dispel_fixtures.py (positions only, 10 units/mm)",
                    f"handyd-label: hand={hand} tier=positions source={source_tag}",
                ]
                lines = header(name, max_x, max_y, comment)
                lines += events(rows, width_mm / width_pt, height_mm / height_pt, max_x, max_y)
                out = os.path.join(target, f"{short}-{hand}-{k:03d}.evemu")
                with open(out, "w") as f:
                    f.write("\n".join(lines) + "\n")
                written += 1
    print(f"wrote {written} recordings to {target}")


if __name__ == "__main__":
    main()
