#!/usr/bin/env python3
"""Turns DISPEL's recordings of real hands (the hand stated) into labelled evemu files.

Source: github.com/newcastleuniversity/DISPEL @35e8bba (MIT, (c) 2023 Biogen Inc.),
tests/providers/bdh/_resources/{PINCH,FINGERTAP,DRAW}/*.json: Konectom sessions on phones, one
level per hand (`configuration.hand`, or `configuration.drawing_hand` for drawing). The touch log
gives, per touch event, the time (ms), a path id per finger, x and y, start/move/end, and for most
drawing sessions a pressure.

PINCH (`pinch-activity`; out: dispel/): for 30 s the person pinches targets on the screen with two
fingers of that hand (which two is not recorded); x and y in points (iOS) or dp (Android). One
evemu recording per pinch attempt (from the first finger down until no finger is down, kept when
two fingers were down at once), on a protocol-B device of the phone's screen size at 10 units/mm,
positions only (no contact size or orientation is logged; the iPhone X's force is left out so every
file is the positions tier), each with

    # handyd-label: hand=<left|right> tier=positions source=dispel:<file>:<level>:<attempt>

so `handyctl eval handedness Tests/Fixtures/realhands/dispel` evaluates them as they are. The
study's pseudonymous user and study ids are not copied. `bug-pinch.json` (an iPhone SE, model
iPhone8,4) is converted too, as `iphonese-<level index>-left-<attempt>.evemu` with
`source=dispel:bug-pinch.json:<level index>-left:<attempt>`: both of its levels are labelled left
(DISPEL keeps it as a test of that fault), so one of the two labels is probably wrong; its files go
to dispel-bugpinch/, apart from the labelled set.

FINGERTAP (`fingertap-activity`; out: dispel-fingertap/): the person taps two targets alternately
with one finger of the level's hand. x and y are in pixels (DISPEL's unit) of what appears to be
the tapping view rather than the whole screen (they span a band a few mm high), so the absolute
position is not meaningful, the geometry within a level is. Pixels become mm through the phone's
pixel density: iPhone 12 (iPhone13,2) 64 mm / 1170 px, as DISPEL's own iPhone 12 pinch header
gives; HONOR 20 LITE (MAR-LX3A; 6.15", 1080 x 2312 px) 25.4 / 415 mm per px. `fingertap_2.json`
(model name "Slate 7 Extreme", 720 x 1520 px, no size logged and no known device of that name at
that resolution) is skipped.

DRAW (`drawing-activity`; out: dispel-draw/): the person traces a figure (square, spiral, infinity
loop) with one finger of the level's hand; x and y in points or dp, pressure in DISPEL's "N" (iOS
force, 0..1), written as ABS_MT_PRESSURE x 1000 when the level logs any. Skipped: levels whose name
(`..._right_hand`/`..._left_hand`) contradicts `drawing_hand` (all of `uat_drawing.json`), and
`uat_drawing_one_hand.json` (the same eight levels again).

FINGERTAP and DRAW give one evemu recording per level: all its touches in time order on a
protocol-B device (one slot per finger down at once, 10 units/mm), a start for a path already down
first lifting the old contact, a contact still down at the level's end lifted at its last event,
each with

    # handyd-label: hand=<left|right> tier=<positions|size> gesture=<tap|draw> source=dispel:<file>:<level>

(tier=size when ABS_MT_PRESSURE is written).

Usage: make_dispel_fixtures.py RESOURCES_DIR REALHANDS_DIR
       (RESOURCES_DIR: DISPEL's tests/providers/bdh/_resources; writes REALHANDS_DIR/dispel,
       REALHANDS_DIR/dispel-fingertap, REALHANDS_DIR/dispel-draw)
"""
import json
import os
import sys

