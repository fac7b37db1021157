#!/usr/bin/env python3
"""The Qt Quick (examples/qt/popover.py) and GTK 4 (examples/gtk/popover.py) examples headless,
against the real handyd replaying the demo recording: Qt on its offscreen platform (software Qt
Quick), GTK on Xvfb (Debian's xvfb). Each example, with --exit-after-pinches 4 --screenshots DIR:

1. starts before handyd: it must say it is waiting (a JSON line, and on screen: waiting.png shows
   the banner);
2. handyd starts (--wait-clients 1): the example connects and sees the demo's right- and left-hand
   pinch;
3. handyd stops (SIGTERM) and a new one starts on the same socket, now with the panel's calibration
   matrix for a display turned 90° (HANDYD_CALIBRATION_MATRIX, docs/DEVICES.md): the example says
   it is waiting again, reconnects, takes the display's portrait proportions from `hello` (its view
   the whole window), sees both pinches again, and exits 0 after the fourth.

From the JSON line the example prints per placement it checks: every popover is on the window and
out of the region the hand covers (the polygon it reports, with the Python client's overlap test);
each pinch's popover at `began` is placed by `beside-clear-side` on the event's clearSide (left of
the fingers by the gap for clearSide left, right of them for right); the first run's pinches are the
demo's right and left hand. The PNGs (the window's own
pixels, saved by the example: QQuickWindow.grabWindow, GTK's snapshot rendered to a texture) are
read back: the right size, the popover's colour inside the rectangle the line reported, and not
at its mirror image across the fingers (the covered side).

Every wait has a deadline; handyd, Xvfb and the examples are killed on failure. Artefacts (PNGs,
each example's output, handyd's logs) go to ARTEFACTS/qt-example and ARTEFACTS/gtk-example
(default .build/artefacts/).

  scripts/gui_examples_test.py [--bin DIR_OF_HANDYD] [--artefacts DIR] [qt] [gtk]   # HANDYD_BIN, else .build/debug
"""
import argparse, json, os, queue, shutil, struct, subprocess, sys, tempfile, threading, time, zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from handyd_harness import ROOT, DEADLINE, Failure, check, start_demo_daemon, start_xvfb, stop  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
from handyd import rect_overlaps_polygon  # noqa: E402
GAP = 56  # both examples'
POPOVER_RGB = (0x26, 0x46, 0x53)  # both examples' popover
BANNER_RGB = (0xff, 0xf3, 0xcd)  # both examples' "waiting for handyd" banner
WIDTH = 960  # the examples' default window width
ROTATED_90 = "0 -1 1 1 0 0"  # libinput's matrix for a panel turned 90° clockwise
EXAMPLES = {
    "qt": {"script": os.path.join(ROOT, "examples", "qt", "popover.py"), "needs": "import PyQt6.QtQuick",
           "env": {"QT_QPA_PLATFORM": "offscreen", "QT_QUICK_BACKEND": "software"}, "xvfb": False,
           "apt": "python3-pyqt6 python3-pyqt6.qtquick qml6-module-qtquick qml6-module-qtquick-shapes "
                  "qml6-module-qtqml-workerscript"},
    "gtk": {"script": os.path.join(ROOT, "examples", "gtk", "popover.py"),
            "needs": "import gi; gi.require_version('Gtk', '4.0'); from gi.repository import Gtk; import cairo",
            "env": {"GDK_BACKEND": "x11", "GSK_RENDERER": "cairo", "NO_AT_BRIDGE": "1"}, "xvfb": True,
            "apt": "gir1.2-gtk-4.0 python3-gi python3-gi-cairo xvfb"},
}


def python_with(needs, apt):
    """Debian's PyQt6 and PyGObject are in Debian's python3: this one if it has them, else /usr/bin/python3."""
    for candidate in dict.fromkeys([sys.executable, "/usr/bin/python3"]):
        if os.access(candidate, os.X_OK) and subprocess.run([candidate, "-c", needs], capture_output=True).returncode == 0:
            return candidate
    raise Failure(f"no python3 can `{needs}` (apt-get install {apt}; scripts/install-deps.sh does)")


