#!/usr/bin/env python3
"""Turns CapFingerId's capacitive images of taps (real hands, the hand and finger stated) into labelled evemu files.

Source: github.com/interactionlab/CapFingerId @6474f36 (MIT, (c) 2018 Interaction Lab; Le, Mayer,
Henze, IUI '19), data/CapMatrix_P<n>_<finger>_<hand>.txt. Each line is one capacitive image of an
LG Nexus 5: `participant;hand;finger;task;-1;sec,nsec,v0,...,v404`, the 405 values being 27 rows
(the phone's long axis, top to bottom) of 15 columns (left to right), as the repository's notebook
reads them (`reshape(27, 15)`), sampled about every 70 ms. Only the thumb and index files, and only
their TAP lines, are used; of those, the repository snapshot holds 37 files (the others are
missing from it).

How: lines that repeat an earlier line's timestamp and image are dropped and the rest sorted by
time. In each image a blob is a 4-connected set of at least 3 electrodes above 30 (the threshold of
the repository's own blob detection; untouched electrodes read within about +-5, and isolated
single electrodes sometimes read 80..230, which the 3-electrode minimum leaves out). An image with
one blob is a touch frame; one with two or more is dropped and ends any touch. A touch is a run of
touch frames, each within 0.2 s of the previous one and with its centroid within 12 mm of it. Per
frame, with the electrode pitch of the display (61.65 / 15 = 4.11 mm across, 109.6 / 27 = 4.06 mm
along; electrode centres at (i + 0.5) x pitch), the blob's values above 30 weight its centroid and
its second moments (plus pitch^2 / 12 per axis, the spread of one electrode); major and minor axis
= 4 sqrt(eigenvalue) in mm, orientation of the major axis in the kernel's convention (0 = along the
screen's y axis, positive clockwise, i.e. leaning up and to the right; folded into (-90, 90] degrees).

Out: one evemu recording per participant x finger x hand (p<n>-<finger>-<hand>.evemu): protocol B,
one slot, device "CapFingerId Nexus 5 (capacitive image ellipses)", INPUT_PROP_DIRECT, ABS_X/Y and
ABS_MT_POSITION_X/Y (0..617 x 0..1096, 10 units/mm), ABS_MT_TOUCH_MAJOR/MINOR (10 units/mm),
ABS_MT_ORIENTATION -90..90 (degrees), tracking ids, BTN_TOUCH. Each touch goes down at its first
frame, changes at each of its frames, and lifts at the next image's time (or 70 ms after its last
frame when no image follows within 0.2 s); times are the images' own, from 100 s on, so the pauses
between taps are as recorded. Each file carries

    # handyd-label: hand=<left|right> tier=orientation gesture=tap finger=<thumb|index> person=p<n> source=capfingerid:<file>

With a third argument it also writes a CSV with one row per touch, taken at the touch's frame
with the largest blob sum: person, finger, hand, x_mm, y_mm, major_mm, minor_mm, orientation_rad
(kernel convention), area_mm2 (pi/4 x major x minor), display_w_mm, display_h_mm.

Usage: make_capfingerid_fixtures.py DATA_DIR OUT_DIR [TAPS_CSV]
"""
import math
import os
import re
import sys

WIDTH_MM, HEIGHT_MM = 61.65, 109.6  # Nexus 5: 4.95", 16:9
ROWS, COLS = 27, 15
PITCH_X, PITCH_Y = WIDTH_MM / COLS, HEIGHT_MM / ROWS
THRESHOLD = 30
MIN_CELLS = 3
MAX_GAP_S = 0.2
MAX_JUMP_MM = 12.0
FRAME_S = 0.07
UNITS_PER_MM = 10
MAX_X, MAX_Y = round(WIDTH_MM * UNITS_PER_MM), round(HEIGHT_MM * UNITS_PER_MM)
MAX_AXIS = 1000
NAME = "CapFingerId Nexus 5 (capacitive image ellipses)"

EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
BTN_TOUCH = 0x14A
ABS_X, ABS_Y = 0x00, 0x01
ABS_MT_SLOT, ABS_MT_TOUCH_MAJOR, ABS_MT_TOUCH_MINOR, ABS_MT_ORIENTATION = 0x2F, 0x30, 0x31, 0x34
ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x35, 0x36, 0x39
FILE_RE = re.compile(r"CapMatrix_P(\d+)_(thumb|index)_(left|right)\.txt$")


