#!/usr/bin/env python3
"""A confidence calibrated per cue situation, held out by family member and by phone (issue 52):
what it would do to the confidence promise and to dominance, from the dumps of

    handyctl eval handedness --sensitivity --count 200 --seed 11 --dump /tmp/family.jsonl
    handyctl eval handedness Tests/Fixtures/realhands/dispel --dump /tmp/real.jsonl
    scripts/handedness-calibration.py /tmp/family.jsonl /tmp/real.jsonl

A situation is the tier, the case of `decision` the answer comes from (scripts/handedness-cues.py:
no lean, overturned, kept-against, contested-with, plain), the uncalibrated claim in bands of
0.1 from 0.5 (0.9 split at 0.95), and whether the line is within 15 degrees of vertical. An answer's calibrated
confidence is the share right of the published answers in its situation on the other members of
the family (4 pseudo-answers at today's claim), or on the real pinches of the other phones where
they have 10 answers there and are stricter. The policies:

- remap: the same hands, each confidence replaced by its calibrated one, never below the
  publishing floor 0.6 (so the answers, and with them dominance, are exactly today's);
- floor: an answer whose calibrated confidence is below 0.6 is unknown, and one below 0.4 takes
  the other hand (its confidence 1 - the calibrated one);
- honest (issue 52, the lead's proposal): no floor; a calibrated confidence above 0.5 publishes
  the hand, one at or below 0.5 is unknown;
- honest, strictest member: as honest, the claim no more than any other member with 10 answers
  in the situation earns there (the promise is per member);
- honest, other hand: as honest, but below 0.5 the other hand at 1 - the calibrated confidence;
- shape overturns (no calibration): with contact size or orientation, a clear lean kept against
  the evidence takes the evidence's hand at its confidence, at least 0.6 (the real pinches, which
  have positions only, are untouched).

It prints, per policy, the (member, tier) rows and real sets short of the promise (a band of 0.05
judged from 10 answers right at least its mean claim - 0.05) and the rows where handyd no longer
dominates the seed rule (at least as many answers, as accurate to one pinch; the real pinches
strictly). "as published" is what the dumped classifier does; the others are estimates from the
uncalibrated claims the dump carries (docs/HANDEDNESS.md).

Given a third dump, the family's at another seed (the training dump below), the table is that
dump's, every member pooled, as the classifier's is (its "as published" and "remap" then agree),
and "honest, strictest member" reads that dump's members:

    scripts/handedness-calibration.py /tmp/family.jsonl /tmp/real.jsonl /tmp/train.jsonl

With --rest-against (before the dumps) each situation is also split by whether the evidence
besides the line (the dump's restScore) is against the published hand (a measurement, not what the
classifier does; docs/HANDEDNESS.md "A confidence is a promise"). With --split-ellipse FEATURE
(needs the training dump) each situation is split by one of scripts/handedness-ellipses.py's
features, above or below its median on the training dump's answers of the tier (a measurement too).

Given the training dump, it also shows the classifier's own calibration (EvidenceHandednessClassifier.
decision, items 4-6 of "What is published") with each member held out of the table: the table
counted on the training dump's other members (and the real pinches), then the member's answers
calibrated with it, as a member the table never saw would be. The emulation is checked first: with
the whole table it must give exactly the dump's answers.

With --swift it writes ConfidenceCalibration.cells (the classifier's table) from a training dump
of the family, which must be of a seed no evaluation uses (seed 1), and the real pinches' dump:

    handyctl eval handedness --sensitivity --count 1000 --seed 1 --dump /tmp/train.jsonl
    scripts/handedness-calibration.py --swift /tmp/train.jsonl /tmp/real.jsonl
"""

import collections
import importlib.util
import json
import math
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import handedness_bands as bands  # noqa: E402
_spec = importlib.util.spec_from_file_location(
    "cues", os.path.join(os.path.dirname(os.path.abspath(__file__)), "handedness-cues.py")
)
cues = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cues)
_spec = importlib.util.spec_from_file_location(
    "ellipses", os.path.join(os.path.dirname(os.path.abspath(__file__)), "handedness-ellipses.py")
)
ellipses = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ellipses)

