#!/usr/bin/env python3
"""Fits and measures a one-finger handedness model on CapFingerId's real taps (numpy only, deterministic).

Input: the taps CSV written by make_capfingerid_fixtures.py (one row per touch, its frame with the
largest blob sum), or, without an argument, the evemu files in capfingerid/ next to this script
(one row per touch, its frame with the largest major x minor: nearly the same taps).

Features are what an evdev device reports: position normalised to the screen (u = x/width - 0.5,
v = y/height - 0.5, y down), orientation theta (kernel convention), elongation e = 1 - minor/major,
size z = (area - AREA_MEAN) / AREA_SD with area = pi/4 major minor. The log-odds of "right hand" is
s = sum_k w_k f_k with only odd features (each changes sign when the contact is mirrored,
x -> width - x, theta -> -theta) and no intercept, so P(mirrored) = 1 - P exactly:

    lean  = sin(2 theta) * e
    f: lean, lean*v, lean*z, lean*v*z, u, u*v, u*z      (models use subsets of these)

Logistic regression with light L2 (lambda below), measured with leave-one-person-out
cross-validation; the existing rule (SingleContactHandedness) is scored on the same taps.

Finger types held out (issue 52 item 3): each finger type predicted by a model fitted on the other
finger type of the other people (leave one finger type and one person out), against a coin's
log-loss (ln 2 = 0.693); and what handyd ships: model D's probability only on a thumb-sized contact
(area >= THUMB_AREA_MM2, SingleContactHandedness.thumbSizedAreaMm2), 0.5 on every other.

Usage: fit_single_contact.py [TAPS_CSV]
"""
import glob
import math
import os
import sys

import numpy as np

L2 = 1.0
THRESHOLDS = (0.6, 0.65, 0.7, 0.75, 0.8, 0.9)
BINS = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0001)
THUMB_AREA_MM2 = 140.0  # SingleContactHandedness.thumbSizedAreaMm2
CAP = 0.65  # SingleContactHandedness.maximumProbability
MODELS = {
    "A lean": ["lean"],
    "B lean,lean*v": ["lean", "lean*v"],
    "C lean,lean*v,lean*z,lean*v*z": ["lean", "lean*v", "lean*z", "lean*v*z"],
    "D C + u,u*v,u*z": ["lean", "lean*v", "lean*z", "lean*v*z", "u", "u*v", "u*z"],
}


def read_csv(path):
    rows = []
    with open(path) as f:
        names = f.readline().strip().split(",")
        for line in f:
            d = dict(zip(names, line.strip().split(",")))
            rows.append((d["person"], d["finger"], d["hand"], float(d["x_mm"]), float(d["y_mm"]),
                         float(d["major_mm"]), float(d["minor_mm"]), float(d["orientation_rad"]),
                         float(d["display_w_mm"]), float(d["display_h_mm"])))
    return rows


def read_evemu(folder, first=False):
    """One row per touch: its frame with the largest major x minor, or (first) its first frame with
    a whole contact, the one handyd's pipeline decides a one-finger gesture's hand at."""
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "*.evemu"))):
        label, axes, cur, best, state = {}, {}, {}, None, {}
        for line in open(path):
            if "handyd-label:" in line:
                label = dict(p.split("=", 1) for p in line.split("handyd-label:")[1].split() if "=" in p)
            elif line.startswith("A: "):
                a = line.split()
                axes[int(a[1], 16)] = (int(a[2]), int(a[3]), int(a[6]))
            elif line.startswith("E: "):
                _, _, typ, code, value = line.split()
                typ, code, value = int(typ, 16), int(code, 16), int(value)
                if typ == 3:
                    if code == 0x39 and value == -1:
                        if best:
                            rows.append(best)
                        best, state = None, {}
                    else:
                        state[code] = value
                elif typ == 0 and all(k in state for k in (0x30, 0x31, 0x34, 0x35, 0x36)):
                    w, h = axes[0x35][1] / axes[0x35][2], axes[0x36][1] / axes[0x36][2]
                    r = (label["person"], label["finger"], label["hand"], state[0x35] / 10, state[0x36] / 10,
                         state[0x30] / 10, state[0x31] / 10, math.radians(state[0x34]), w, h)
                    if best is None or (not first and r[5] * r[6] > best[5] * best[6]):
                        best = r
    return rows


def features(rows, area_mean, area_sd):
    cols = {}
    x = np.array([r[3] / r[8] - 0.5 for r in rows])
    v = np.array([r[4] / r[9] - 0.5 for r in rows])
    major, minor, theta = (np.array([r[i] for r in rows]) for i in (5, 6, 7))
    z = (math.pi / 4 * major * minor - area_mean) / area_sd
    lean = np.sin(2 * theta) * (1 - minor / major)
    cols["lean"], cols["lean*v"], cols["lean*z"], cols["lean*v*z"] = lean, lean * v, lean * z, lean * v * z
    cols["u"], cols["u*v"], cols["u*z"] = x, x * v, x * z
    return cols