FILES = {
    "uat_pinch.json": "iphone12",
    "pinch_radius_lvl_index.json": "iphonex",
    "uat_pinch_overwrite.json": "galaxys10",
    "0ff8a0e4-204f-410e-8988-7d993ddb0724.json": "reno2z",
    "bug-pinch.json": "iphonese",
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


ABS_MT_PRESSURE = 0x3A
PRESSURE_MAX = 1000
BUG_PINCH = ("bug-pinch.json", "iphonese")
FINGERTAP_MM_PER_PX = {
    "iPhone13,2": 64 / 1170,  # iPhone 12: DISPEL's iPhone 12 pinch header, 64 mm over 390 pt = 1170 px
    "HONOR 20 LITE": 25.4 / 415,  # MAR-LX3A: 6.15", 1080 x 2312 px, 415 ppi
}
FINGERTAP_SCREEN_PX = {"iPhone13,2": (1170, 2532), "HONOR 20 LITE": (1080, 2312)}
SHORT = {"iPhone13,2": "iphone12", "HONOR 20 LITE": "honor20lite", "Galaxy M30s": "galaxym30s",
         "iPhone10,3": "iphonex", "iPhone10,6": "iphonex", "iPhone9,1": "iphone7", "iPhone14,2": "iphone13pro",
         "iPhone11,2": "iphonexs"}


def level_header(name, max_x, max_y, comment, pressure):
    lines = header(name, max_x, max_y, comment)
    if pressure:
        i = lines.index("B: 03 03 00 00 00 00 80 60 02")
        lines[i] = "B: 03 03 00 00 00 00 80 60 06"  # ... and MT_PRESSURE
        lines.append(f"A: 3a 0 {PRESSURE_MAX} 0 0 0")
    return lines


def level_events(touch_events, mm_per_x, mm_per_y, max_x, max_y, pressure):
    """All of a level's touches, in time order, as protocol-B events."""
    n = len(touch_events["x"])
    press = touch_events.get("pressure") or [None] * n
    rows = sorted((t, k, path, x, y, a, p) for k, (t, path, x, y, a, p) in enumerate(zip(
        touch_events["timestamp"], touch_events["touch_path_id"], touch_events["x"], touch_events["y"],
        touch_events["action"], press)) if t is not None and x is not None and y is not None)
    if not rows:
        return []
    t0 = rows[0][0]
    slot_of, free, last_slot, next_id, last = {}, list(range(SLOTS)), 0, 0, {}
    out, touching = [], False

    def lift(path, ev):
        nonlocal last_slot
        slot = slot_of.pop(path)
        if slot != last_slot:
            ev.append((EV_ABS, ABS_MT_SLOT, slot))
            last_slot = slot
        ev.append((EV_ABS, ABS_MT_TRACKING_ID, -1))
        free.append(slot)
        free.sort()

    frames = []
    for row in rows:
        if frames and frames[-1][0] == row[0]:
            frames[-1][1].append(row)
        else:
            frames.append((row[0], [row]))
    for fi, (t, frame) in enumerate(frames):
        ev = []
        for _, _, path, x, y, action, p in frame:
            if action == "start" and path in slot_of:
                lift(path, ev)  # its end was not logged
            if action == "start":
                if not free:
                    continue
                slot_of[path] = free.pop(0)
            if path not in slot_of:
                continue  # a move or end of a finger whose start was not logged
            slot = slot_of[path]
            if slot != last_slot:
                ev.append((EV_ABS, ABS_MT_SLOT, slot))
                last_slot = slot
            if action == "start":
                ev.append((EV_ABS, ABS_MT_TRACKING_ID, next_id))
                next_id = (next_id + 1) % 65536
                for axis in ("x", "y", "p"):
                    last.pop((slot, axis), None)
            ux = min(max(round(x * mm_per_x * UNITS_PER_MM), 0), max_x)
            uy = min(max(round(y * mm_per_y * UNITS_PER_MM), 0), max_y)
            if last.get((slot, "x")) != ux:
                ev.append((EV_ABS, ABS_MT_POSITION_X, ux))
                last[(slot, "x")] = ux
            if last.get((slot, "y")) != uy:
                ev.append((EV_ABS, ABS_MT_POSITION_Y, uy))
                last[(slot, "y")] = uy
            if pressure and p is not None:
                up = min(max(round(p * PRESSURE_MAX), 0), PRESSURE_MAX)
                if last.get((slot, "p")) != up:
                    ev.append((EV_ABS, ABS_MT_PRESSURE, up))
                    last[(slot, "p")] = up
            if action in ("end", "cancel"):
                lift(path, ev)
        if fi == len(frames) - 1:
            for path in sorted(slot_of, key=lambda q: slot_of[q]):
                lift(path, ev)  # still down when the level ended
        now_touching = bool(slot_of)
        if now_touching != touching:
            ev.append((EV_KEY, BTN_TOUCH, 1 if now_touching else 0))
            touching = now_touching
        if not ev:
            continue
        ev.append((EV_SYN, 0, 0))
        time = 100.0 + (t - t0) / 1000.0
        out += [f"E: {time:.6f} {typ:04x} {code:04x} {value:04d}" for typ, code, value in ev]
    return out


def write(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def convert_pinch(source, target):
    written = 0
    for file_name, short in FILES.items():
        with open(os.path.join(source, file_name)) as f:
            data = json.load(f)
        device = data["header"]["acquisition_provenance"]["source_device"]
        width_mm, height_mm = float(device["screen_width_mm"]), float(device["screen_height_mm"])
        width_pt, height_pt = float(device["screen_width_pt_dp"]), float(device["screen_height_pt_dp"])
        max_x, max_y = round(width_mm * UNITS_PER_MM), round(height_mm * UNITS_PER_MM)
        name = f"DISPEL pinch test {device['model_name']} ({device['platform']})"
        bug = file_name == BUG_PINCH[0]
        for index, level in enumerate(data["body"]["levels"]):
            hand = level["configuration"]["hand"]
            level_name = f"{index}-{level.get('name', hand)}" if bug else level.get("name", hand)
            for k, rows in enumerate(attempts(level["raw_data"]["touch_events"])):
                source_tag = f"dispel:{file_name}:{level_name}:{k}"
                comment = [
                    "Real hands: DISPEL (github.com/newcastleuniversity/DISPEL @35e8bba, MIT, (c) 2023 Biogen Inc.),",
                    f"tests/providers/bdh/_resources/PINCH/{file_name}, level {level_name}, attempt {k};",
                    "converted by Tests/Fixtures/realhands/make_dispel_fixtures.py (positions only, 10 units/mm)",
                ]
                if bug:
                    comment.append("both levels of this file are labelled left: one of the two labels is probably wrong")
                comment.append(f"handyd-label: hand={hand} tier=positions source={source_tag}")
                lines = header(name, max_x, max_y, comment)
                lines += events(rows, width_mm / width_pt, height_mm / height_pt, max_x, max_y)
                out = f"{short}-{index}-{hand}-{k:03d}.evemu" if bug else f"{short}-{hand}-{k:03d}.evemu"
                # bug-pinch's labels contradict each other: kept apart so dispel/ stays the labelled set.
                write(os.path.join(target + "-bugpinch" if bug else target, out), lines)
                written += 1
    return written


def convert_levels(kind, source, target):
    """FINGERTAP or DRAW: one recording per level."""
    written, skipped = 0, []
    folder = os.path.join(source, kind)
    for file_name in sorted(os.listdir(folder)):
        if not file_name.endswith(".json"):
            continue
        if file_name == "uat_drawing_one_hand.json":
            skipped.append(f"{file_name}: the first eight levels of uat_drawing.json again")
            continue
        with open(os.path.join(folder, file_name)) as f:
            data = json.load(f)
        device = data["header"]["acquisition_provenance"]["source_device"]
        model = device["model_name"]
        if kind == "FINGERTAP":
            if model not in FINGERTAP_MM_PER_PX:
                skipped.append(f"{file_name}: screen size of {model!r} ({device['screen_width_pixels']} x "
                               f"{device['screen_height_pixels']} px) neither logged nor known")
                continue
            mm_x = mm_y = FINGERTAP_MM_PER_PX[model]
            wpx, hpx = FINGERTAP_SCREEN_PX[model]
            width_mm, height_mm = wpx * mm_x, hpx * mm_y
            name = f"DISPEL finger-tap test {model} ({device['platform']})"
            gesture = "tap"
        else:
            width_mm, height_mm = float(device["screen_width_mm"]), float(device["screen_height_mm"])
            mm_x = width_mm / float(device["screen_width_pt_dp"])
            mm_y = height_mm / float(device["screen_height_pt_dp"])
            name = f"DISPEL drawing test {model} ({device['platform']})"
            gesture = "draw"
        max_x, max_y = round(width_mm * UNITS_PER_MM), round(height_mm * UNITS_PER_MM)
        short = SHORT.get(model, model.lower().replace(" ", "").replace(",", ""))
        stem = file_name[:-5].replace("_", "-")
        for index, level in enumerate(data["body"]["levels"]):
            config = level.get("configuration", {})
            hand = config.get("hand") or config.get("drawing_hand")
            level_name = level.get("name", "")
            where = f"{file_name} level {index} ({level_name})"
            if hand not in ("left", "right"):
                skipped.append(f"{where}: no hand")
                continue
            named = "right" if level_name.endswith("right_hand") else "left" if level_name.endswith("left_hand") else None
            if named and named != hand:
                skipped.append(f"{where}: drawing_hand={hand} contradicts its name")
                continue
            touch_events = level.get("raw_data", {}).get("touch_events", {})
            pressure = any(p is not None for p in touch_events.get("pressure") or [])
            lines = level_events(touch_events, mm_x, mm_y, max_x, max_y, pressure) if touch_events else []
            if not lines:
                skipped.append(f"{where}: no touches")
                continue
            tier = "size" if pressure else "positions"
            source_tag = f"dispel:{file_name}:{level_name or hand}"
            if kind == "DRAW":
                source_tag = f"dispel:{file_name}:{index}-{level_name}"
            comment = [
                "Real hands: DISPEL (github.com/newcastleuniversity/DISPEL @35e8bba, MIT, (c) 2023 Biogen Inc.),",
                f"tests/providers/bdh/_resources/{kind}/{file_name}, level {index} ({level_name}), all its touches;",
                "converted by Tests/Fixtures/realhands/make_dispel_fixtures.py ("
                + ("positions and pressure x 1000" if pressure else "positions only") + ", 10 units/mm)",
                f"handyd-label: hand={hand} tier={tier} gesture={gesture} source={source_tag}",
            ]
            lines = level_header(name, max_x, max_y, comment, pressure) + lines
            figure = level_name.split(".")[1].replace("_", "-") if kind == "DRAW" and "." in level_name else ""
            out = f"{short}-{stem}-{index:02d}-{hand}" + (f"-{figure}" if figure else "") + ".evemu"
            write(os.path.join(target, out), lines)
            written += 1
    return written, skipped


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, target = sys.argv[1], sys.argv[2]
    outs = {k: os.path.join(target, d) for k, d in (("PINCH", "dispel"), ("FINGERTAP", "dispel-fingertap"), ("DRAW", "dispel-draw"))}
    for d in list(outs.values()) + [outs["PINCH"] + "-bugpinch"]:
        os.makedirs(d, exist_ok=True)
    n = convert_pinch(os.path.join(source, "PINCH"), outs["PINCH"])
    print(f"wrote {n} recordings to {outs['PINCH']}")
    for kind in ("FINGERTAP", "DRAW"):
        n, skipped = convert_levels(kind, source, outs[kind])
        print(f"wrote {n} recordings to {outs[kind]}")
        for s in skipped:
            print(f"  skipped {s}")


if __name__ == "__main__":
    main()