FLOOR = 0.6
# ConfidenceSituation.bandEdges: where the uncalibrated claim's bands begin.
BAND_EDGES = (0.6, 0.7, 0.8, 0.9, 0.95)
PSEUDO_ANSWERS = 4
REAL_MINIMUM_ANSWERS = 10
# "honest, strictest member": a member's own share counts from this many answers in the situation.
MEMBER_MINIMUM_ANSWERS = 10
# ConfidenceCalibration.memberStandardErrors: a member's share counts less this many standard errors
# (its 1,000 training pinches are one draw of that hand; the evaluations are others).
MEMBER_STANDARD_ERRORS = 1
# The honest policies publish a hand only above this calibrated confidence (a coin toss).
COIN_TOSS = 0.5
TIERS = ("positions", "size", "orientation")
# --rest-against (measured, not the classifier's): each situation split by whether the evidence
# besides the line (restScore: sizes, orientations, starts) is against the published hand.
SPLIT_BY_REST = False
# --split-ellipse FEATURE (measured, not the classifier's): each situation with the contacts'
# ellipses split by one of scripts/handedness-ellipses.py's features against its median over the
# training dump's answers of the tier (issue 52 item 2).
SPLIT_BY_ELLIPSE = None
ELLIPSE_MEDIANS = {}


def load(path):
    return [r for r in (json.loads(line) for line in open(path) if line.strip()) if "evidence" in r]


def claim(r):
    """The published answer's confidence before the classifier's calibration."""
    return r["uncalibrated"][1] if "uncalibrated" in r else r["evidence"][1]


def situation(r):
    if "situation" in r:  # the classifier's own (dumps from the calibrating classifier on)
        tier, case, _, vertical = r["situation"][:4]
        key = (tier, case, sum(claim(r) >= edge for edge in BAND_EDGES), vertical)
    else:
        (tx, ty), (bx, by) = r["top"], r["bottom"]
        vertical = math.degrees(math.atan2(abs(tx - bx), abs(by - ty))) < cues.AMBIGUOUS_VERTICAL_DEGREES
        band = sum(claim(r) >= edge for edge in BAND_EDGES)
        key = (r["tier"], cues.case(r), band, vertical)
    if SPLIT_BY_REST:
        key += ((r["restScore"] > 0) != (r["evidence"][0] == "right") and r["restScore"] != 0,)
    if SPLIT_BY_ELLIPSE:
        value = ellipses.features(r)[SPLIT_BY_ELLIPSE] if r["evidence"][0] != "unknown" else None
        median = ELLIPSE_MEDIANS.get(r["tier"])
        key += (None if value is None or median is None else value > median,)
    return key


def published(rows):
    return [r for r in rows if r["evidence"][0] != "unknown"]


def rules_hand(r):
    """The hand the rules give, before the calibration (which takes the other hand on the tiers of
    EvidenceHandednessClassifier.situationDecidesTheHand where its situation is mostly wrong):
    what a situation's share counts."""
    return r["uncalibrated"][0] if "uncalibrated" in r else r["evidence"][0]


def counts(rows):
    """Per group, per situation: [answers, right] of the rules' hands."""
    table = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0]))
    for r in published(rows):
        cell = table[r["group"]][situation(r)]
        cell[0] += 1
        cell[1] += rules_hand(r) == r["truth"]
    return table


def pooled(table, leaving_out):
    total = collections.defaultdict(lambda: [0, 0])
    for group, cells in table.items():
        if group != leaving_out:
            for key, (n, right) in cells.items():
                total[key][0] += n
                total[key][1] += right
    return total


def answers(rows, family, real, policy, members=None):
    """(confidence, right) of each answer under the policy, and the seed rule's (answers, right).
    members: each calibrating member's own counts (the "strictest member" policy)."""
    out, seed_answers, seed_right = [], 0, 0
    for r in rows:
        if r["seed"][0] != "unknown":
            seed_answers += 1
            seed_right += r["seed"][0] == r["truth"]
        hand, published_claim = r["evidence"]
        if hand == "unknown":
            continue
        if policy == "as published":
            out.append((published_claim, hand == r["truth"]))
            continue
        hand = rules_hand(r)
        c = claim(r)
        if policy == "shape overturns":
            if r["tier"] != "positions" and cues.case(r) == "kept-against":
                hand = "left" if hand == "right" else "right"
                c = max(FLOOR, round(1 / (1 + math.exp(-abs(r["score"]))), 3))
            out.append((c, hand == r["truth"]))
            continue
        key = situation(r)
        n, right = family.get(key, (0, 0))
        p = (right + PSEUDO_ANSWERS * c) / (n + PSEUDO_ANSWERS)
        rn, rright = real.get(key, (0, 0))
        if rn >= REAL_MINIMUM_ANSWERS:
            p = min(p, (rright + PSEUDO_ANSWERS * c) / (rn + PSEUDO_ANSWERS))
        if policy == "honest, strictest member":
            for cells in (members or {}).values():
                mn, mright = cells.get(key, (0, 0))
                if mn >= MEMBER_MINIMUM_ANSWERS:
                    p = min(p, (mright + PSEUDO_ANSWERS * c) / (mn + PSEUDO_ANSWERS))
        p = round(p, 3)
        if policy.startswith("honest"):
            if p > COIN_TOSS:
                out.append((p, hand == r["truth"]))
            elif policy == "honest, other hand" and 1 - p > COIN_TOSS:
                out.append((round(1 - p, 3), hand != r["truth"]))
        elif policy == "remap":
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


