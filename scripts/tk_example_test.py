#!/usr/bin/env python3
"""The Tk example (examples/tk/popover.py) headless: Xvfb (Debian's xvfb) as its display, the real
handyd replaying the demo recording, the example run with --exit-after-pinches 2 --screenshot, so
nothing has to close its window. From the JSON line it prints per placement, checks:

- it saw the right-hand and the left-hand pinch, and exited 0 within the deadline;
- each pinch's popover was placed by `beside-clear-side`: left of the fingers (by the gap) for the
  right hand, right of them for the left; every placement is on the canvas and out of the region
  the hand covers (the polygon it reports, checked with the Python client's overlap test);
- the screenshot, the canvas as PostScript (Tk writes it itself: no screen grabber to install), is a
  PostScript page holding the last popover's rule.

Every wait has a deadline; Xvfb, handyd and the example are killed on failure. Artefacts (the
screenshot, the example's output) go to ARTEFACTS (default .build/artefacts/tk-example/).

  scripts/tk_example_test.py [--bin DIR_OF_HANDYD] [--artefacts DIR]     # HANDYD_BIN, else .build/debug
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from handyd_harness import ROOT, DEADLINE, Failure, check, start_demo_daemon, start_xvfb, stop  # noqa: E402
EXAMPLE = os.path.join(ROOT, "examples", "tk", "popover.py")
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
from handyd import rect_overlaps_polygon  # noqa: E402
GAP = 56  # examples/tk/popover.py


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.environ.get("HANDYD_BIN", os.path.join(ROOT, ".build", "debug")))
    parser.add_argument("--artefacts", default=os.path.join(ROOT, ".build", "artefacts", "tk-example"))
    args = parser.parse_args()
    handyd = os.path.join(args.bin, "handyd")
    check(os.access(handyd, os.X_OK), f"no handyd at {handyd}: build it or set HANDYD_BIN / --bin")
    os.makedirs(args.artefacts, exist_ok=True)
    screenshot = os.path.join(args.artefacts, "popover.ps")
    if os.path.exists(screenshot):
        os.remove(screenshot)
    start = time.monotonic()
    processes = []
    work = tempfile.mkdtemp(prefix="handyd-tk-")
    try:
        xvfb, display = start_xvfb()
        processes.append(xvfb)
        sock = os.path.join(work, "handyd.sock")
        processes.append(start_demo_daemon(handyd, sock, os.path.join(args.artefacts, "handyd.log")))

        app = subprocess.Popen([sys.executable, EXAMPLE, sock, "--exit-after-pinches", "2", "--screenshot", screenshot],
                               env=dict(os.environ, DISPLAY=display), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        processes.append(app)
        try:
            out, err = app.communicate(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            raise Failure(f"the example did not exit within {DEADLINE} s (after 2 pinches)")
        with open(os.path.join(args.artefacts, "popover.out"), "wb") as f:
            f.write(out + err)
        check(app.returncode == 0, f"the example exited {app.returncode}: {err.decode(errors='replace')[-2000:]}")
        check(not err.strip(), f"the example wrote to stderr: {err.decode(errors='replace')[-2000:]}")

        placements = [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]
        began = [p for p in placements if p["phase"] == "began"]
        check(sorted(p["hand"] for p in began) == ["left", "right"],
              f"expected a right- and a left-hand pinch, saw {[p['hand'] for p in began]}")
        for p in placements:
            x, y, w, h = p["popover"]
            vx, vy, vw, vh = p["view"]
            where = f"pinch {p['pinch']} ({p['hand']} hand, {p['phase']}) popover {p['popover']}"
            check(vx <= x and x + w <= vx + vw and vy <= y and y + h <= vy + vh, f"{where} leaves the canvas {p['view']}")
            check(p["clear"] and len(p["polygon"]) >= 3 and not rect_overlaps_polygon((x, y, w, h), p["polygon"]),
                  f"{where} overlaps the region {p['polygon']}")
        for p in began:
            x, _, w, _ = p["popover"]
            cx = p["centroid"][0]
            where = f"{p['hand']}-hand pinch: popover {p['popover']}, fingers at x={cx:.1f}"
            check(p["rule"] == "beside-clear-side", f"{where} placed by {p['rule']}")
            if p["hand"] == "right":
                check(p["clearSide"] == "left" and x + w <= cx - GAP + 1e-6, f"{where}: not left of the fingers")
            else:
                check(p["clearSide"] == "right" and x >= cx + GAP - 1e-6, f"{where}: not right of the fingers")

        check(os.path.exists(screenshot), f"no screenshot at {screenshot}")
        with open(screenshot, "rb") as f:
            ps = f.read()
        check(ps.startswith(b"%!PS-Adobe") and b"showpage" in ps and len(ps) > 2000,
              f"{screenshot} is not a PostScript page ({len(ps)} bytes)")
        check(b"(beside-clear-side)" in ps and b"left hand" in ps,
              f"{screenshot} does not show the left-hand pinch's popover and its rule")
        print(f"tk_example_test: ok in {time.monotonic() - start:.1f} s: {len(placements)} placements "
              f"({', '.join(p['hand'] + ' hand ' + p['rule'] for p in began)}); screenshot {screenshot} "
              f"({len(ps)} bytes)")
    except Failure as e:
        print(f"tk_example_test: FAILED: {e}", file=sys.stderr)
        sys.exit(1)
    finally:
        for p in reversed(processes):
            stop(p)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