def fit(X, y):
    w = np.zeros(X.shape[1])
    for _ in range(50):  # Newton
        p = 1 / (1 + np.exp(-X @ w))
        g = X.T @ (p - y) + L2 * w
        H = (X * (p * (1 - p))[:, None]).T @ X + L2 * np.eye(len(w))
        w -= np.linalg.solve(H, g)
    return w


def rule(theta, major, minor):
    """SingleContactHandedness: (1 right / 0 left / None, confidence)."""
    if major <= 0 or 1 - minor / major < 0.15:
        return None, 0
    m = abs(theta)
    if m <= math.radians(15) or m >= math.radians(75):
        return None, 0
    c = 0.5 + 0.25 * min(1, (m - math.radians(15)) / math.radians(30))
    return (1 if theta < 0 else 0), c


def table(p, y, mask=None):
    mask = np.ones(len(y), bool) if mask is None else mask
    c, right = np.maximum(p, 1 - p)[mask], ((p >= 0.5) == (y == 1))[mask]
    out = []
    for t in THRESHOLDS:
        a = c >= t
        out.append(f"t={t:.2f}: coverage {a.mean():5.1%} accuracy {right[a].mean() if a.any() else float('nan'):5.1%} "
                   f"mean claimed {c[a].mean() if a.any() else float('nan'):.3f} (n={a.sum()})")
    return out


def reliability(p, y):
    c, right = np.maximum(p, 1 - p), (p >= 0.5) == (y == 1)
    out = []
    for lo, hi in zip(BINS, BINS[1:]):
        a = (c >= lo) & (c < hi)
        if a.any():
            out.append(f"  [{lo:.1f},{min(hi, 1):.1f}): n={a.sum():4d} claimed {c[a].mean():.3f} right {right[a].mean():.3f}"
                       + ("  <-- short by more than 0.05" if right[a].mean() < c[a].mean() - 0.05 else ""))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    rows = read_csv(sys.argv[1]) if len(sys.argv) > 1 else read_evemu(os.path.join(here, "capfingerid"))
    y = np.array([1.0 if r[2] == "right" else 0.0 for r in rows])
    persons = np.array([r[0] for r in rows])
    finger = np.array([r[1] for r in rows])
    third = np.array([min(2, int(3 * r[4] / r[9])) for r in rows])
    area = np.array([math.pi / 4 * r[5] * r[6] for r in rows])
    print(f"{len(rows)} taps, {len(set(persons))} people; right {int(y.sum())}, left {int(len(y) - y.sum())}")

    print("\nMean orientation (deg, kernel convention; negative = leaning up-left) by finger x hand x screen third")
    for fi in ("index", "thumb"):
        for h in ("left", "right"):
            cells = []
            for t in range(3):
                m = (finger == fi) & (np.array([r[2] for r in rows]) == h) & (third == t)
                th = np.array([r[7] for r in rows])[m]
                el = np.array([1 - r[6] / r[5] for r in rows])[m]
                th = th[el >= 0.15]
                cells.append(f"{('top', 'middle', 'bottom')[t]} {np.degrees(th.mean()) if len(th) else float('nan'):+6.1f} (n={len(th)})")
            print(f"  {fi:5s} {h:5s}: " + "   ".join(cells))

    print("\nExisting rule (SingleContactHandedness) on the same taps")
    rr = [rule(r[7], r[5], r[6]) for r in rows]
    ans = np.array([a is not None for a, _ in rr])
    ok = np.array([a == yy for (a, _), yy in zip(rr, y)])
    conf = np.array([c for _, c in rr])
    print(f"  coverage {ans.mean():.1%}, accuracy {ok[ans].mean():.1%}, mean confidence {conf[ans].mean():.3f} (n={ans.sum()})")
    for fi in ("index", "thumb"):
        m = ans & (finger == fi)
        print(f"  {fi}: coverage {m.sum() / (finger == fi).sum():.1%}, accuracy {ok[m].mean():.1%}")

    for name, keys in MODELS.items():
        p = np.zeros(len(y))
        for person in sorted(set(persons)):
            test = persons == person
            am, asd = area[~test].mean(), area[~test].std()
            cols = features(rows, am, asd)
            X = np.column_stack([cols[k] for k in keys])
            w = fit(X[~test], y[~test])
            p[test] = 1 / (1 + np.exp(-X[test] @ w))
        ll = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))
        print(f"\nModel {name}: leave-one-person-out, log-loss {ll:.3f}, accuracy at 0.5 {np.mean((p >= .5) == (y == 1)):.1%}")
        print("\n".join("  " + s for s in table(p, y)))
        print("  reliability (held-out):")
        print("\n".join(reliability(p, y)))
        for fi in ("index", "thumb"):
            print(f"  {fi}: " + "; ".join(s for s in table(p, y, finger == fi)[1::2]))
        for t in range(3):
            print(f"  {('top', 'middle', 'bottom')[t]} third: " + "; ".join(s for s in table(p, y, third == t)[1::2]))
        per = [np.mean(((p >= .5) == (y == 1))[persons == q]) for q in sorted(set(persons))]
        print("  per-person accuracy at 0.5: " + " ".join(f"{a:.2f}" for a in per))
        cols = features(rows, area.mean(), area.std())
        X = np.column_stack([cols[k] for k in keys])
        w = fit(X, y)
        print(f"  fit on all (AREA_MEAN {area.mean():.2f} mm^2, AREA_SD {area.std():.2f}): "
              + ", ".join(f"{k} {v:+.3f}" for k, v in zip(keys, w)))

    print()
    first_rows = read_evemu(os.path.join(here, "capfingerid"), first=True) if len(sys.argv) == 1 else []
    if [r[:3] for r in first_rows] == [r[:3] for r in rows]:
        finger_types_held_out(rows, first_rows, y, persons, finger)