CASES = ("no lean", "overturned", "kept-against", "contested-with", "plain")
SWIFT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "HandyCore", "Handedness", "ConfidenceCalibration.swift"
)


def member_bounds(n, right):
    """A member's share of the rules' hand less and plus MEMBER_STANDARD_ERRORS standard errors."""
    share = right / n
    margin = MEMBER_STANDARD_ERRORS * math.sqrt(share * (1 - share) / n)
    return share - margin, share + margin


def extreme_members(members):
    """Per situation, the (answers, right) of the member whose rules' hand is right least often
    there and of the one right most often, among those with MEMBER_MINIMUM_ANSWERS answers in it,
    each by its share less (more) MEMBER_STANDARD_ERRORS standard errors (ties: the one with more
    answers): the promise is per member, the stricter wins."""
    weakest, strongest = {}, {}
    for cells in members.values():
        for key, (n, right) in cells.items():
            if n < MEMBER_MINIMUM_ANSWERS:
                continue
            low, high = member_bounds(n, right)
            w = weakest.get(key)
            if w is None or (low, -n) < (member_bounds(*w)[0], -w[0]):
                weakest[key] = (n, right)
            s = strongest.get(key)
            if s is None or (high, n) > (member_bounds(*s)[1], s[0]):
                strongest[key] = (n, right)
    return weakest, strongest


# EvidenceHandednessClassifier.situationDecidesTheHand, otherHandMinimumShare and
# contestedLeanMaximumConfidence: where an answer takes the other hand, and what it claims at most.
SITUATION_DECIDES_THE_HAND = ("size", "orientation")
OTHER_HAND_MINIMUM_SHARE = 0.7
CONTESTED_LEAN_MAXIMUM = 0.75


def calibration_table(members, real, leaving_out=None):
    """ConfidenceCalibration's cells from per-member counts (less one member) and the real pinches'."""
    kept = {m: cells for m, cells in members.items() if m != leaving_out}
    weakest, strongest = extreme_members(kept)
    return pooled(kept, None), real, weakest, strongest


def classifier_answer(r, table):
    """(hand, confidence) as EvidenceHandednessClassifier.decision publishes the dumped answer's
    uncalibrated one with this table (ConfidenceCalibration.share and promise); None: unknown."""
    family, real, weakest, strongest = table
    hand, c = r["uncalibrated"]
    if hand == "unknown":
        return None
    key = situation(r)

    def share(count):
        n, right = count
        return (right + PSEUDO_ANSWERS * c) / (n + PSEUDO_ANSWERS)

    rn = real.get(key, (0, 0))
    p = share(family.get(key, (0, 0)))
    if rn[0] >= REAL_MINIMUM_ANSWERS:
        p = min(p, share(rn))
    turned = r["tier"] in SITUATION_DECIDES_THE_HAND and 1 - p >= OTHER_HAND_MINIMUM_SHARE

    def of_the_hand(count):
        return 1 - share(count) if turned else share(count)

    promise = of_the_hand(family.get(key, (0, 0)))
    if rn[0] >= REAL_MINIMUM_ANSWERS:
        promise = min(promise, of_the_hand(rn))
    member = (strongest if turned else weakest).get(key)
    if member and member[0] >= MEMBER_MINIMUM_ANSWERS:
        q = of_the_hand(member)
        promise = min(promise, q - MEMBER_STANDARD_ERRORS * math.sqrt(q * (1 - q) / (member[0] + PSEUDO_ANSWERS)))
    if turned:
        promise = min(promise, CONTESTED_LEAN_MAXIMUM)
        hand = "left" if hand == "right" else "right"
    return hand, round(max(FLOOR, promise), 3)