def read_png(path, rows_needed=None):
    """(width, height, pixel(x, y) -> (r, g, b)) of an 8-bit, non-interlaced RGB or RGBA PNG, its
    first `rows_needed` rows unfiltered (all by default: pure Python takes a second a megapixel)."""
    with open(path, "rb") as f:
        data = f.read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    check(depth == 8 and colour in (2, 6) and interlace == 0, f"{path}: PNG kind {header} not read here")
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(b"".join(idat)), width * bpp
    rows, prev = [], bytes(stride)
    for y in range(min(height, rows_needed or height)):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif kind == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 255
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, lambda x, y: tuple(rows[int(y)][int(x) * bpp:int(x) * bpp + 3])


def near(rgb, want, tolerance=8):
    return all(abs(a - b) <= tolerance for a, b in zip(rgb, want))


class Example:
    """An example's process and the JSON lines it prints (read on a thread, taken with deadlines)."""

    def __init__(self, argv, env, out_path):
        self.process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines, self.seen = queue.Queue(), []
        self.out = open(out_path, "w")
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in self.process.stdout:
            self.out.write(raw.decode(errors="replace"))
            self.out.flush()
            try:
                self.lines.put(json.loads(raw))
            except ValueError:
                pass
        self.lines.put(None)

    def wait_for(self, what, predicate, deadline=DEADLINE):
        end = time.monotonic() + deadline
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise Failure(f"{what}: not within {deadline} s")
            if line is None:
                raise Failure(f"{what}: the example exited ({self.process.wait()}) first: "
                              f"{self.process.stderr.read().decode(errors='replace')[-2000:]}")
            self.seen.append(line)
            if predicate(line):
                return line