def log_loss(p, y):
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))) if len(y) else float("nan")


def finger_types_held_out(rows, first_rows, y, persons, finger):
    """Leave one finger type and one person out; then the shipped gate, leave one person out."""
    keys = MODELS["D C + u,u*v,u*z"]
    cols = features(rows, 150.07, 39.11)
    X = np.column_stack([cols[k] for k in keys])
    first_cols = features(first_rows, 150.07, 39.11)
    X1 = np.column_stack([first_cols[k] for k in keys])
    area = np.array([math.pi / 4 * r[5] * r[6] for r in first_rows])
    lofo, lopo = np.full(len(y), 0.5), np.full(len(y), 0.5)
    for person in sorted(set(persons)):
        test = persons == person
        w = fit(X[~test], y[~test])
        lopo[test] = 1 / (1 + np.exp(-X1[test] @ w))
        for fi in sorted(set(finger)):
            train, held = ~test & (finger != fi), test & (finger == fi)
            w = fit(X[train], y[train])
            lofo[held] = 1 / (1 + np.exp(-X[held] @ w))
    gated = np.where(area >= THUMB_AREA_MM2, np.clip(lopo, 1 - CAP, CAP), 0.5)
    print(f"Finger types held out (log-loss; a coin's is {math.log(2):.3f}), model D terms, probability capped at {CAP}")
    for fi in sorted(set(finger)):
        m = finger == fi
        other = ", ".join(sorted(set(finger) - {fi}))
        print(f"  {fi}: fitted on {other} only (other people): log-loss {log_loss(np.clip(lofo[m], 1 - CAP, CAP), y[m]):.3f}, "
              f"favoured hand right {np.mean((lofo[m] >= .5) == (y[m] == 1)):.1%} (n={m.sum()})")
        print(f"  {fi}: fitted on both (other people), first frame: log-loss {log_loss(np.clip(lopo[m], 1 - CAP, CAP), y[m]):.3f}, "
              f"favoured hand right {np.mean((lopo[m] >= .5) == (y[m] == 1)):.1%}")
    for fi in sorted(set(finger)):
        m = finger == fi
        print(f"  first frame's area >= {THUMB_AREA_MM2:.0f} mm^2: {fi} {np.mean(area[m] >= THUMB_AREA_MM2):.1%} of {m.sum()} "
              f"(area mean {area[m].mean():.1f}, sd {area[m].std():.1f})")
    print(f"Shipped: model D only on a contact of {THUMB_AREA_MM2:.0f} mm^2 or more, 0.5 otherwise (leave one person out)")
    for fi in sorted(set(finger)):
        m = finger == fi
        g = m & (gated != 0.5)
        right = (gated >= .5) == (y == 1)
        print(f"  {fi}: probability on {g.sum()} of {m.sum()}, log-loss {log_loss(gated[m], y[m]):.3f}, "
              f"favoured hand right {right[g].mean() if g.any() else float('nan'):.1%} where given")
    c, right, g = np.maximum(gated, 1 - gated), (gated >= .5) == (y == 1), gated != 0.5
    for lo in (0.5, 0.55, 0.6):  # the last bin holds the cap, 0.65
        a = g & (c >= lo) & ((c < lo + 0.05) if lo < 0.6 else (c <= CAP + 1e-9))
        if a.any():
            print(f"  [{lo:.2f},{lo + .05:.2f}{']' if lo == 0.6 else ')'}: n={a.sum():4d} claimed {c[a].mean():.3f} right {right[a].mean():.3f}"
                  + ("  <-- short by more than 0.05" if right[a].mean() < c[a].mean() - 0.05 else ""))


if __name__ == "__main__":
    main()