def held_out_by_member(family_rows, real_rows, training_rows):
    """The classifier's calibration with each member held out of its table (see the docstring), as lines."""
    lines = []
    members, real = counts(training_rows), pooled(counts(real_rows), None)
    whole = calibration_table(members, real)
    differ = 0
    for r in family_rows:
        if "uncalibrated" in r:
            hand, confidence = classifier_answer(r, whole) or ("unknown", 0)
            differ += hand != r["evidence"][0] or abs(confidence - r["evidence"][1]) > 0.0015
    lines.append(f"the classifier's calibration emulated with the whole table: {differ} answers differ from the dump (0 expected)")
    for name, leaving in (("the whole table", False), ("each member held out of the table", True)):
        short, behind, rows = [], [], 0
        for member in sorted({r["group"] for r in family_rows}):
            table = calibration_table(members, real, member) if leaving else whole
            for tier in TIERS:
                rs = [r for r in family_rows if r["group"] == member and r["tier"] == tier]
                if not rs:
                    continue
                rows += 1
                out = [(d[1], d[0] == r["truth"]) for r in rs for d in [classifier_answer(r, table)] if d]
                margin = bands.worst_margin(out)
                if margin and margin[0] < 0:
                    short.append((member, tier, margin, len(out), sum(ok for _, ok in out)))
                seed = [r for r in rs if r["seed"][0] != "unknown"]
                seed_right = sum(r["seed"][0] == r["truth"] for r in seed)
                if not dominates(out, len(seed), seed_right, tolerance=True):
                    behind.append((member, tier, len(out), sum(ok for _, ok in out), len(seed), seed_right))
        lines.append(f"{name}: family rows short {len(short)} of {rows}, not dominating {len(behind)}")
        for member, tier, (margin, lower), n, right in short:
            lines.append(f"    short  {member} | {tier}: the band from {lower:.2f} {margin:+.3f} ({right} of {n} answers right)")
        for member, tier, n, right, sa, sr in behind:
            lines.append(f"    behind {member} | {tier}: {right} of {n} right against the seed rule's {sr} of {sa}")
    # The real pinches, each phone held out of the table's real counts (the family's whole).
    phones, everything = counts(real_rows), []
    for phone in sorted(phones):
        table = calibration_table(members, pooled(phones, phone))
        out = [(d[1], d[0] == r["truth"]) for r in real_rows if r["group"] == phone for d in [classifier_answer(r, table)] if d]
        everything += out
        margin = bands.worst_margin(out)
        text = "no band of 10" if margin is None else f"worst band from {margin[1]:.2f} {margin[0]:+.3f}"
        lines.append(f"    real {phone}, held out of the table: {text}; {sum(ok for _, ok in out)} of {len(out)} right")
    margin = bands.worst_margin(everything)
    lines.append(f"    real pooled, each phone held out: worst band from {margin[1]:.2f} {margin[0]:+.3f}")
    return lines


def write_swift(family_rows, real_rows):
    """ConfidenceCalibration.cells from the dumps, in ConfidenceSituation.index's order."""
    members = counts(family_rows)
    family, real = pooled(members, None), pooled(counts(real_rows), None)
    weakest, strongest = extreme_members(members)
    lines = ["    static let cells: [Cell] = ["]
    for tier in TIERS:
        for case in CASES:
            for band in range(len(BAND_EDGES) + 1):
                for vertical in (False, True):
                    key = (tier, case, band, vertical)
                    (fn, fr), (rn, rr) = family.get(key, (0, 0)), real.get(key, (0, 0))
                    (wn, wr), (sn, sr) = weakest.get(key, (0, 0)), strongest.get(key, (0, 0))
                    lines.append(
                        f"        // {tier}, {case}, from {([0.5] + list(BAND_EDGES))[band]:.2f}"
                        f"{', near vertical' if vertical else ''}"
                    )
                    lines.append(
                        f"        Cell(family: Count({fn}, {fr}), real: Count({rn}, {rr}),"
                        f" weakest: Count({wn}, {wr}), strongest: Count({sn}, {sr})),"
                    )
    lines.append("    ]")
    text = open(SWIFT).read()
    start = text.index("    static let cells: [Cell] =")
    end = text.index("\n}", start)
    open(SWIFT, "w").write(text[:start] + "\n".join(lines) + text[end:])


