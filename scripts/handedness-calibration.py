#!/usr/bin/env python3
"""A confidence calibrated per cue situation, held out by family member and by phone (issue 52):
what it would do to the confidence promise and to dominance, from the dumps of

    handyctl eval handedness --sensitivity --count 200 --seed 11 --dump /tmp/family.jsonl
    handyctl eval handedness Tests/Fixtures/realhands/dispel --dump /tmp/real.jsonl
    scripts/handedness-calibration.py /tmp/family.jsonl /tmp/real.jsonl

A situation is the tier, the case of `decision` the answer comes from (scripts/handedness-cues.py:
no lean, overturned, kept-against, contested-with, plain), the evidence's confidence in bands of
0.1 from 0.5, and whether the line is within 15 degrees of vertical. An answer's calibrated
confidence is the share right of the published answers in its situation on the other members of
the family (4 pseudo-answers at today's claim), or on the real pinches of the other phones where
they have 10 answers there and are stricter. Two policies:

- remap: the same hands, each confidence replaced by its calibrated one, never below the
  publishing floor 0.6 (so the answers, and with them dominance, are exactly today's);
- floor: an answer whose calibrated confidence is below 0.6 is unknown, and one below 0.4 takes
  the other hand (its confidence 1 - the calibrated one);
- shape overturns (no calibration): with contact size or orientation, a clear lean kept against
  the evidence takes the evidence's hand at its confidence, at least 0.6 (the real pinches, which
  have positions only, are untouched).

It prints, per policy, the (member, tier) rows and real sets short of the promise (a band of 0.05
judged from 10 answers right at least its mean claim - 0.05) and the rows where handyd no longer
dominates the seed rule (at least as many answers, as accurate to one pinch; the real pinches
strictly). An estimate: the classifier does not do either (docs/HANDEDNESS.md).
"""

import collections
import importlib.util
import json
import math
import os
import sys

sys.dont_write_bytecode = True
_spec = importlib.util.spec_from_file_location(
    "cues", os.path.join(os.path.dirname(os.path.abspath(__file__)), "handedness-cues.py")
)
cues = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cues)

FLOOR = 0.6
PSEUDO_ANSWERS = 4
REAL_MINIMUM_ANSWERS = 10
TIERS = ("positions", "size", "orientation")


def load(path):
    return [r for r in (json.loads(line) for line in open(path) if line.strip()) if "evidence" in r]


def situation(r):
    (tx, ty), (bx, by) = r["top"], r["bottom"]
    vertical = math.degrees(math.atan2(abs(tx - bx), abs(by - ty))) < cues.AMBIGUOUS_VERTICAL_DEGREES
    band = min(4, int((r["evidence"][1] - 0.5) * 10))
    return (r["tier"], cues.case(r), band, vertical)


def published(rows):
    return [r for r in rows if r["evidence"][0] != "unknown"]


def counts(rows):
    """Per group, per situation: [answers, right]."""
    table = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0]))
    for r in published(rows):
        cell = table[r["group"]][situation(r)]
        cell[0] += 1
        cell[1] += r["evidence"][0] == r["truth"]
    return table


def pooled(table, leaving_out):
    total = collections.defaultdict(lambda: [0, 0])
    for group, cells in table.items():
        if group != leaving_out:
            for key, (n, right) in cells.items():
                total[key][0] += n
                total[key][1] += right
    return total


def worst_margin(answers):
    bands = collections.defaultdict(list)
    for confidence, right in answers:
        bands[min(19, math.floor(confidence * 20 + 1e-9))].append((confidence, right))
    margins = [
        (sum(ok for _, ok in b) / len(b) - (sum(c for c, _ in b) / len(b) - 0.05), lower / 20)
        for lower, b in bands.items()
        if len(b) >= 10
    ]
    return min(margins) if margins else None


