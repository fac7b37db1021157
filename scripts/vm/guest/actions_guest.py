#!/usr/bin/env python3
"""`handyctl actions` on a real kernel: a uinput touchscreen swipes, handyd recognises it, the
bound command runs (a marker file) and the bound chord comes out of the virtual keyboard, read back
through libevdev (python3-libevdev, scripts/vm/setup.sh).

Runs INSIDE the qemu guest (scripts/vm/guest/in-guest.sh, after handyd_guest.py): root, udevd,
udev/70-handyd.rules installed. Under HANDYD_GUEST_STRICT=1 a check that cannot run fails.

  actions_guest.py --bin DIR [--only NAME...]
"""
import argparse, os, select, subprocess, sys, tempfile, time, traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from handyd_guest import (SCALE, Client, Context, Failure, H, RES, Stream, W, added, cannot_run, check,  # noqa: E402
                          gesture, write_recording)

KEYBOARD_NAME = "handyd-test virtual keyboard"


class Actions:
    """`handyctl actions` in the background, its log in a file."""
    def __init__(self, ctx, config_text):
        self.config = os.path.join(ctx.dir, "actions.toml")
        with open(self.config, "w") as f:
            f.write(config_text)
        self.log = os.path.join(ctx.dir, "actions.log")
        self.logf = open(self.log, "w")
        self.proc = subprocess.Popen([ctx.handyctl, "actions", "--socket", ctx.socket, "--log-level", "debug",
                                      "--keyboard-name", KEYBOARD_NAME, self.config],
                                     stdout=subprocess.DEVNULL, stderr=self.logf)

    def text(self):
        with open(self.log, errors="replace") as f:
            return f.read()

    def wait_for(self, needle, timeout=30):
        deadline = time.monotonic() + timeout * SCALE
        while time.monotonic() < deadline:
            if needle in self.text():
                return self.text()
            check(self.proc.poll() is None, f"handyctl actions exited ({self.proc.returncode}): {self.text()[-1500:]}")
            time.sleep(0.1)
        raise Failure(f"handyctl actions did not log {needle!r}: {self.text()[-1500:]}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.logf.close()


def keyboard_node(actions):
    """The evdev node of the virtual keyboard, from the log line handyctl actions writes."""
    text = actions.wait_for(f'virtual keyboard "{KEYBOARD_NAME}" at /dev/input/event')
    for line in text.splitlines():
        if f'virtual keyboard "{KEYBOARD_NAME}" at ' in line:
            return line.rsplit(" at ", 1)[1].strip()
    raise Failure("no keyboard node in the log")


def read_keys(dev, until, timeout):
    """(code name, value) of EV_KEY events and 'SYN' markers from a libevdev Device, until
    `until(events)` holds or the timeout passes."""
    import libevdev
    events = []
    deadline = time.monotonic() + timeout * SCALE
    while time.monotonic() < deadline and not until(events):
        r, _, _ = select.select([dev.fd.fileno()], [], [], 0.2)
        if not r:
            continue
        for e in dev.events():
            if e.matches(libevdev.EV_KEY):
                events.append((e.code.name, e.value))
            elif e.matches(libevdev.EV_SYN.SYN_REPORT):
                events.append(("SYN", 0))
    return events


def swipes_recording(ctx):
    """A three-finger swipe down in the middle (t = 0), then a one-finger swipe in from the left
    edge (t = 1.5 s, starting 4 mm from it). 10 units/mm; 40 mm in 0.16 s = 250 mm/s."""
    s = Stream()
    steps = 8
    for i in range(steps + 1):
        t = 0.16 * i / steps
        y = 300 + 400 * i / steps
        s.frame(t, {0: (W // 2 - 200, y), 1: (W // 2, y), 2: (W // 2 + 200, y)})
    s.frame(0.18, {0: None, 1: None, 2: None})
    for i in range(steps + 1):
        t = 1.5 + 0.16 * i / steps
        s.frame(t, {0: (40 + 400 * i / steps, H // 2)})
    s.frame(1.68, {0: None})
    return write_recording(ctx.dir, "actions-swipes.evemu", s)


def test_actions_swipes_run_commands_and_press_keys(ctx):
    """Three-finger swipe down -> Ctrl+F1 on the virtual keyboard (read back through libevdev);
    left-edge swipe -> a command (marker file) with the event's fields; a right-edge binding does
    not fire."""
    try:
        import libevdev
    except ImportError as e:
        cannot_run("reading the virtual keyboard", f"python3-libevdev missing ({e}; scripts/vm/setup.sh installs it)")
        return
    if not ctx.daemon_alive():
        ctx.start_daemon()
    marker = os.path.join(ctx.dir, "left-edge")
    wrong = os.path.join(ctx.dir, "right-edge")
    actions = Actions(ctx, f"""
[[binding]]
gesture = "swipe"
fingers = 3
direction = "down"
keys = "KEY_LEFTCTRL+KEY_F1"

[[binding]]
gesture = "swipe"
edge = "left"
run = ["sh", "-c", "echo {{edge}} {{direction}} {{fingers}} $HANDYD_DEVICE > {marker}"]

[[binding]]
gesture = "swipe"
edge = "right"
run = ["touch", "{wrong}"]
""")
    try:
        node = keyboard_node(actions)
        subprocess.run(["udevadm", "settle", "--timeout=10"], check=False)
        info = subprocess.run(["udevadm", "info", node], capture_output=True, text=True).stdout
        check("ID_INPUT_KEYBOARD=1" in info, f"udev does not call {node} a keyboard: {info}")
        check("ID_INPUT_TOUCHSCREEN" not in info, f"the virtual keyboard looks like a touchscreen: {info}")
        fd = open(node, "rb")
        os.set_blocking(fd.fileno(), False)
        dev = libevdev.Device(fd)
        check(dev.name == KEYBOARD_NAME, f"keyboard name {dev.name!r}")
        check(dev.has(libevdev.EV_KEY.KEY_F1) and dev.has(libevdev.EV_KEY.KEY_LEFTCTRL), "keyboard lacks KEY_F1 / KEY_LEFTCTRL")
        actions.wait_for("connected to")

        c = Client(ctx.socket, subscribe={"gestures": ["swipe"]})
        inj = ctx.inject(swipes_recording(ctx), "handyd-test touchscreen actions", hold=1, start_delay=1.0)
        dev_id = c.expect(added(inj.devnode, inj.name), "device added (actions)")["device"]["id"]
        down = c.expect(gesture("swipe", "recognized", dev_id), "three-finger swipe")
        check(down.get("fingers") == 3 and down.get("direction") == "down" and "edge" not in down,
              f"first swipe: {down}")
        chord = read_keys(dev, lambda ev: ("KEY_LEFTCTRL", 0) in ev, timeout=15)
        expected = [("KEY_LEFTCTRL", 1), ("KEY_F1", 1), ("SYN", 0), ("KEY_F1", 0), ("KEY_LEFTCTRL", 0)]
        check(chord[:5] == expected, f"keyboard events {chord}, expected {expected} (then SYN)")
        edge = c.expect(gesture("swipe", "recognized", dev_id), "left-edge swipe")
        check(edge.get("edge") == "left" and edge.get("direction") == "right" and edge.get("fingers") == 1,
              f"edge swipe: {edge}")
        deadline = time.monotonic() + 15 * SCALE
        while time.monotonic() < deadline and not (os.path.exists(marker) and open(marker).read()):
            time.sleep(0.1)
        check(os.path.exists(marker), f"the left-edge command did not run: {actions.text()[-1500:]}")
        text = open(marker).read().strip()
        check(text == f"left right 1 {dev_id}", f"marker {text!r}, expected 'left right 1 {dev_id}'")
        inj.wait_done()
        # Nothing else came out of the keyboard, and the right-edge binding never fired.
        late = read_keys(dev, lambda ev: False, timeout=1)
        check(not [e for e in chord[5:] + late if e[0] != "SYN"], f"extra key events: {chord[5:] + late}")
        check(not os.path.exists(wrong), "the right-edge binding fired")
        log = actions.text()
        check("binding 1 (line 2): pressed KEY_LEFTCTRL+KEY_F1" in log, f"no chord log line: {log[-1500:]}")
        check("binding 2 (line 8): started sh -c" in log, f"no command log line: {log[-1500:]}")
        fd.close()
        c.close()
    finally:
        actions.stop()
    check(actions.proc.returncode == 0, f"handyctl actions exit status {actions.proc.returncode} after SIGTERM")
    # The keyboard goes with it.
    time.sleep(0.5)
    with open("/proc/bus/input/devices") as f:
        check(KEYBOARD_NAME not in f.read(), "the virtual keyboard outlived handyctl actions")


TESTS = [test_actions_swipes_run_commands_and_press_keys]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()
    ctx = Context(args.bin, tempfile.mkdtemp(prefix="handyd-actions-guest-", dir="/run"))
    failed = 0
    try:
        for test in TESTS:
            if args.only and test.__name__ not in args.only:
                continue
            t0 = time.monotonic()
            try:
                test(ctx)
                print(f"PASS {test.__name__} ({time.monotonic() - t0:.1f} s)", flush=True)
            except Exception as e:
                failed += 1
                print(f"FAIL {test.__name__} ({time.monotonic() - t0:.1f} s): {e}", flush=True)
                if not isinstance(e, Failure):
                    traceback.print_exc()
    finally:
        ctx.cleanup()
        if failed and os.path.exists(ctx.log):
            print("---- handyd log (last 40 lines)")
            with open(ctx.log, errors="replace") as f:
                print("".join(f.readlines()[-40:]))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
