"""placement(): the shared cases (clients/placement-cases.json, also checked by the Swift and the
JavaScript tests) and properties over generated events, screens and sizes."""
import json
import math
import random

import pytest

import handyd
from handyd.placement import placement_side, rect_overlaps_polygon
from conftest import CASES

CASE_LIST = json.load(open(CASES))["cases"]


@pytest.mark.parametrize("case", CASE_LIST, ids=[c["name"] for c in CASE_LIST])
def test_shared_case(case):
    for event in (case["event"], handyd.decode_message(case["event"])):  # the JSON object and the dataclass
        got = handyd.placement(event, size=case["size"], gap=case["gap"], view=case["view"], margin=case["margin"],
                               threshold=case["threshold"])
        want = case["expected"]
        if want is None:
            assert got is None
            continue
        assert got is not None
        assert (got.rule, got.clear) == (want["rule"], want["clear"]), case["why"]
        for k in ("x", "y", "width", "height"):
            assert abs(getattr(got, k) - want[k]) <= 1e-6, (k, got, case["why"])


# ------------------------------------------------------------------ generated events

def hull(points):
    pts = sorted(set(points))
    if len(pts) < 3:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])
    lower, upper = [], []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def generate(rng):
    view = {"x": rng.uniform(-50, 50), "y": rng.uniform(-50, 50), "width": rng.uniform(200, 2000),
            "height": rng.uniform(200, 1500)}
    margin = rng.choice([0, 0, rng.uniform(0, 20)])
    size = {"width": rng.uniform(10, 400), "height": rng.uniform(10, 300)}
    if rng.random() < 0.05:
        size["width"] = view["width"] * rng.uniform(0.9, 1.2)
    gap = rng.uniform(0, 80)
    cx, cy = rng.random(), rng.random()
    hand = rng.choice(["left", "right", "unknown", None])
    event = {"type": "gesture", "gesture": "pinch", "phase": "began", "id": 1, "time": 0, "device": "g",
             "centroid": {"x": cx, "y": cy}}
    if hand:
        event["hand"] = hand
        if rng.random() < 0.8:
            event["clearSide"] = {"left": "right", "right": "left", "unknown": "unknown"}[hand]
    if rng.random() < 0.7:
        event["rightHandProbability"] = round(rng.random(), 3)
    kind = rng.random()
    if kind < 0.6:  # a hand's shape: fingers, palm below to one side, forearm to the bottom edge
        lean = {"right": 1, "left": -1}.get(hand or "", 0) * rng.uniform(0, 0.3)
        pts = [(cx + rng.uniform(-0.06, 0.06), cy + rng.uniform(-0.06, 0.06)) for _ in range(3)]
        px, py = cx + lean, cy + rng.uniform(0.1, 0.4)
        pts += [(px + 0.1 * math.cos(a), py + 0.1 * math.sin(a)) for a in (0, 1.5, 3, 4.5)]
        pts += [(px - 0.1 + lean, 1.05), (px + 0.1 + lean, 1.05)]
        poly = [(min(1, max(0, x)), min(1, max(0, y))) for x, y in pts]
    elif kind < 0.9:  # anything convex
        poly = [(rng.uniform(-0.1, 1.1), rng.uniform(-0.1, 1.1)) for _ in range(rng.randint(3, 9))]
    else:
        poly = None
    if poly:
        poly = hull([(round(x, 3), round(y, 3)) for x, y in poly])
        if len(poly) >= 3:
            event["occlusion"] = {"polygon": [{"x": x, "y": y} for x, y in poly]}
    threshold = rng.choice([None, None, 0.5, rng.uniform(0.5, 0.9)])
    return event, dict(size=size, gap=gap, view=view, margin=margin, threshold=threshold)


def mirrored(event):
    m = json.loads(json.dumps(event))
    swap = {"left": "right", "right": "left"}
    m["centroid"]["x"] = 1 - m["centroid"]["x"]
    for k in ("hand", "clearSide"):
        if k in m:
            m[k] = swap.get(m[k], m[k])
    if "rightHandProbability" in m:
        m["rightHandProbability"] = 1 - m["rightHandProbability"]
    if "occlusion" in m:
        m["occlusion"]["polygon"] = [{"x": 1 - p["x"], "y": p["y"]} for p in reversed(m["occlusion"]["polygon"])]
    return m