def run_example(name, handyd, artefacts):
    spec = EXAMPLES[name]
    out_dir = os.path.join(artefacts, f"{name}-example")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    python = python_with(spec["needs"], spec["apt"])
    start = time.monotonic()
    processes = []
    work = tempfile.mkdtemp(prefix=f"handyd-{name}-")
    try:
        runtime = os.path.join(work, "runtime")
        os.mkdir(runtime, 0o700)
        env = dict(os.environ, XDG_RUNTIME_DIR=runtime, **spec["env"])
        if spec["xvfb"]:
            xvfb, env["DISPLAY"] = start_xvfb("1280x1700x24")
            processes.append(xvfb)
        sock = os.path.join(work, "handyd.sock")

        # 1. No daemon yet: the example must say it waits, and show it.
        app = Example([python, spec["script"], sock, "--exit-after-pinches", "4", "--screenshots", out_dir], env,
                      os.path.join(out_dir, "popover.out"))
        processes.append(app.process)
        app.wait_for("a 'waiting' line before handyd runs", lambda l: l.get("status") == "waiting")
        app.wait_for("waiting.png", lambda l: l.get("screenshot", "").endswith("waiting.png"))

        # 2. handyd starts; 3. it stops and another starts on the same socket, the display turned 90°.
        views = {}
        for run, extra in ((1, ()), (2, ("--device-property", f"HANDYD_CALIBRATION_MATRIX={ROTATED_90}"))):
            daemon = start_demo_daemon(handyd, sock, os.path.join(out_dir, f"handyd-{run}.log"), *extra)
            processes.append(daemon)
            hello = app.wait_for(f"run {run}: connected", lambda l: l.get("status") == "connected")
            views[run] = [0, 0, WIDTH, round(WIDTH * hello["heightMm"] / hello["widthMm"])]
            app.wait_for(f"run {run}: the demo's two pinches ended",
                         lambda l: l.get("phase") in ("ended", "cancelled") and l.get("pinches") == 2 * run)
            if run == 1:
                stop(daemon)
                app.wait_for("a 'waiting' line after handyd stopped", lambda l: l.get("status") == "waiting")
        try:
            app.process.wait(DEADLINE)
        except subprocess.TimeoutExpired:
            raise Failure(f"the example did not exit within {DEADLINE} s of its fourth pinch")
        err = app.process.stderr.read().decode(errors="replace")
        with open(os.path.join(out_dir, "popover.err"), "w") as f:
            f.write(err)
        check(app.process.returncode == 0, f"the example exited {app.process.returncode}: {err[-2000:]}")
        for bad in ("Traceback", "CRITICAL", "Error", "error:"):
            check(bad not in err, f"the example's stderr has {bad!r}: {err[-2000:]}")

        placements = [l for l in app.seen if "popover" in l]
        began = [l for l in placements if l["phase"] == "began"]
        check(len(began) == 4 and [p["hand"] for p in began[:2]] == ["right", "left"],
              f"expected the demo's right- and left-hand pinch, then two more, saw {[p['hand'] for p in began]}")
        check(views[1][3] < WIDTH < views[2][3], f"the turned display is not portrait: views {views}")
        for k, p in enumerate(began):
            check(p["view"] == views[1 if k < 2 else 2], f"pinch {k + 1}: view {p['view']}, the window {views}")
        for p in placements:
            x, y, w, h = p["popover"]
            vx, vy, vw, vh = p["view"]
            where = f"pinch {p['pinch']} ({p['hand']} hand, {p['phase']}) popover {p['popover']}"
            check(vx <= x and x + w <= vx + vw and vy <= y and y + h <= vy + vh, f"{where} leaves the window {p['view']}")
            # Touching is not overlapping: a popover raised onto the region's edge meets it to within
            # rounding (here: a millionth of the window).
            eps = 1e-6 * max(vw, vh)
            check(p["clear"] and len(p["polygon"]) >= 3 and not rect_overlaps_polygon((x, y, w, h), p["polygon"], eps),
                  f"{where} overlaps the region {p['polygon']}")
        for p in began:
            x, _, w, _ = p["popover"]
            cx = p["centroid"][0]
            where = f"{p['hand']}-hand pinch: popover {p['popover']}, fingers at x={cx:.1f}, clearSide {p['clearSide']}"
            check(p["rule"] == "beside-clear-side", f"{where} placed by {p['rule']}")
            check(p["clearSide"] in ("left", "right"), f"{where}: no clearSide")
            if p["clearSide"] == "left":
                check(x + w <= cx - GAP + 1e-6, f"{where}: not left of the fingers (the clear side)")
            else:
                check(x >= cx + GAP - 1e-6, f"{where}: not right of the fingers (the clear side)")

        # The PNGs: the window's pixels show the banner, then each pinch's popover where it was placed.
        w, h, pixel = read_png(os.path.join(out_dir, "waiting.png"))
        banner = sum(near(pixel(x, y), BANNER_RGB) for y in range(0, h, 4) for x in range(0, w, 4)) / len(range(0, h, 4)) / len(range(0, w, 4))
        check(banner >= 0.05, f"waiting.png: the banner's colour covers {banner:.1%} of the window, not 5 % or more")
        for k, p in enumerate(began, 1):
            path = os.path.join(out_dir, f"pinch-{k}-{p['hand']}.png")
            check(os.path.exists(path), f"no {path}")
            x, y, pw, ph = p["popover"]
            w, h, pixel = read_png(path, rows_needed=int(y + ph))
            check((w, h) == (p["view"][2], p["view"][3]), f"{path} is {w}x{h}, the window {p['view'][2:]}")
            cx = p["centroid"][0]
            inside = [(x + 12, y + 6), (x + pw - 12, y + ph - 6), (x + 6, y + ph / 2)]
            for px, py in inside:
                got = pixel(px, py)
                check(near(got, POPOVER_RGB), f"{path}: ({px:.0f}, {py:.0f}) inside the popover is {got}, not its colour")
            for px, py in inside:  # the mirror image across the fingers: the side the hand covers
                mx = 2 * cx - px
                if 0 <= mx < w:
                    got = pixel(mx, py)
                    check(not near(got, POPOVER_RGB), f"{path}: the popover's colour on the covered side ({mx:.0f}, {py:.0f})")
        print(f"gui_examples_test: {name} ok in {time.monotonic() - start:.1f} s: waited, 2 runs of handyd "
              f"({views[1][2]}x{views[1][3]}, turned {views[2][2]}x{views[2][3]}), "
              f"{len(placements)} placements ({', '.join(p['hand'] + ' ' + p['rule'] for p in began)}); "
              f"PNGs in {out_dir}")
    finally:
        for p in reversed(processes):
            stop(p)
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.environ.get("HANDYD_BIN", os.path.join(ROOT, ".build", "debug")))
    parser.add_argument("--artefacts", default=os.path.join(ROOT, ".build", "artefacts"))
    parser.add_argument("examples", nargs="*", help=f"of {', '.join(EXAMPLES)} (default: all)")
    args = parser.parse_args()
    handyd = os.path.join(args.bin, "handyd")
    try:
        check(os.access(handyd, os.X_OK), f"no handyd at {handyd}: build it or set HANDYD_BIN / --bin")
        for name in args.examples:
            check(name in EXAMPLES, f"no example {name!r} (there are {', '.join(EXAMPLES)})")
        for name in args.examples or EXAMPLES:
            run_example(name, handyd, args.artefacts)
    except Failure as e:
        print(f"gui_examples_test: FAILED: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