def header(comment):
    lines = ["# EVEMU 1.3"] + [f"# {c}" for c in comment]
    lines += [
        f'# Input device name: "{NAME}"',
        f"N: {NAME}",
        "I: 0003 1d6b 0105 0001",
        "P: 02 00 00 00 00 00 00 00",  # INPUT_PROP_DIRECT
        "B: 00 0b 00 00 00 00 00 00 00",
    ]
    lines += ["B: 01 00 00 00 00 00 00 00 00"] * 5
    lines += ["B: 01 00 04 00 00 00 00 00 00"]  # BTN_TOUCH
    lines += ["B: 01 00 00 00 00 00 00 00 00"] * 6
    lines += [
        "B: 02 00 00 00 00 00 00 00 00",
        "B: 03 03 00 00 00 00 80 73 02",  # ABS_X/Y, MT_SLOT, MT_TOUCH_MAJOR/MINOR, MT_ORIENTATION, MT_POSITION_X/Y, MT_TRACKING_ID
        "B: 04 00 00 00 00 00 00 00 00",
        "B: 05 00 00 00 00 00 00 00 00",
        "B: 11 00 00 00 00 00 00 00 00",
        "B: 12 00 00 00 00 00 00 00 00",
        "B: 14 00 00 00 00 00 00 00 00",
        "B: 15 00 00 00 00 00 00 00 00",
        "B: 15 00 00 00 00 00 00 00 00",
        f"A: 00 0 {MAX_X} 0 0 {UNITS_PER_MM}",
        f"A: 01 0 {MAX_Y} 0 0 {UNITS_PER_MM}",
        "A: 2f 0 0 0 0 0",
        f"A: 30 0 {MAX_AXIS} 0 0 {UNITS_PER_MM}",
        f"A: 31 0 {MAX_AXIS} 0 0 {UNITS_PER_MM}",
        "A: 34 -90 90 0 0 0",
        f"A: 35 0 {MAX_X} 0 0 {UNITS_PER_MM}",
        f"A: 36 0 {MAX_Y} 0 0 {UNITS_PER_MM}",
        "A: 39 0 65535 0 0 0",
    ]
    return lines


def images(path):
    """(time s, 27 x 15 list of rows) of the TAP lines, repeats dropped, in time order."""
    seen, out = set(), []
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split(";")
            if len(parts) < 6 or parts[3] != "TAP":
                continue
            v = parts[5].split(",")
            if len(v) < 2 + ROWS * COLS:
                continue
            try:
                t = int(v[0]) + int(v[1]) / 1e9
                vals = [int(x) if x not in ("", "-") else 0 for x in v[2:2 + ROWS * COLS]]
            except ValueError:
                continue
            key = (v[0], v[1], tuple(vals))
            if key in seen:
                continue
            seen.add(key)
            out.append((t, [vals[r * COLS:(r + 1) * COLS] for r in range(ROWS)]))
    out.sort(key=lambda e: e[0])
    return out


def blobs(m):
    seen = [[False] * COLS for _ in range(ROWS)]
    found = []
    for r in range(ROWS):
        for c in range(COLS):
            if seen[r][c] or m[r][c] <= THRESHOLD:
                continue
            seen[r][c] = True
            stack, cells = [(r, c)], []
            while stack:
                a, b = stack.pop()
                cells.append((a, b))
                for u, w in ((a + 1, b), (a - 1, b), (a, b + 1), (a, b - 1)):
                    if 0 <= u < ROWS and 0 <= w < COLS and not seen[u][w] and m[u][w] > THRESHOLD:
                        seen[u][w] = True
                        stack.append((u, w))
            if len(cells) >= MIN_CELLS:
                found.append(cells)
    return found


def ellipse(m, cells):
    """(x mm, y mm, major mm, minor mm, orientation rad in the kernel convention, blob sum)."""
    w = [float(m[r][c]) for r, c in cells]
    xs = [(c + 0.5) * PITCH_X for r, c in cells]
    ys = [(r + 0.5) * PITCH_Y for r, c in cells]
    s = sum(w)
    mx = sum(a * x for a, x in zip(w, xs)) / s
    my = sum(a * y for a, y in zip(w, ys)) / s
    sxx = sum(a * (x - mx) ** 2 for a, x in zip(w, xs)) / s + PITCH_X ** 2 / 12
    syy = sum(a * (y - my) ** 2 for a, y in zip(w, ys)) / s + PITCH_Y ** 2 / 12
    sxy = sum(a * (x - mx) * (y - my) for a, x, y in zip(w, xs, ys)) / s
    half, det = (sxx + syy) / 2, sxx * syy - sxy * sxy
    root = math.sqrt(max(half * half - det, 0.0))
    major, minor = 4 * math.sqrt(half + root), 4 * math.sqrt(max(half - root, 0.0))
    phi = 0.5 * math.atan2(2 * sxy, sxx - syy)  # major axis from +x towards +y (y down)
    theta = math.atan2(math.cos(phi), -math.sin(phi))  # from "up" (-y), clockwise
    if theta > math.pi / 2:
        theta -= math.pi
    if theta <= -math.pi / 2:
        theta += math.pi
    return mx, my, major, minor, theta, s