def pixels(event, view):
    poly = event.get("occlusion", {}).get("polygon", [])
    return [(view["x"] + p["x"] * view["width"], view["y"] + p["y"] * view["height"]) for p in poly]


def inside_strictly(poly, x, y, tol):
    """Point inside the convex polygon by more than tol (an independent test of clearance)."""
    sign = 0
    n = len(poly)
    if n < 3:
        return False
    for i in range(n):
        (ax, ay), (bx, by) = poly[i], poly[(i + 1) % n]
        length = math.hypot(bx - ax, by - ay)
        if length == 0:
            continue
        d = ((bx - ax) * (y - ay) - (by - ay) * (x - ax)) / length
        if abs(d) <= tol:
            return False
        s = 1 if d > 0 else -1
        if sign == 0:
            sign = s
        elif s != sign:
            return False
    return True


def grid_positions(lo_x, hi_x, lo_y, hi_y, n=20):
    for i in range(n + 1):
        for j in range(n + 1):
            yield lo_x + (hi_x - lo_x) * i / n, lo_y + (hi_y - lo_y) * j / n


RUNS = 4000


def test_properties_over_generated_events():
    rng = random.Random(46)
    counts = {}
    for run in range(RUNS):
        event, opts = generate(rng)
        view, size, gap, margin = opts["view"], opts["size"], opts["gap"], opts["margin"]
        p = handyd.placement(event, **opts)
        counts[p.rule] = counts.get(p.rule, 0) + 1
        w, h = size["width"], size["height"]
        scale = max(view["width"], view["height"])
        tol = 1e-7 * scale
        sl, st = view["x"] + margin, view["y"] + margin
        sr, sb = view["x"] + view["width"] - margin, view["y"] + view["height"] - margin
        poly = pixels(event, view)
        c = (view["x"] + event["centroid"]["x"] * view["width"], view["y"] + event["centroid"]["y"] * view["height"])
        eps = 1e-9 * scale
        what = f"run {run}: {event} {opts} -> {p}"
        fits = w <= sr - sl and h <= sb - st
        assert (p.width, p.height) == (w, h)
        if not fits:
            assert p.rule == "too-big", what
            continue
        # on screen
        assert p.x >= sl - tol and p.x + w <= sr + tol and p.y >= st - tol and p.y + h <= sb + tol, what
        # clear of the region (checked independently: no point well inside the rectangle is in it)
        if p.rule != "overlapping":
            assert p.clear, what
            for i in range(1, 8):
                for j in range(1, 8):
                    assert not inside_strictly(poly, p.x + w * i / 8, p.y + h * j / 8, 1e-6 * scale), what
        # overlapping only when no place on the screen is clear
        positions = list(grid_positions(sl, sr - w, st, sb - h))
        if p.rule == "overlapping":
            assert not p.clear
            assert all(rect_overlaps_polygon((x, y, w, h), poly, eps) for x, y in positions), what
        # on the clear side whenever a clear place fits there
        side = placement_side(event, opts["threshold"])
        if side is not None:
            if side == "left":
                box = (sl, c[0] - gap - w)
            else:
                box = (c[0] + gap, sr - w)
            if box[0] <= box[1]:
                there = any(not rect_overlaps_polygon((x, y, w, h), poly, eps)
                            for x, y in grid_positions(box[0], box[1], st, sb - h))
                if there:
                    assert p.rule == "beside-clear-side", what
                    if side == "left":
                        assert p.x + w <= c[0] - gap + tol, what
                    else:
                        assert p.x >= c[0] + gap - tol, what
        else:
            assert p.rule in ("neutral-above", "neutral-beside", "corner", "overlapping"), what
            if p.rule == "neutral-above":
                assert p.y + h <= c[1] - gap + tol, what
        # the mirror image
        q = handyd.placement(mirrored(event), **opts)
        assert q.rule == p.rule, (what, q)
        assert abs((2 * view["x"] + view["width"] - q.x - w) - p.x) <= 1e-6 * scale, (what, q)
        assert abs(q.y - p.y) <= 1e-6 * scale, (what, q)
    # the generator reaches every rule
    print("rules:", counts)
    assert set(counts) == set(handyd.PLACEMENT_RULES), counts