def answers(rows, family, real, policy):
    """(confidence, right) of each answer under the policy, and the seed rule's (answers, right)."""
    out, seed_answers, seed_right = [], 0, 0
    for r in rows:
        if r["seed"][0] != "unknown":
            seed_answers += 1
            seed_right += r["seed"][0] == r["truth"]
        hand, claim = r["evidence"]
        if hand == "unknown":
            continue
        if policy == "as published":
            out.append((claim, hand == r["truth"]))
            continue
        if policy == "shape overturns":
            if r["tier"] != "positions" and cues.case(r) == "kept-against":
                hand = "left" if hand == "right" else "right"
                claim = max(FLOOR, round(1 / (1 + math.exp(-abs(r["score"]))), 3))
            out.append((claim, hand == r["truth"]))
            continue
        key = situation(r)
        n, right = family.get(key, (0, 0))
        p = (right + PSEUDO_ANSWERS * claim) / (n + PSEUDO_ANSWERS)
        rn, rright = real.get(key, (0, 0))
        if rn >= REAL_MINIMUM_ANSWERS:
            p = min(p, (rright + PSEUDO_ANSWERS * claim) / (rn + PSEUDO_ANSWERS))
        p = round(p, 3)
        if policy == "remap":
            out.append((max(FLOOR, p), hand == r["truth"]))
        elif p >= FLOOR:
            out.append((p, hand == r["truth"]))
        elif 1 - p >= FLOOR:
            out.append((round(1 - p, 3), hand != r["truth"]))
    return out, seed_answers, seed_right


def dominates(out, seed_answers, seed_right, tolerance):
    n, right = len(out), sum(ok for _, ok in out)
    accuracy = right / n if n else 0
    seed_accuracy = seed_right / seed_answers if seed_answers else 0
    return n >= seed_answers and accuracy + (1 / max(1, n) if tolerance else 0) >= seed_accuracy


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: handedness-calibration.py FAMILY-DUMP.jsonl REAL-DUMP.jsonl")
    family_rows, real_rows = load(sys.argv[1]), load(sys.argv[2])
    family, real = counts(family_rows), counts(real_rows)
    real_pooled = pooled(real, None)
    for policy in ("as published", "shape overturns", "remap", "floor"):
        short, behind = [], []
        for member in sorted(family):
            held_out = pooled(family, member)
            for tier in TIERS:
                rows = [r for r in family_rows if r["group"] == member and r["tier"] == tier]
                out, sa, sr = answers(rows, held_out, real_pooled, policy)
                margin = worst_margin(out)
                if margin and margin[0] < 0:
                    short.append((member, tier, margin))
                if not dominates(out, sa, sr, tolerance=True):
                    behind.append((member, tier, len(out), sum(ok for _, ok in out), sa, sr))
        print(f"{policy}: family rows short {len(short)} of {len(family) * len(TIERS)}, not dominating {len(behind)}")
        for member, tier, (margin, lower) in short:
            print(f"    short  {member} | {tier}: the band from {lower:.2f} {margin:+.3f}")
        for member, tier, n, right, sa, sr in behind:
            print(f"    behind {member} | {tier}: {right} of {n} right against the seed rule's {sr} of {sa}")
        family_all = pooled(family, None)
        everything, seed_n, seed_right = [], 0, 0
        for phone in sorted(real):
            rows = [r for r in real_rows if r["group"] == phone]
            out, sa, sr = answers(rows, family_all, pooled(real, phone), policy)
            everything += out
            seed_n, seed_right = seed_n + sa, seed_right + sr
            margin = worst_margin(out)
            text = "no band of 10" if margin is None else f"worst band from {margin[1]:.2f} {margin[0]:+.3f}"
            print(f"    real {phone}: {text}")
        margin = worst_margin(everything)
        right = sum(ok for _, ok in everything)
        print(
            f"    real pooled: worst band from {margin[1]:.2f} {margin[0]:+.3f}; {right} of {len(everything)} right"
            f" against the seed rule's {seed_right} of {seed_n}"
            f" ({'dominates' if dominates(everything, seed_n, seed_right, tolerance=False) else 'does not dominate'})"
        )


if __name__ == "__main__":
    main()