def main():
    global SPLIT_BY_REST, SPLIT_BY_ELLIPSE
    if "--rest-against" in sys.argv[1:]:
        SPLIT_BY_REST = True
        sys.argv.remove("--rest-against")
    if "--split-ellipse" in sys.argv[1:-1]:
        at = sys.argv.index("--split-ellipse")
        SPLIT_BY_ELLIPSE = sys.argv[at + 1]
        del sys.argv[at : at + 2]
        if len(sys.argv) != 4:
            sys.exit("handedness-calibration: --split-ellipse needs the training dump (its medians split)")
        for tier in TIERS:
            values = sorted(
                v
                for v in (
                    ellipses.features(r).get(SPLIT_BY_ELLIPSE)
                    for r in published(load(sys.argv[3]))
                    if r["tier"] == tier
                )
                if v is not None
            )
            if values:
                ELLIPSE_MEDIANS[tier] = values[len(values) // 2]
    if (SPLIT_BY_REST or SPLIT_BY_ELLIPSE) and "--swift" in sys.argv:
        sys.exit("handedness-calibration: --rest-against is a measurement; the classifier's table has no such split")
    if len(sys.argv) == 4 and sys.argv[1] == "--swift":
        write_swift(load(sys.argv[2]), load(sys.argv[3]))
        return
    if len(sys.argv) not in (3, 4):
        sys.exit(
            "usage: handedness-calibration.py FAMILY-DUMP.jsonl REAL-DUMP.jsonl [TRAINING-FAMILY-DUMP.jsonl]\n"
            "       handedness-calibration.py --swift TRAINING-FAMILY-DUMP.jsonl REAL-DUMP.jsonl"
        )
    family_rows, real_rows = load(sys.argv[1]), load(sys.argv[2])
    family, real = counts(family_rows), counts(real_rows)
    # With a training dump the table is the classifier's (fitted on another seed, every member),
    # not the evaluated dump's other members.
    training = counts(load(sys.argv[3])) if len(sys.argv) == 4 else None
    real_pooled = pooled(real, None)
    policies = ("as published", "shape overturns", "remap", "floor")
    policies += ("honest", "honest, strictest member", "honest, other hand")
    if training and not (SPLIT_BY_REST or SPLIT_BY_ELLIPSE):
        print("\n".join(held_out_by_member(family_rows, real_rows, load(sys.argv[3]))))
    for policy in policies:
        short, behind = [], []
        for member in sorted(family):
            held_out = pooled(training or family, None if training else member)
            for tier in TIERS:
                rows = [r for r in family_rows if r["group"] == member and r["tier"] == tier]
                others = training or {m: cells for m, cells in family.items() if m != member}
                out, sa, sr = answers(rows, held_out, real_pooled, policy, others)
                margin = bands.worst_margin(out)
                if margin and margin[0] < 0:
                    short.append((member, tier, margin))
                if not dominates(out, sa, sr, tolerance=True):
                    behind.append((member, tier, len(out), sum(ok for _, ok in out), sa, sr))
        fewer = sum(n < sa for _, _, n, _, sa, _ in behind)
        print(
            f"{policy}: family rows short {len(short)} of {len(family) * len(TIERS)}, not dominating {len(behind)}"
            f" ({fewer} of them answering fewer than the seed rule)"
        )
        for member, tier, (margin, lower) in short:
            print(f"    short  {member} | {tier}: the band from {lower:.2f} {margin:+.3f}")
        for member, tier, n, right, sa, sr in behind:
            print(f"    behind {member} | {tier}: {right} of {n} right against the seed rule's {sr} of {sa}")
        family_all = pooled(training or family, None)
        everything, seed_n, seed_right = [], 0, 0
        for phone in sorted(real):
            rows = [r for r in real_rows if r["group"] == phone]
            out, sa, sr = answers(rows, family_all, pooled(real, phone), policy, training or family)
            everything += out
            seed_n, seed_right = seed_n + sa, seed_right + sr
            margin = bands.worst_margin(out)
            text = "no band of 10" if margin is None else f"worst band from {margin[1]:.2f} {margin[0]:+.3f}"
            print(f"    real {phone}: {text}")
        margin = bands.worst_margin(everything)
        right = sum(ok for _, ok in everything)
        print(
            f"    real pooled: worst band from {margin[1]:.2f} {margin[0]:+.3f}; {right} of {len(everything)} right"
            f" against the seed rule's {seed_right} of {seed_n}"
            f" ({'dominates' if dominates(everything, seed_n, seed_right, tolerance=False) else 'does not dominate'})"
        )


if __name__ == "__main__":
    main()
