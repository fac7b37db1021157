"""Evemu text for the synthetic test panel, shared by the guest tests (scripts/vm/guest/) and the
fixture generator (Tests/Fixtures/misbehaving/make_fixtures.py): one writer, one panel.

The panel: a 10-slot protocol-B touchscreen (INPUT_PROP_DIRECT), 1920 x 1080 units at 10 units/mm.
Standard library only.
"""

W, H, RES = 1920, 1080, 10          # 192 x 108 mm at 10 units/mm
ABS = {0x00: (0, W - 1, RES), 0x01: (0, H - 1, RES), 0x2f: (0, 9, 0), 0x35: (0, W - 1, RES),
       0x36: (0, H - 1, RES), 0x39: (0, 65535, 0)}


def evemu_header(name):
    """The N:/I:/P:/B:/A: lines describing the panel, called `name`."""
    def mask(bits, nbytes):
        b = bytearray(nbytes)
        for bit in bits:
            b[bit // 8] |= 1 << (bit % 8)
        return " ".join(f"{x:02x}" for x in b)
    lines = [f"N: {name}", "I: 0006 1234 5678 0001", "P: " + mask([1], 8),  # INPUT_PROP_DIRECT
             "B: 00 " + mask([0, 1, 3], 4), "B: 01 " + mask([0x14a], 96), "B: 03 " + mask(ABS.keys(), 8)]
    for code, (lo, hi, res) in sorted(ABS.items()):
        lines.append(f"A: {code:02x} {lo} {hi} 0 0 {res}")
    return "\n".join(lines) + "\n"


class EvemuEvents:
    """Raw `E:` lines (and `#` comments) with explicit times in seconds."""
    def __init__(self):
        self.lines = []

    def ev(self, t, type_, code, value):
        self.lines.append(f"E: {t:.6f} {type_:04x} {code:04x} {value}")

    def abs(self, t, code, value):
        self.ev(t, 3, code, value)

    def syn(self, t):
        self.ev(t, 0, 0, 0)

    def comment(self, text):
        self.lines.append(f"# {text}")

    def text(self, name):
        """The whole recording: the panel's header named `name`, then the events."""
        return evemu_header(name) + "\n".join(self.lines) + "\n"
