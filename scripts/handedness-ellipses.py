#!/usr/bin/env python3
"""Do the contact ellipses tell right from wrong answers where the confidence promise is not kept
(issue 52 item 2)? From two dumps of the family with the ellipses (`eval handedness --dump` writes
each contact's major and minor axis in mm, orientation in radians and area in mm² at the decision):

    handyctl eval handedness --sensitivity --count 200 --seed 11 --dump /tmp/family.jsonl
    handyctl eval handedness --sensitivity --count 200 --seed 1 --dump /tmp/train.jsonl
    scripts/handedness-ellipses.py /tmp/family.jsonl /tmp/train.jsonl

The failing bands are those of the rows (member, tier) of the first dump that fall short of the
promise (a band of 0.05 judged from 10 answers right at least its mean claim - 0.05). Each feature
is scored by how well it tells the right answers in them from the wrong ones (AUC; 0.5 a coin),
held out by member: its direction, and the logistic model of all of a tier's ellipse features,
are fitted on the second dump's answers in the same (tier, band) cells of every *other* member
that falls short there, and measured on the member's answers in the first. A feature whose sign
flips with the hand (an axis' turn from the line) is signed by the published hand.

It also prints, per member, the answers published at 0.60-0.70 and their share right (the
independent model's low band: 42 % at 0.60-0.65, 50 % at 0.65-0.70).
"""

import collections
import math
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import handedness_bands as bands  # noqa: E402
import json  # noqa: E402

TIERS = ("positions", "size", "orientation")


def load(path):
    return [r for r in (json.loads(line) for line in open(path) if line.strip()) if "evidence" in r]


def published(rows):
    return [r for r in rows if r["evidence"][0] != "unknown"]


def right(r):
    return r["evidence"][0] == r["truth"]


def failing_cells(rows):
    """{(member, tier, band index)} of every judged band short of the promise."""
    by_row = collections.defaultdict(list)
    for r in published(rows):
        by_row[(r["group"], r["tier"])].append(r)
    cells = set()
    for (member, tier), answers in by_row.items():
        for margin, lower in bands.margins([(r["evidence"][1], right(r)) for r in answers]):
            if margin < 0:
                cells.add((member, tier, bands.band(lower + 1e-6)))
    return cells


def axial(a):
    """An axis' angle folded into (-pi/2, pi/2]."""
    while a <= -math.pi / 2:
        a += math.pi
    while a > math.pi / 2:
        a -= math.pi
    return a


def features(r):
    """The ellipse features of one answer (None where the device reports none)."""
    hand = 1 if r["evidence"][0] == "right" else -1
    (tx, ty), (bx, by) = r["top"], r["bottom"]
    line = math.atan2(by - ty, tx - bx)  # bottom -> top, math axes (y up)
    out = {}
    te, be = r.get("topEllipse"), r.get("bottomEllipse")
    if te is None:
        sys.exit("handedness-ellipses: the dump has no ellipses (a handyctl from before they were dumped)")
    for name, (major, minor, orientation, area) in (("top", te), ("bottom", be)):
        out[f"{name} major"] = major
        out[f"{name} minor"] = minor
        out[f"{name} area"] = area
        out[f"{name} elongation"] = 1 - minor / major if major and minor is not None and major > 0 else None
        if orientation is not None:
            # Kernel convention (clockwise from y) -> math angle, relative to the line; mirrored
            # for a left-hand answer so that both hands' expected axes have one sign.
            rel = axial(math.pi / 2 - orientation - line) * hand
            out[f"{name} axis from line"] = rel
            out[f"{name} |axis from line|"] = abs(rel)
        else:
            out[f"{name} axis from line"] = out[f"{name} |axis from line|"] = None
    ta, ba = out["top area"], out["bottom area"]
    out["log area bottom/top"] = math.log(ba / ta) if ta and ba and ta > 0 and ba > 0 else None
    tm, bm = out["top major"], out["bottom major"]
    out["log major bottom/top"] = math.log(bm / tm) if tm and bm and tm > 0 and bm > 0 else None
    tl, bl = out["top elongation"], out["bottom elongation"]
    out["elongation bottom - top"] = bl - tl if tl is not None and bl is not None else None
    tr, br = out["top axis from line"], out["bottom axis from line"]
    # The hand's roll closes both axes on the line: their mean distance from it.
    out["axes' closeness to the line"] = (abs(tr) + abs(br)) / 2 if tr is not None and br is not None else None
    out["axes' spread (top - bottom)"] = tr - br if tr is not None and br is not None else None
    # Both axes at the hand model's expected turns from the line (index +45 deg on top, thumb -80
    # deg below), doubled-angle cosine, as the classifier's orientation term reads them.
    if tr is not None and br is not None:
        out["axes as the answer's hand expects"] = math.cos(2 * (tr - math.radians(45))) + math.cos(
            2 * (br + math.radians(80))
        )
    else:
        out["axes as the answer's hand expects"] = None
    # Not an ellipse: the evidence besides the line for the answer's hand (the feature found before,
    # docs/HANDEDNESS.md "A feature within the short rows' situations"), for comparison.
    out["(reference) evidence besides the line, for the answer"] = r["restScore"] * hand
    pt, pb = r.get("topPressure"), r.get("bottomPressure")
    out["pressure bottom - top"] = pb - pt if pt is not None and pb is not None else None
    return out


