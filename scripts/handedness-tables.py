#!/usr/bin/env python3
"""Regenerates every table of docs/HANDEDNESS.md from this build (one command):

    scripts/handedness-tables.py            # rewrite the tables in place
    scripts/handedness-tables.py --check    # exit 1 when a table differs (nothing written)

Each table sits between `<!-- table: NAME -->` and `<!-- /table -->` in the page and is made by a
real run: `handyctl eval handedness` on the real recordings in Tests/Fixtures/realhands/ (per phone
and pooled), the one-finger model's leave-one-person-out fit (fit_single_contact.py), the project's
synthetic set (`generate pinches --count 600 --seed 2`), the sensitivity family (`--sensitivity
--count 600 --seed 3`), the fit and the calibration table held out by member (`--fit-held-out`;
scripts/handedness-calibration.py on the dumps at 1,000 a row on seed 1 and 600 on seed 3), the
enrolment left out (`--enrolment K`) and the hand of one finger from its
shadows (`--hover --count 200 --seed 4`) and its covered region (`--hover --region --count 100
--seed 6`). Takes a few minutes (release build of handyctl, then ~4 min of evaluation).
"""
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile

import handedness_bands as bands

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "HANDEDNESS.md")
REAL = os.path.join(ROOT, "Tests", "Fixtures", "realhands")
HANDYCTL = os.path.join(ROOT, ".build", "release", "handyctl")


def run(*args, **kw):
    return subprocess.run(args, cwd=ROOT, check=True, capture_output=True, text=True, **kw).stdout


_evaluated = {}


def evaluate(folder):
    if folder not in _evaluated:
        rows = json.loads(run(HANDYCTL, "eval", "handedness", folder, "--json"))
        _evaluated[folder] = {r["classifier"]: r for r in rows}
    return _evaluated[folder]


# A band of 0.05 of published confidence is judged from this many answers (HandednessMetrics).
BAND_MINIMUM, BAND_ALLOWANCE = bands.BAND_MINIMUM, bands.BAND_ALLOWANCE


def pct(v):
    return f"{v * 100:.1f} %"


def linked(files, tmp, name):
    """A folder of symlinks to `files` (eval reads a folder)."""
    d = os.path.join(tmp, name)
    os.makedirs(d)
    for f in files:
        os.symlink(f, os.path.join(d, os.path.basename(f)))
    return d


def real_pinches(tmp):
    sets = real_sets(tmp)
    out = ["| set | pinches | handyd: accuracy @ coverage | seed rule: accuracy @ coverage | handyd ECE |",
           "|---|---:|---:|---:|---:|"]
    for name, folder in sets:
        r = evaluate(folder)
        e, s = r["evidence"]["metrics"], r["seed"]["metrics"]
        out.append(f"| {name} | {e['pinches']} | {pct(e['accuracy'])} @ {pct(e['coverage'])} | "
                   f"{pct(s['accuracy'])} @ {pct(s['coverage'])} | {e['calibrationError']:.3f} |")
    return "\n".join(out)


_real_sets = []


def real_sets(tmp):
    """The real pinch sets: pooled, per phone, per hand, bug-pinch's two levels (folders of links)."""
    if _real_sets:
        return _real_sets
    dispel = os.path.join(REAL, "dispel")
    bug = os.path.join(REAL, "dispel-bugpinch")
    files = sorted(os.path.join(dispel, f) for f in os.listdir(dispel) if f.endswith(".evemu"))
    bugs = sorted(os.path.join(bug, f) for f in os.listdir(bug) if f.endswith(".evemu"))
    sets = [("all four phones", dispel)]
    for phone, label in (("iphone12", "iPhone 12"), ("iphonex", "iPhone X"), ("galaxys10", "Galaxy S10"), ("reno2z", "Reno2 Z")):
        sets.append((label, linked([f for f in files if os.path.basename(f).startswith(phone + "-")], tmp, phone)))
    for hand in ("left", "right"):
        sets.append((f"{hand} hands", linked([f for f in files if f"-{hand}-" in os.path.basename(f)], tmp, hand)))
    for level in ("0", "1"):
        sets.append((f"bug-pinch level {level} (labelled left)",
                     linked([f for f in bugs if os.path.basename(f).startswith(f"iphonese-{level}-")], tmp, "bug" + level)))
    _real_sets.extend(sets)
    return sets


def reliability_real(tmp):
    """Every band of 0.05 of handyd's published confidence on each real set: answers, mean claim,
    share right, margin (right − (claim − 0.05)); a band of fewer than 10 answers is shown, not judged."""
    out = ["| set | band | answers | mean claim | right | margin |", "|---|---|---:|---:|---:|---:|"]
    for name, folder in real_sets(tmp):
        bands = evaluate(folder)["evidence"]["metrics"]["bands"]
        for b in bands:
            margin = b["accuracy"] - (b["meanConfidence"] - BAND_ALLOWANCE)
            judged = b["count"] >= BAND_MINIMUM
            mark = f"{margin:+.3f}" if judged else f"({margin:+.3f}, not judged)"
            if judged and margin < 0:
                mark += " **short**" + (" (labels contradict each other)" if name.startswith("bug-pinch") else "")
            out.append(f"| {name} | {b['lower']:.2f}–{b['lower'] + 0.05:.2f} | {b['count']} | "
                       f"{b['meanConfidence']:.3f} | {pct(b['accuracy'])} | {mark} |")
    return "\n".join(out)


def one_finger(_):
    text = run(HANDYCTL, "eval", "handedness", os.path.join(REAL, "capfingerid"))
    return text.strip()


