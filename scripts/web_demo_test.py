#!/usr/bin/env python3
"""The web demo (examples/web/) in a real browser: Debian's chromium, driven by Playwright (PyPI),
against the real handyd replaying the demo recording over its WebSocket, the page served over HTTP
on loopback as a kiosk serves it. Expected values come from the same gestures as a Unix-socket
subscriber receives them; what is checked comes from the page's DOM and its state
(`window.handydDemo`):

- the zoom popover, placed by the JavaScript client's `placement`, is left of the fingers for the
  right-hand pinch, right of them for the left, and out of the region the hand covers (`occlusion`,
  checked with the Python client's overlap test);
- the picture's scale, rotation and position are the gestures' values applied to the view each
  gesture began with, and the DOM's transform is that view (checked while pinching);
- the double tap resets the view;
- a released pan glides on: the picture keeps moving after `ended`, towards `glideMm`.

Screenshots of each state go to ARTEFACTS (default .build/artefacts/web-demo/).

  scripts/web_demo_test.py --bin .build/debug [--artefacts DIR]
"""
import argparse, json, math, os, shutil, socket, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "examples", "recordings", "demo.evemu")
WEB = os.path.join(ROOT, "examples", "web")
GESTURES = ["pinch", "rotate", "pan", "tap"]
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
from handyd.placement import rect_overlaps_polygon  # noqa: E402
POPOVER_GAP_PX = 56  # examples/web/app.js
VIEWPORT = {"width": 1280, "height": 720}


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, proc, what, timeout=20):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        check(proc.poll() is None, f"{what} exited ({proc.returncode})")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.05)
    raise Failure(f"{what} is not listening on {port}")


class Reference(threading.Thread):
    """A Unix-socket subscriber to the same gestures (plus long-press, the demo's last gesture):
    what the page must have applied."""
    def __init__(self, path):
        super().__init__(daemon=True)
        self.path, self.messages, self.error = path, [], None
        self.done = threading.Event()

    def run(self):
        try:
            deadline = time.monotonic() + 20
            while True:
                try:
                    s = socket.socket(socket.AF_UNIX)
                    s.connect(self.path)
                    break
                except OSError:
                    check(time.monotonic() < deadline, f"no handyd socket at {self.path}")
                    time.sleep(0.05)
            s.sendall((json.dumps({"type": "subscribe", "gestures": GESTURES + ["long-press"]}) + "\n").encode())
            buf = b""
            s.settimeout(60)
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    m = json.loads(line)
                    self.messages.append(m)
                    if m.get("gesture") == "long-press" and m.get("phase") == "ended":
                        s.close()
                        return
        except Exception as e:  # reported by the main thread
            self.error = e
        finally:
            self.done.set()

    def gestures(self):
        return [m for m in self.messages if m["type"] == "gesture" and m["gesture"] in GESTURES]


def close(a, b, tolerance, what):
    check(abs(a - b) <= tolerance, f"{what}: page {a!r}, expected {b!r}")