def auc(scored):
    """AUC of (score, right) pairs: the chance a right answer scores above a wrong one."""
    pos = [s for s, ok in scored if ok]
    neg = [s for s, ok in scored if not ok]
    if not pos or not neg:
        return None
    ranked = sorted(scored, key=lambda x: x[0])
    ranks, i = {}, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        for k in range(i, j):
            ranks[k] = (i + j + 1) / 2
        i = j
    rank_sum = sum(ranks[k] for k, (_, ok) in enumerate(ranked) if ok)
    return (rank_sum - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg))


def fit_logistic(xs, ys, ridge=1.0, steps=30):
    """Logistic regression by Newton's method, standardised inputs, an L2 pull towards 0."""
    n, d = len(xs), len(xs[0])
    mean = [sum(x[j] for x in xs) / n for j in range(d)]
    sd = [max(1e-9, math.sqrt(sum((x[j] - mean[j]) ** 2 for x in xs) / n)) for j in range(d)]
    z = [[1.0] + [(x[j] - mean[j]) / sd[j] for j in range(d)] for x in xs]
    w = [0.0] * (d + 1)
    for _ in range(steps):
        grad = [ridge * w[j] if j else 0.0 for j in range(d + 1)]
        hess = [[(ridge if j == k and j else 0.0) for k in range(d + 1)] for j in range(d + 1)]
        for zi, yi in zip(z, ys):
            p = 1 / (1 + math.exp(-max(-30, min(30, sum(a * b for a, b in zip(w, zi))))))
            for j in range(d + 1):
                grad[j] += (p - yi) * zi[j]
                for k in range(d + 1):
                    hess[j][k] += p * (1 - p) * zi[j] * zi[k]
        step = solve(hess, grad)
        w = [a - b for a, b in zip(w, step)]
    return lambda x: sum(a * b for a, b in zip(w, [1.0] + [(x[j] - mean[j]) / sd[j] for j in range(d)]))


