"""The confidence promise's bands (issue 52), shared by scripts/handedness-cues.py,
scripts/handedness-calibration.py and scripts/handedness-tables.py: what HandednessMetrics.bands
does in Swift. A band is 0.05 of published confidence wide from 0.5 (a confidence of 1 falls in
the last, 0.95-1); it is judged from BAND_MINIMUM answers, and keeps the promise when its answers
are right at least its mean claim - BAND_ALLOWANCE of the time.
"""

import collections
import math

BAND_WIDTH = 0.05
BAND_MINIMUM = 10
BAND_ALLOWANCE = 0.05


def band(confidence):
    """The band's index: its lower edge is index * BAND_WIDTH (19 for 0.95-1, 1 included)."""
    return min(19, math.floor(confidence / BAND_WIDTH + 1e-9))


def margins(answers):
    """Per judged band of (confidence, right) answers: (margin, lower edge), the margin the share
    right minus (the mean claim - BAND_ALLOWANCE); negative is short of the promise."""
    bands = collections.defaultdict(list)
    for confidence, right in answers:
        bands[band(confidence)].append((confidence, right))
    return [
        (sum(ok for _, ok in b) / len(b) - (sum(c for c, _ in b) / len(b) - BAND_ALLOWANCE), index * BAND_WIDTH)
        for index, b in bands.items()
        if len(b) >= BAND_MINIMUM
    ]


def worst_margin(answers):
    """The worst judged band's (margin, lower edge); None when no band has BAND_MINIMUM answers."""
    m = margins(answers)
    return min(m) if m else None
