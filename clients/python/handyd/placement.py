"""Where to put a popover next to a gesture's fingers: on the side the hand leaves clear, outside the
region it covers (``occlusion.polygon``), on screen, saying which rule placed it.

The same function, rule for rule, as HandyClient's ``placement(for:…)`` (Swift) and ``placement`` in
clients/js/handyd.js; clients/placement-cases.json checks all three.

Coordinates: ``view`` is the rectangle (in the app's units, e.g. pixels) that shows the whole
display; the event's normalised positions (0…1) map onto it. ``size``, ``gap``, ``margin`` and the
returned rectangle are in the same units.

The side: ``clearSide`` when it is left or right, else the one ``hand`` leaves clear, else (hand
unknown) from ``rightHandProbability`` when a ``threshold`` is given (a right hand when P > 0.5 and
P >= threshold, a left hand when P < 0.5 and P <= 1 - threshold), else none: neutral.

Rules, the first that is clear of the region and on screen (inset by ``margin``):

- with a side: ``beside-clear-side`` (``gap`` from the centroid, vertically centred; else raised
  above the region in its column; else below it; else pushed further out past it; else at the
  screen's edge on that side), ``above`` (centred, ``gap`` above the centroid, raised above the
  region if needed), ``far-side`` (as beside, on the hand's side), ``corner`` (the nearest clear
  corner of the screen);
- without: ``neutral-above``, ``neutral-beside`` (the roomier side first, then the other),
  ``corner``;
- none clear: ``overlapping``, the first rule's place moved onto the screen; a popover larger than
  the screen: ``too-big``, the same.

The region is convex, so a clear place exists somewhere on screen only if a corner is clear:
``overlapping`` means no clear place exists. Touching the region is not overlapping it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Literal, Mapping, Optional, Sequence, Tuple, Union

__all__ = ["Placement", "Rect", "Size", "PLACEMENT_RULES", "placement", "placement_side", "rect_overlaps_polygon"]

Rule = Literal["beside-clear-side", "above", "far-side", "neutral-above", "neutral-beside", "corner",
               "overlapping", "too-big"]
PLACEMENT_RULES: Tuple[str, ...] = ("beside-clear-side", "above", "far-side", "neutral-above", "neutral-beside",
                                    "corner", "overlapping", "too-big")


@dataclass(frozen=True)
class Size:
    width: float
    height: float


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Placement:
    """The popover's rectangle (in the view's units), the rule that placed it, and whether it is
    clear of the covered region (False only for ``overlapping``, and maybe ``too-big``)."""
    x: float
    y: float
    width: float
    height: float
    rule: Rule
    clear: bool

    @property
    def rect(self) -> Rect:
        return Rect(self.x, self.y, self.width, self.height)


_Pt = Tuple[float, float]


def _get(event: Any, name: str, attr: Optional[str] = None) -> Any:
    if isinstance(event, Mapping):
        return event.get(name)
    return getattr(event, attr or name, None)


def _xy(p: Any) -> Optional[_Pt]:
    if p is None:
        return None
    if isinstance(p, Mapping):
        return (float(p["x"]), float(p["y"]))
    if isinstance(p, (tuple, list)):
        return (float(p[0]), float(p[1]))
    return (float(p.x), float(p.y))


def _size(s: Any) -> Size:
    if isinstance(s, Size):
        return s
    if isinstance(s, Mapping):
        return Size(float(s["width"]), float(s["height"]))
    if isinstance(s, (tuple, list)):
        return Size(float(s[0]), float(s[1]))
    return Size(float(s.width), float(s.height))


def _rect(r: Any) -> Rect:
    if isinstance(r, Rect):
        return r
    if isinstance(r, Mapping):
        return Rect(float(r["x"]), float(r["y"]), float(r["width"]), float(r["height"]))
    if isinstance(r, (tuple, list)):
        return Rect(float(r[0]), float(r[1]), float(r[2]), float(r[3]))
    return Rect(float(r.x), float(r.y), float(r.width), float(r.height))


def placement_side(event: Any, threshold: Optional[float] = None) -> Optional[Literal["left", "right"]]:
    """The side ``placement`` puts the popover on: "left", "right", or None (neutral)."""
    clear = _get(event, "clearSide", "clear_side")
    if clear in ("left", "right"):
        return clear  # type: ignore[return-value]
    hand = _get(event, "hand")
    if hand == "right":
        return "left"
    if hand == "left":
        return "right"
    p = _get(event, "rightHandProbability", "right_hand_probability")
    if threshold is not None and isinstance(p, (int, float)) and not isinstance(p, bool):
        if p > 0.5 and p >= threshold:
            return "left"
        if p < 0.5 and p <= 1 - threshold:
            return "right"
    return None


def rect_overlaps_polygon(rect: Any, polygon: Sequence[Any], eps: float = 0.0) -> bool:
    """Whether the rectangle's inside meets the convex polygon's (separating axes: the rectangle's
    and each edge's normal); touching, or meeting by no more than ``eps``, is not overlapping."""
    r = _rect(rect)
    poly = [p if isinstance(p, tuple) else _xy(p) for p in polygon]
    return _overlaps(r.x, r.y, r.width, r.height, poly, eps)  # type: ignore[arg-type]


def _overlaps(x: float, y: float, w: float, h: float, poly: Sequence[_Pt], eps: float) -> bool:
    n = len(poly)
    if n < 3:
        return False
    x0, y0, x1, y1 = x, y, x + w, y + h
    pminx = math.inf; pmaxx = -math.inf; pminy = math.inf; pmaxy = -math.inf
    for px, py in poly:
        pminx = min(pminx, px); pmaxx = max(pmaxx, px)
        pminy = min(pminy, py); pmaxy = max(pmaxy, py)
    if min(x1, pmaxx) - max(x0, pminx) <= eps:
        return False
    if min(y1, pmaxy) - max(y0, pminy) <= eps:
        return False
    for i in range(n):
        ax, ay = poly[i]
        bx, by = poly[(i + 1) % n]
        dx = bx - ax; dy = by - ay
        length = math.sqrt(dx * dx + dy * dy)
        if not length > 0:
            continue
        nx = -dy / length; ny = dx / length
        pmin = math.inf; pmax = -math.inf
        for px, py in poly:
            d = px * nx + py * ny
            pmin = min(pmin, d); pmax = max(pmax, d)
        rmin = math.inf; rmax = -math.inf
        for cx, cy in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
            d = cx * nx + cy * ny
            rmin = min(rmin, d); rmax = max(rmax, d)
        if min(rmax, pmax) - max(rmin, pmin) <= eps:
            return False
    return True


def _polygon_range(poly: Sequence[_Pt], lo: float, hi: float, transposed: bool) -> Optional[_Pt]:
    """The polygon's extent along y within the strip lo <= x <= hi, or (transposed) along x within
    lo <= y <= hi; None when it does not reach the strip."""
    n = len(poly)
    mn = math.inf; mx = -math.inf
    for i in range(n):
        a = poly[i]; b = poly[(i + 1) % n]
        au, av = (a[1], a[0]) if transposed else a
        bu, bv = (b[1], b[0]) if transposed else b
        if au >= lo and au <= hi:
            mn = min(mn, av); mx = max(mx, av)
        for u in (lo, hi):
            if (au < u and bu > u) or (au > u and bu < u):
                v = av + (u - au) * (bv - av) / (bu - au)
                mn = min(mn, v); mx = max(mx, v)
    return (mn, mx) if mn <= mx else None


def placement(event: Any, *, size: Union[Size, Tuple[float, float], Mapping[str, float]], gap: float = 0.0,
              view: Union[Rect, Tuple[float, float, float, float], Mapping[str, float]], margin: float = 0.0,
              threshold: Optional[float] = None) -> Optional[Placement]:
    """Where to put a popover of ``size`` for a gesture ``event`` (a :class:`handyd.Gesture` or the
    decoded JSON object); None when the event has neither ``centroid`` nor ``position``. See the
    module's documentation for the rules."""
    at = _xy(_get(event, "centroid")) or _xy(_get(event, "position"))
    if at is None:
        return None
    sz = _size(size); vw = _rect(view)
    w = sz.width; h = sz.height
    sl = vw.x + margin; st = vw.y + margin; sr = vw.x + vw.width - margin; sb = vw.y + vw.height - margin
    cx = vw.x + at[0] * vw.width; cy = vw.y + at[1] * vw.height
    occlusion = _get(event, "occlusion")
    raw = (_get(occlusion, "polygon") if occlusion is not None else None) or []
    poly: list[_Pt] = []
    if len(raw) >= 3:
        for p in raw:
            px, py = _xy(p)  # type: ignore[misc]
            poly.append((vw.x + px * vw.width, vw.y + py * vw.height))
    eps = 1e-9 * max(abs(vw.width), abs(vw.height))
    side = placement_side(event, threshold)

    def clamp_x(x: float) -> float:
        return max(sl, min(x, sr - w))

    def clamp_y(y: float) -> float:
        return max(st, min(y, sb - h))

    def clear(x: float, y: float) -> bool:
        return not _overlaps(x, y, w, h, poly, eps)

    def on_x(x: float) -> bool:
        return x >= sl - eps and x + w <= sr + eps

    def on_y(y: float) -> bool:
        return y >= st - eps and y + h <= sb + eps

    def result(x: float, y: float, rule: Rule) -> Placement:
        return Placement(x, y, w, h, rule, clear(x, y))

    if side == "left":
        preferred = (cx - gap - w, cy - h / 2)
    elif side == "right":
        preferred = (cx + gap, cy - h / 2)
    else:
        preferred = (cx - w / 2, cy - gap - h)
    if w > sr - sl or h > sb - st:
        return result(clamp_x(preferred[0]), clamp_y(preferred[1]), "too-big")

    def column(x: float, y0: float, down: bool) -> Optional[float]:
        if not on_x(x) or not on_y(y0):
            return None
        if clear(x, y0):
            return y0
        rng = _polygon_range(poly, x, x + w, False)
        if rng is None:
            return None
        up = rng[0] - h
        if up <= y0 and on_y(up) and clear(x, up):
            return up
        if down and rng[1] >= y0 and on_y(rng[1]) and clear(x, rng[1]):
            return rng[1]
        return None

    def beside(s: str) -> Optional[_Pt]:
        near = cx - gap - w if s == "left" else cx + gap
        edge = sl if s == "left" else sr - w
        if not on_x(near):
            return None
        y0 = clamp_y(cy - h / 2)
        y = column(near, y0, True)
        if y is not None:
            return (near, y)
        band = _polygon_range(poly, y0, y0 + h, True)
        if band is not None:
            x = band[0] - w if s == "left" else band[1]
            if on_x(x) and (x <= near if s == "left" else x >= near) and clear(x, y0):
                return (x, y0)
        y = column(edge, y0, True)
        return (edge, y) if y is not None else None

    def above() -> Optional[_Pt]:
        x = clamp_x(cx - w / 2)
        y = column(x, cy - gap - h, False)
        return (x, y) if y is not None else None

    def corner() -> Optional[_Pt]:
        first = side or "left"
        xs = (sl, sr - w) if first == "left" else (sr - w, sl)
        best: Optional[_Pt] = None
        best_d = math.inf
        for y in (st, sb - h):
            for x in xs:
                dx = x + w / 2 - cx; dy = y + h / 2 - cy
                d = dx * dx + dy * dy
                if d < best_d and clear(x, y):
                    best = (x, y); best_d = d
        return best

    tries: list[Tuple[Rule, Callable[[], Optional[_Pt]]]]
    if side is not None:
        other = "right" if side == "left" else "left"
        tries = [("beside-clear-side", lambda: beside(side)), ("above", above),  # type: ignore[arg-type]
                 ("far-side", lambda: beside(other)), ("corner", corner)]
    else:
        roomier = "left" if cx - sl > sr - cx else "right"
        second = "right" if roomier == "left" else "left"
        tries = [("neutral-above", above), ("neutral-beside", lambda: beside(roomier)),
                 ("neutral-beside", lambda: beside(second)), ("corner", corner)]
    for rule, attempt in tries:
        p = attempt()
        if p is not None:
            return result(p[0], p[1], rule)
    return result(clamp_x(preferred[0]), clamp_y(preferred[1]), "overlapping")