def check_page(log, reference, hello, viewport):
    """The page's log against the reference gestures."""
    width_mm = hello["devices"][0]["widthMm"]
    by_id = {}
    for g in reference:
        by_id.setdefault(g["id"], []).append(g)
    entries = {(e["what"], e.get("id")): e for e in log if e["what"] in ("began", "ended", "cancelled")}
    continuous = [i for i, evs in by_id.items() if evs[0]["gesture"] in ("pinch", "rotate", "pan")]
    check(continuous, "the reference has no continuous gesture")
    first = min(continuous)
    check(entries[("began", first)]["base"] == {"scale": 1, "rotation": 0, "x": 0, "y": 0},
          f"the first gesture did not start from the initial view: {entries[('began', first)]}")
    for gid in continuous:
        evs = by_id[gid]
        end = evs[-1]
        check(end["phase"] in ("ended", "cancelled"), f"gesture {gid} has no end in the reference")
        began, ended = entries.get(("began", gid)), entries.get((end["phase"], gid))
        check(began and ended, f"the page missed gesture {gid} ({end['gesture']}): {sorted(entries)}")
        base, view = ended["base"], ended["view"]
        if end["gesture"] == "pinch":
            close(view["scale"], min(40, max(0.05, base["scale"] * end["scale"])), 1e-9, f"pinch {gid} scale")
        elif end["gesture"] == "rotate":
            close(view["rotation"], base["rotation"] + end["rotation"], 1e-9, f"rotate {gid} rotation")
        else:
            close(view["x"], base["x"] + end["translation"]["x"] * viewport["width"], 1e-6, f"pan {gid} x")
            close(view["y"], base["y"] + end["translation"]["y"] * viewport["height"], 1e-6, f"pan {gid} y")

    # The popover: the side the hand leaves clear, for every placement of every pinch.
    pinches = {gid: evs[0] for gid, evs in by_id.items() if evs[0]["gesture"] == "pinch"}
    hands = {p["hand"] for p in pinches.values()}
    check({"left", "right"} <= hands, f"the demo should hold a left- and a right-hand pinch, has {hands}")
    placements = [e for e in log if e["what"] == "popover"]
    for gid, p in pinches.items():
        mine = [e for e in placements if e["id"] == gid]
        check(mine, f"no popover for pinch {gid}")
        for e in mine:
            check(e["hasShadow"] and e["clearOfShadow"], f"pinch {gid}: popover over the hand's region: {e}")
            # The page's rectangle against its region, by the Python client's test (not the page's own).
            rect = (e["left"], e["top"], e["right"] - e["left"], e["bottom"] - e["top"])
            check(not rect_overlaps_polygon(rect, [(q["x"], q["y"]) for q in e["shadow"]], 1e-6),
                  f"pinch {gid}: the popover overlaps the region (handyd.rect_overlaps_polygon): {e}")
            check(e["rule"] == "beside-clear-side", f"pinch {gid}: placed by {e['rule']}, not beside the fingers: {e}")
            if p["hand"] == "right":
                check(e["side"] == "left" and e["right"] <= e["centroidX"] - POPOVER_GAP_PX + 0.5,
                      f"right-hand pinch {gid}: popover {e}")
            elif p["hand"] == "left":
                check(e["side"] == "right" and e["left"] >= e["centroidX"] + POPOVER_GAP_PX - 0.5,
                      f"left-hand pinch {gid}: popover {e}")

    # The double tap: a reset of a view the gestures had changed, and the next gesture starts from it.
    doubles = [g for g in reference if g["gesture"] == "tap" and g.get("taps") == 2]
    check(len(doubles) == 1, f"the demo has one double tap, reference has {len(doubles)}")
    resets = [e for e in log if e["what"] == "reset"]
    check([e["id"] for e in resets] == [doubles[0]["id"]], f"resets {resets}")
    before = resets[0]["before"]
    check(before != {"scale": 1, "rotation": 0, "x": 0, "y": 0}, "the view was untouched before the double tap")
    after = [e for e in log[log.index(resets[0]) + 1:] if e["what"] == "began"]
    check(after and after[0]["base"] == {"scale": 1, "rotation": 0, "x": 0, "y": 0},
          f"the gesture after the double tap did not start from the reset view: {after[:1]}")

    # The glide of the one-finger pan: started at ended towards glideMm, and travelled.
    pan = next(evs for evs in by_id.values() if evs[0]["gesture"] == "pan" and evs[-1].get("glideMm"))
    end = pan[-1]
    starts = [e for e in log if e["what"] == "glide-started" and e["gesture"] == end["id"] and e["property"] == "x"]
    check(starts, f"no glide after pan {end['id']} (glideMm {end['glideMm']})")
    expected_px = end["glideMm"]["x"] * viewport["width"] / width_mm
    close(starts[0]["to"] - starts[0]["from"], expected_px, 1e-6, f"pan {end['id']} glide distance px")
    close(starts[0]["tau"], math.hypot(*end["glideMm"].values()) / math.hypot(*end["velocity"].values()), 1e-9,
          "glide time constant")
    stops = [e for e in log if e["what"] in ("glide-stopped", "glide-finished") and e["gesture"] == end["id"]
             and e["property"] == "x"]
    check(stops, "the glide neither stopped nor finished")
    travelled = stops[0]["at"] - starts[0]["from"]
    check(travelled / expected_px > 0.3, f"the glide travelled {travelled:.1f} px of {expected_px:.1f}")
    return pan


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--artefacts", default=os.path.join(ROOT, ".build", "artefacts", "web-demo"))
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    os.makedirs(args.artefacts, exist_ok=True)
    for name in os.listdir(args.artefacts):  # no screenshot of an earlier run may pass for this one's
        if name.endswith((".png", ".json", ".log")):
            os.remove(os.path.join(args.artefacts, name))
    work = tempfile.mkdtemp(prefix="handyd-web-")
    http_port, ws_port = free_port(), free_port()
    origin = f"http://127.0.0.1:{http_port}"
    # Served as a kiosk serves a local app: static files over HTTP on loopback.
    http = subprocess.Popen([sys.executable, "-m", "http.server", str(http_port), "--bind", "127.0.0.1",
                             "--directory", WEB], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    daemon_log = open(os.path.join(args.artefacts, "handyd.log"), "w")
    sock = os.path.join(work, "handyd.sock")
    # --wait-clients 2: the replay starts once the reference and the page have subscribed.
    daemon = subprocess.Popen([os.path.join(args.bin, "handyd"), "--replay", DEMO, "--speed", "1",
                               "--wait-clients", "2", "--socket", sock, "--websocket", f"127.0.0.1:{ws_port}",
                               "--websocket-origin", origin], stdout=daemon_log, stderr=subprocess.STDOUT)
    failed = False
    try:
        wait_for_port(http_port, http, "the HTTP server")
        wait_for_port(ws_port, daemon, "handyd")
        reference = Reference(sock)
        reference.start()
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium,
                                        args=["--no-sandbox", "--disable-dev-shm-usage"])
            page = browser.new_page(viewport=VIEWPORT)
            console = []
            page.on("console", lambda m: console.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: console.append(f"pageerror: {e}"))
            page.goto(f"{origin}/?ws=ws://127.0.0.1:{ws_port}")
            try:
                page.wait_for_function("window.handydDemo && window.handydDemo.connected", timeout=20_000)
                hello = page.evaluate("({devices: [...window.handydDemo.devices.values()]})")
                shot = lambda name: page.screenshot(path=os.path.join(args.artefacts, name))

                for n, hand in ((1, "right"), (2, "left")):
                    page.wait_for_function(
                        f"() => {{ const p = document.getElementById('popover');"
                        f" return !p.hidden && p.dataset.hand === '{hand}' && !p.classList.contains('fading'); }}",
                        timeout=30_000)
                    page.wait_for_timeout(150)  # past the popover's 90 ms transition
                    shot(f"{n}-{hand}-hand-pinch.png")
                    rect = page.evaluate("() => { const p = document.getElementById('popover');"
                                         " const r = p.getBoundingClientRect();"
                                         " return {left: r.left, right: r.right, cx: +p.dataset.centroidX}; }")
                    if hand == "right":
                        check(rect["right"] < rect["cx"], f"right hand: popover {rect} is not left of the fingers")
                    else:
                        check(rect["left"] > rect["cx"], f"left hand: popover {rect} is not right of the fingers")
                    print(f"PASS {hand}-hand pinch: popover {rect['left']:.0f}…{rect['right']:.0f} px, fingers at {rect['cx']:.0f} px")
                    # The DOM's transform is the view the page holds (rendered in the same task).
                    dom = page.evaluate("(() => { window.handydDemo.render(); const m = new DOMMatrix(getComputedStyle("
                                        "document.getElementById('picture')).transform);"
                                        " return {a: m.a, b: m.b, e: m.e, view: {...window.handydDemo.view}}; })()")
                    view = dom["view"]
                    check(abs(view["scale"] - 1) > 0.1, f"the pinch did not change the scale: {view}")
                    close(math.hypot(dom["a"], dom["b"]), view["scale"], 1e-4 * view["scale"], "DOM scale")
                    close(math.remainder(math.atan2(dom["b"], dom["a"]) - view["rotation"], 2 * math.pi), 0, 1e-4,
                          "DOM rotation")
                    close(dom["e"], view["x"], 0.01, "DOM x")
                    print(f"PASS the DOM shows the view: scale {view['scale']:.4f}, rotation {view['rotation']:.4f} rad")

                page.wait_for_function("window.handydDemo.log.some(e => e.what === 'reset')", timeout=30_000)
                page.wait_for_timeout(400)  # the picture eases back in 250 ms
                shot("3-double-tap-reset.png")
                matrix = page.evaluate("getComputedStyle(document.getElementById('picture')).transform")
                check(matrix in ("none", "matrix(1, 0, 0, 1, 0, 0)"), f"after the double tap the DOM shows {matrix}")
                print("PASS double tap: the picture is back to its initial transform")

                page.wait_for_function("window.handydDemo.log.some(e => e.what === 'glide-started' && e.property === 'x')",
                                       timeout=30_000)
                x0 = page.evaluate("window.handydDemo.view.x")
                page.wait_for_timeout(200)
                x1 = page.evaluate("window.handydDemo.view.x")
                shot("4-pan-glide.png")
                glide = page.evaluate("window.handydDemo.log.find(e => e.what === 'glide-started' && e.property === 'x')")
                check((x1 - x0) * (glide["to"] - glide["from"]) > 0,
                      f"no glide after release: x {x0:.1f} -> {x1:.1f}, glide {glide}")
                print(f"PASS glide: after release x went on from {x0:.1f} to {x1:.1f} px (towards {glide['to']:.1f})")

                reference.done.wait(60)
                check(reference.error is None, f"reference subscriber: {reference.error}")
                check(reference.done.is_set(), "the reference subscriber did not see the demo end")
                page.wait_for_function("!window.handydDemo.glides.size", timeout=30_000)
                page.wait_for_timeout(100)
                shot("5-end.png")
                log = page.evaluate("window.handydDemo.log")
                with open(os.path.join(args.artefacts, "page-log.json"), "w") as f:
                    json.dump(log, f, indent=1)
                check_page(log, reference.gestures(), hello, VIEWPORT)
                print("PASS the page applied every pinch, rotate and pan with the gestures' values, "
                      "placed every popover on the clear side, reset on the double tap, glided after release")

            except Exception:
                shot_path = os.path.join(args.artefacts, "failure.png")
                page.screenshot(path=shot_path)
                print(f"(screenshot at failure: {shot_path})")
                print("---- browser console\n" + "\n".join(console[-30:]))
                raise
            finally:
                browser.close()
    except Failure as e:
        failed = True
        print(f"FAIL web demo: {e}")
    finally:
        for proc in (daemon, http):
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        daemon_log.close()
        shutil.rmtree(work, ignore_errors=True)
    if failed:
        with open(os.path.join(args.artefacts, "handyd.log"), errors="replace") as f:
            print("---- handyd log (last 30 lines)\n" + "".join(f.readlines()[-30:]))
    print(f"web demo: screenshots and the page's log in {args.artefacts}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