def touches(frames):
    """Runs of one-blob frames: [(time, ellipse)], plus the time of the image after each run."""
    runs, current = [], []
    for i, (t, m) in enumerate(frames):
        found = blobs(m)
        e = ellipse(m, found[0]) if len(found) == 1 else None
        if current and (e is None or t - current[-1][0] > MAX_GAP_S
                        or math.hypot(e[0] - current[-1][1][0], e[1] - current[-1][1][1]) > MAX_JUMP_MM):
            runs.append((current, t if t - current[-1][0] <= MAX_GAP_S else None))
            current = []
        if e is not None:
            current.append((t, e))
    if current:
        runs.append((current, None))
    return runs


def events(runs):
    out, next_id = [], 0
    t0 = runs[0][0][0][0]

    def emit(t, ev):
        out.extend(f"E: {100.0 + t - t0:.6f} {typ:04x} {code:04x} {value:04d}" for typ, code, value in ev + [(EV_SYN, 0, 0)])

    for k, (frames, after) in enumerate(runs):
        last = {}
        for i, (t, (x, y, major, minor, theta, _)) in enumerate(frames):
            ev = [(EV_ABS, ABS_MT_TRACKING_ID, next_id)] if i == 0 else []
            values = [
                (ABS_MT_POSITION_X, min(max(round(x * UNITS_PER_MM), 0), MAX_X)),
                (ABS_MT_POSITION_Y, min(max(round(y * UNITS_PER_MM), 0), MAX_Y)),
                (ABS_MT_TOUCH_MAJOR, min(round(major * UNITS_PER_MM), MAX_AXIS)),
                (ABS_MT_TOUCH_MINOR, min(round(minor * UNITS_PER_MM), MAX_AXIS)),
                (ABS_MT_ORIENTATION, max(-90, min(90, round(math.degrees(theta))))),
            ]
            for code, value in values:
                if last.get(code) != value:
                    ev.append((EV_ABS, code, value))
                    last[code] = value
            if i == 0:
                ev += [(EV_KEY, BTN_TOUCH, 1)]
            ev += [(EV_ABS, ABS_X, last[ABS_MT_POSITION_X])] if any(c == ABS_MT_POSITION_X for _, c, _ in ev) else []
            ev += [(EV_ABS, ABS_Y, last[ABS_MT_POSITION_Y])] if any(c == ABS_MT_POSITION_Y for _, c, _ in ev) else []
            if len(ev) > 0:
                emit(t, ev)
        lift = after - 0.001 if after is not None else frames[-1][0] + FRAME_S
        if k + 1 < len(runs):
            lift = min(lift, runs[k + 1][0][0][0] - 0.001)
        emit(lift, [(EV_ABS, ABS_MT_TRACKING_ID, -1), (EV_KEY, BTN_TOUCH, 0)])
        next_id = (next_id + 1) % 65536
    return out


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    source, target = sys.argv[1], sys.argv[2]
    os.makedirs(target, exist_ok=True)
    rows, written, counts = [], 0, []
    names = sorted((n for n in os.listdir(source) if FILE_RE.search(n)),
                   key=lambda n: (int(FILE_RE.search(n).group(1)), n))
    for file_name in names:
        person, finger, hand = FILE_RE.search(file_name).groups()
        runs = touches(images(os.path.join(source, file_name)))
        if not runs:
            continue
        tag = f"capfingerid:{file_name}"
        comment = [
            "Real hands: CapFingerId (github.com/interactionlab/CapFingerId @6474f36, MIT, (c) 2018 Interaction Lab),",
            f"data/{file_name}, TAP task: {len(runs)} touches, one ellipse per capacitive image;",
            "converted by Tests/Fixtures/realhands/make_capfingerid_fixtures.py (10 units/mm, orientation in degrees)",
            f"handyd-label: hand={hand} tier=orientation gesture=tap finger={finger} person=p{person} source={tag}",
        ]
        out = os.path.join(target, f"p{person}-{finger}-{hand}.evemu")
        with open(out, "w") as f:
            f.write("\n".join(header(comment) + events(runs)) + "\n")
        written += 1
        counts.append(f"p{person} {finger} {hand}: {len(runs)} touches, {sum(len(r[0]) for r in runs)} frames")
        for frames, _ in runs:
            x, y, major, minor, theta, _ = max(frames, key=lambda fe: fe[1][5])[1]
            rows.append(f"p{person},{finger},{hand},{x:.3f},{y:.3f},{major:.3f},{minor:.3f},{theta:.5f},"
                        f"{math.pi / 4 * major * minor:.2f},{WIDTH_MM},{HEIGHT_MM}")
    if len(sys.argv) == 4:
        with open(sys.argv[3], "w") as f:
            f.write("person,finger,hand,x_mm,y_mm,major_mm,minor_mm,orientation_rad,area_mm2,display_w_mm,display_h_mm\n")
            f.write("\n".join(rows) + "\n")
    print("\n".join(counts))
    print(f"wrote {written} recordings to {target} ({len(rows)} touches)")


if __name__ == "__main__":
    main()