def solve(a, b):
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-12:
            continue
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] if abs(m[i][i]) > 1e-12 else 0.0 for i in range(n)]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: handedness-ellipses.py MEASURE-DUMP.jsonl (seed 11) FIT-DUMP.jsonl (seed 1)")
    measure, fit = load(sys.argv[1]), load(sys.argv[2])
    cells = failing_cells(measure)
    members = sorted({m for m, _, _ in cells})
    print(f"{len({(m, t) for m, t, _ in cells})} rows short, {len(cells)} failing bands")

    def inside(rows, member_ok):
        return [
            r
            for r in published(rows)
            if (r["group"], r["tier"], bands.band(r["evidence"][1])) in cells and member_ok(r["group"])
        ]

    # Where the fitting dump's answers of the same cells come from: the failing (tier, band)
    # cells, each member's own.
    for tier in TIERS:
        measured = [r for r in inside(measure, lambda m: True) if r["tier"] == tier]
        if not measured:
            continue
        fitted = [r for r in inside(fit, lambda m: True) if r["tier"] == tier]
        n_right = sum(right(r) for r in measured)
        print(
            f"\n{tier}: {len(measured)} answers in failing bands at the measured seed, {n_right} right"
            f" ({100 * n_right / len(measured):.0f} %); {len(fitted)} in the same cells at the fitted seed"
        )
        names = list(features(measured[0]))
        usable = []
        for name in names:
            held = []
            for member in members:
                train = [(features(r)[name], right(r)) for r in fitted if r["group"] != member]
                train = [(v, ok) for v, ok in train if v is not None]
                test = [(features(r)[name], right(r)) for r in measured if r["group"] == member]
                test = [(v, ok) for v, ok in test if v is not None]
                if not train or not test:
                    continue
                a = auc(train)
                sign = 1 if a is None or a >= 0.5 else -1
                held += [(sign * v, ok) for v, ok in test]
            a = auc(held)
            if a is None:
                continue
            usable.append(name)
            print(f"    {name:36s} AUC {a:.3f} held out by member ({len(held)} answers)")
        # All of the tier's ellipse features at once, a logistic model held out by member, on the
        # answers whose contacts report every one of them.
        complete = [n for n in usable if not n.startswith("(reference)") and not n.startswith("pressure")]

        def full(r):
            return all(features(r)[n] is not None for n in complete)

        if complete:
            held = []
            for member in members:
                train = [r for r in fitted if r["group"] != member and full(r)]
                test = [r for r in measured if r["group"] == member and full(r)]
                if not train or not test or len({right(r) for r in train}) < 2:
                    continue
                model = fit_logistic([[features(r)[n] for n in complete] for r in train], [right(r) for r in train])
                held += [(model([features(r)[n] for n in complete]), right(r)) for r in test]
            a = auc(held)
            if a is not None:
                print(
                    f"    all {len(complete)} ellipse features, logistic, held out by member: AUC {a:.3f}"
                    f" ({len(held)} answers with every one)"
                )

    print("\nPublished at 0.60-0.70, per member with 10 such answers (the independent model: 42 % / 50 %):")
    low = collections.defaultdict(lambda: [[0, 0, 0.0], [0, 0, 0.0]])
    for r in published(measure):
        c = r["evidence"][1]
        if 0.6 <= c < 0.7:
            cell = low[r["group"]][0 if c < 0.65 else 1]
            cell[0] += 1
            cell[1] += right(r)
            cell[2] += c
    for member, parts in sorted(low.items(), key=lambda kv: sum(p[1] for p in kv[1]) / max(1, sum(p[0] for p in kv[1]))):
        text = []
        for (n, ok, claims), name in zip(parts, ("0.60-0.65", "0.65-0.70")):
            if n:
                text.append(f"{name}: {n}, {100 * ok / n:.0f} % right (claim {claims / n:.3f})")
        if sum(p[0] for p in parts) >= 10:
            print(f"    {member}: " + "; ".join(text))
    print("\nThe same per tier, on the members where the band from 0.60 is right under 45 %:")
    worst = [m for m, parts in low.items() if parts[0][0] >= 10 and parts[0][1] / parts[0][0] < 0.45]
    for member in sorted(worst):
        text = []
        for tier in TIERS:
            rows = [r for r in published(measure) if r["group"] == member and r["tier"] == tier]
            low_rows = [r for r in rows if 0.6 <= r["evidence"][1] < 0.7]
            if low_rows:
                ok = sum(right(r) for r in low_rows)
                text.append(f"{tier} {len(low_rows)}, {100 * ok / len(low_rows):.0f} %")
        print(f"    {member}: " + "; ".join(text))


if __name__ == "__main__":
    main()
