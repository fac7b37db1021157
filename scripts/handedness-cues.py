#!/usr/bin/env python3
"""What the published hand answers rest on, and what two publishing policies would do to the
confidence promise (issue 52), from a dump of `handyctl eval handedness ... --dump FILE`:

    handyctl eval handedness --sensitivity --count 150 --seed 3 --dump /tmp/family.jsonl
    handyctl eval handedness Tests/Fixtures/realhands/dispel --dump /tmp/real.jsonl
    scripts/handedness-cues.py /tmp/family.jsonl
    scripts/handedness-cues.py /tmp/real.jsonl

Each published answer falls in one case of `EvidenceHandednessClassifier.decision`: no clear lean
(the seed rule's dead zones), a clear lean overturned by the evidence, a clear lean kept against
evidence that favours the other hand ("kept-against"), a clear lean kept where the pinch is near
vertical or the cues disagree ("contested-with": the evidence agrees, weakly), or a plain clear
lean. It prints each case's share right per tier and per band of 0.05 of published confidence,
then how many (member or phone, tier) rows fall short of the promise (a band judged from 10
answers right at least its mean claim - 0.05) today and under each policy. The policies are what
the published answers would become; the classifier does not do them (docs/HANDEDNESS.md).
"""

import collections
import json
import math
import sys

sys.dont_write_bytecode = True
import handedness_bands as bands  # noqa: E402

# The seed rule's dead zones (SeedHandednessRule defaults) and the classifier's vertical slice
# and disagreement threshold (EvidenceHandednessClassifier).
VERTICAL_DEAD_ZONE_MM, HORIZONTAL_DEAD_ZONE_MM = 5.0, 3.0
AMBIGUOUS_VERTICAL_DEGREES = 15.0
DISAGREEMENT_LOG_ODDS = 0.5


def case(r):
    hand = r["evidence"][0]
    (tx, ty), (bx, by) = r["top"], r["bottom"]
    dx, dy = abs(tx - bx), abs(by - ty)
    lean = "right" if tx > bx else "left"
    if not (dx > HORIZONTAL_DEAD_ZONE_MM and dy > VERTICAL_DEAD_ZONE_MM):
        return "no lean"
    if hand != lean:
        return "overturned"
    s = r["score"]
    if s != 0 and (s > 0) != (lean == "right"):
        return "kept-against"
    g, rest = r["geometryScore"], r["restScore"]
    disagree = g * rest < 0 and abs(g) >= DISAGREEMENT_LOG_ODDS and abs(rest) >= DISAGREEMENT_LOG_ODDS
    vertical = math.degrees(math.atan2(dx, dy)) < AMBIGUOUS_VERTICAL_DEGREES
    return "contested-with" if vertical or disagree else "plain"


def answered(rows):
    for r in rows:
        if "evidence" in r and r["evidence"][0] != "unknown":
            yield r, case(r)


def worst_margins(rows, policy):
    """Per (group, tier): the worst judged band's margin and lower edge (None: no band of 10)."""
    groups = collections.defaultdict(list)
    for r, c in answered(rows):
        hand, confidence = policy(c, r["evidence"][0], r["evidence"][1])
        if hand != "unknown":
            groups[(r["group"], r["tier"])].append((confidence, hand == r["truth"]))
    return {key: bands.worst_margin(answers) for key, answers in groups.items()}


POLICIES = [
    ("as published", lambda c, hand, conf: (hand, conf)),
    ("kept-against declined", lambda c, hand, conf: ("unknown", 0) if c == "kept-against" else (hand, conf)),
    (
        "kept-against declined, contested-with at 0.5",
        lambda c, hand, conf: ("unknown", 0)
        if c == "kept-against"
        else (hand, 0.5)
        if c == "contested-with"
        else (hand, conf),
    ),
]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: handedness-cues.py DUMP.jsonl")
    rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    by_tier = collections.defaultdict(lambda: [0, 0])
    by_band = collections.defaultdict(lambda: [0, 0])
    for r, c in answered(rows):
        right = r["evidence"][0] == r["truth"]
        for table, key in ((by_tier, (r["tier"], c)), (by_band, (bands.band(r["evidence"][1]) * bands.BAND_WIDTH, c))):
            table[key][0] += 1
            table[key][1] += right
    print("tier | case | answers | right")
    for (tier, c), (n, right) in sorted(by_tier.items()):
        print(f"{tier} | {c} | {n} | {right / n:.2f}")
    print("\nband from | case | answers | right (5 answers or more)")
    for (band, c), (n, right) in sorted(by_band.items()):
        if n >= 5:
            print(f"{band:.2f} | {c} | {n} | {right / n:.2f}")
    print("\npolicy | rows short of the promise | rows")
    for name, policy in POLICIES:
        worst = worst_margins(rows, policy)
        short = sorted(k for k, m in worst.items() if m is not None and m[0] < 0)
        print(f"{name} | {len(short)} | {len(worst)}")
        if name == POLICIES[-1][0]:
            for group, tier in short:
                margin, lower = worst[(group, tier)]
                print(f"    {group} | {tier}: the band from {lower:.2f} {margin:+.2f}")


if __name__ == "__main__":
    main()