def one_finger_held_out(_):
    """The fit script's counts, the old rule on the same taps, model D held out person by person,
    and finger types held out (issue 52 item 3) with what handyd ships."""
    text = run(sys.executable, os.path.join(REAL, "fit_single_contact.py"))
    blocks = [b.strip("\n") for b in re.split(r"\n\s*\n", text)]
    keep = [blocks[0]] + [b for b in blocks if b.startswith(("Existing rule", "Model D", "Finger types held out"))]
    return "```\n" + "\n\n".join(keep) + "\n```"


def synthetic_defaults(tmp):
    folder = os.path.join(tmp, "pinches")
    run(HANDYCTL, "generate", "pinches", folder, "--count", "600", "--seed", "2")
    return run(HANDYCTL, "eval", "handedness", folder).strip()


def sensitivity(_):
    return "```\n" + run(HANDYCTL, "eval", "handedness", "--sensitivity", "--count", "600", "--seed", "3").rstrip() + "\n```"


def fit_held_out(_):
    """The weights refitted with each member held out of the mixture (issue 52 item 2)."""
    return run(HANDYCTL, "eval", "handedness", "--sensitivity", "--fit-held-out", "--count", "600", "--seed", "3").rstrip()


def calibration_held_out(tmp):
    """The classifier's calibration with each member held out of its table (issue 52 item 2): the
    table from the training dump (1,000 a row, seed 1) less the member, on the member's answers at
    600 a row on seed 3; and each phone held out of the real pinches' counts."""
    spec = importlib.util.spec_from_file_location("calibration", os.path.join(ROOT, "scripts", "handedness-calibration.py"))
    calibration = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(calibration)
    dumps = {}
    for name, args in (
        ("train", ["--sensitivity", "--count", "1000", "--seed", "1"]),
        ("family", ["--sensitivity", "--count", "600", "--seed", "3"]),
        ("real", [os.path.join(REAL, "dispel")]),
    ):
        dumps[name] = os.path.join(tmp, name + ".jsonl")
        run(HANDYCTL, "eval", "handedness", *args, "--dump", dumps[name])
    lines = calibration.held_out_by_member(
        calibration.load(dumps["family"]), calibration.load(dumps["real"]), calibration.load(dumps["train"]))
    return "```\n" + "\n".join(lines) + "\n```"


def enrolment(_):
    """Leaving the enrolment out: DISPEL per phone (k = 5, 10) and synthetic members (positions
    k = 5, 10; orientation k = 10), one table."""
    runs = [[os.path.join(REAL, "dispel"), "--enrolment", k] for k in ("5", "10")]
    runs += [["--sensitivity", "--enrolment", k, "--tier", t] for k, t in (("5", "positions"), ("10", "positions"), ("10", "orientation"))]
    header, rows = [], []
    for args in runs:
        lines = [l for l in run(HANDYCTL, "eval", "handedness", *args).splitlines() if l.startswith("|")]
        header = header or lines[:2]
        rows += lines[2:]
    return "\n".join(header + rows)


def enrolment_taps(_):
    """One finger's enrolment left out: CapFingerId per person with both hands (k = 10, 15, 20), one table."""
    header, rows = [], []
    for k in ("10", "15", "20"):
        lines = [l for l in run(HANDYCTL, "eval", "handedness", os.path.join(REAL, "capfingerid"), "--enrolment", k).splitlines() if l.startswith("|")]
        header = header or lines[:2]
        rows += lines[2:]
    return "\n".join(header + rows)


def hover_one_finger(_):
    """The hand of one finger from its shadows on the hand model family with hover."""
    return run(HANDYCTL, "eval", "handedness", "--hover", "--count", "200", "--seed", "4").rstrip()


def hover_region(_):
    """The covered region with and without hover against the hover family's real hands."""
    return run(HANDYCTL, "eval", "handedness", "--hover", "--region", "--count", "100", "--seed", "6").rstrip()


TABLES = {
    "real-pinches": real_pinches,
    "reliability-real": reliability_real,
    "one-finger": one_finger,
    "one-finger-held-out": one_finger_held_out,
    "synthetic-defaults": synthetic_defaults,
    "sensitivity": sensitivity,
    "fit-held-out": fit_held_out,
    "calibration-held-out": calibration_held_out,
    "enrolment": enrolment,
    "enrolment-taps": enrolment_taps,
    "hover-one-finger": hover_one_finger,
    "hover-region": hover_region,
}


def main():
    check = "--check" in sys.argv[1:]
    subprocess.run(["swift", "build", "-c", "release", "--product", "handyctl"], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    page = open(DOC, encoding="utf-8").read()
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in TABLES.items():
            pattern = re.compile(r"(<!-- table: %s -->\n)(.*?)(<!-- /table -->)" % re.escape(name), re.S)
            if not pattern.search(page):
                sys.exit(f"handedness-tables: docs/HANDEDNESS.md has no <!-- table: {name} --> block")
            table = make(tmp)
            page = pattern.sub(lambda m: m.group(1) + table + "\n" + m.group(3), page)
    old = open(DOC, encoding="utf-8").read()
    if check:
        if page != old:
            sys.exit("handedness-tables: docs/HANDEDNESS.md differs from this build's tables (run scripts/handedness-tables.py)")
        print("handedness-tables: every table matches this build")
        return
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(page)
    print("handedness-tables: docs/HANDEDNESS.md rewritten" if page != old else "handedness-tables: no table changed")


if __name__ == "__main__":
    main()
