#!/usr/bin/env python3
"""`handyctl actions` on a real kernel: a uinput touchscreen swipes, handyd recognises it, the
bound command runs (a marker file) and the bound chord comes out of the virtual keyboard, read back
through libevdev (python3-libevdev, scripts/vm/setup.sh).

Runs INSIDE the qemu guest (scripts/vm/guest/in-guest.sh, after handyd_guest.py): root, udevd,
udev/70-handyd.rules installed. Under HANDYD_GUEST_STRICT=1 a check that cannot run fails.

  actions_guest.py --bin DIR [--only NAME...]
"""
import argparse, os, select, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from handyd_guest import (SCALE, Client, Context, Failure, H, RES, Stream, W, added, cannot_run, check,  # noqa: E402
                          gesture, run_tests, write_recording)

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


def bindings(marker, wrong):
    """Three-finger swipe down -> Ctrl+F1; left-edge swipe -> a command writing `marker`;
    right-edge swipe -> a command touching `wrong` (must never fire). Chord on line 2, command on 8."""
    return f"""
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
"""


def check_bindings_fire(ctx, node, keyboard_name, marker, wrong, log_text):
    """The keyboard at `node` is what udev calls a keyboard; the swipes recording (through a
    uinput touchscreen, read by the handyd at ctx.socket) presses Ctrl+F1 on it, runs the left-edge
    command (`marker` holds the event's fields) and not the right-edge one. `log_text()` is the
    actions log (a file, or the journal), which must name both."""
    import libevdev
    subprocess.run(["udevadm", "settle", "--timeout=10"], check=False)
    info = subprocess.run(["udevadm", "info", node], capture_output=True, text=True).stdout
    check("ID_INPUT_KEYBOARD=1" in info, f"udev does not call {node} a keyboard: {info}")
    check("ID_INPUT_TOUCHSCREEN" not in info, f"the virtual keyboard looks like a touchscreen: {info}")
    fd = open(node, "rb")
    try:
        os.set_blocking(fd.fileno(), False)
        dev = libevdev.Device(fd)
        check(dev.name == keyboard_name, f"keyboard name {dev.name!r}")
        check(dev.has(libevdev.EV_KEY.KEY_F1) and dev.has(libevdev.EV_KEY.KEY_LEFTCTRL), "keyboard lacks KEY_F1 / KEY_LEFTCTRL")

        c = Client(ctx.socket, subscribe={"gestures": ["swipe"]})
        # Gated: the swipes start once handyd has announced the device, whose first frame they need.
        inj = ctx.inject(swipes_recording(ctx), "handyd-test touchscreen actions", hold=1, start_delay=1.0, gated=True)
        dev_id = c.expect(added(inj.devnode, inj.name), "device added (actions)")["device"]["id"]
        inj.go()
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
        check(os.path.exists(marker), f"the left-edge command did not run: {log_text()[-1500:]}")
        text = open(marker).read().strip()
        check(text == f"left right 1 {dev_id}", f"marker {text!r}, expected 'left right 1 {dev_id}'")
        inj.wait_done()
        # Nothing else came out of the keyboard, and the right-edge binding never fired.
        late = read_keys(dev, lambda ev: False, timeout=1)
        check(not [e for e in chord[5:] + late if e[0] != "SYN"], f"extra key events: {chord[5:] + late}")
        check(not os.path.exists(wrong), "the right-edge binding fired")
        log = log_text()
        check("binding 1 (line 2): pressed KEY_LEFTCTRL+KEY_F1" in log, f"no chord log line: {log[-1500:]}")
        check("binding 2 (line 8): started sh -c" in log, f"no command log line: {log[-1500:]}")
        c.close()
    finally:
        fd.close()


def keyboard_is_gone(name):
    time.sleep(0.5)
    with open("/proc/bus/input/devices") as f:
        check(name not in f.read(), f"the virtual keyboard {name!r} outlived handyctl actions")


def test_actions_swipes_run_commands_and_press_keys(ctx):
    """`handyctl actions` run by hand: see bindings() and check_bindings_fire()."""
    try:
        import libevdev  # noqa: F401
    except ImportError as e:
        cannot_run("reading the virtual keyboard", f"python3-libevdev missing ({e}; scripts/vm/setup.sh installs it)")
        return
    if not ctx.daemon_alive():
        ctx.start_daemon()
    marker = os.path.join(ctx.dir, "left-edge")
    wrong = os.path.join(ctx.dir, "right-edge")
    actions = Actions(ctx, bindings(marker, wrong))
    try:
        node = keyboard_node(actions)
        actions.wait_for("connected to")
        check_bindings_fire(ctx, node, KEYBOARD_NAME, marker, wrong, actions.text)
    finally:
        actions.stop()
    check(actions.proc.returncode == 0, f"handyctl actions exit status {actions.proc.returncode} after SIGTERM")
    keyboard_is_gone(KEYBOARD_NAME)


def service_journal():
    return subprocess.run(["journalctl", "-u", "handyd-actions.service", "--no-pager", "-o", "cat"],
                          capture_output=True, text=True).stdout


def test_actions_service(ctx):
    """handyd-actions.service as installed (`make install-files`, systemd PID 1): its sandbox
    (user handyd-actions, DevicePolicy=closed with /dev/uinput only, ProtectSystem=strict) still
    makes the keyboard, finds its node, presses the chord and runs the command (which may write
    only its RuntimeDirectory). handyd is reached through handyd.socket."""
    ctx.socket = "/run/handyd/handyd.sock"
    marker = "/run/handyd-actions/left-edge"
    wrong = "/run/handyd-actions/right-edge"
    os.makedirs("/etc/handyd", exist_ok=True)
    with open("/etc/handyd/actions.toml", "w") as f:
        f.write(bindings(marker, wrong))
    subprocess.run(["systemctl", "start", "handyd-actions.service"], check=True, timeout=60)
    try:
        name = "handyd virtual keyboard"
        deadline = time.monotonic() + 30 * SCALE
        node = None
        while time.monotonic() < deadline and node is None:
            for line in service_journal().splitlines():
                if f'virtual keyboard "{name}" at /dev/input/event' in line:
                    node = line.rsplit(" at ", 1)[1].strip()
            time.sleep(0.2)
        check(node, f"the service made no keyboard node: {service_journal()[-1500:]}")
        user = subprocess.run(["systemctl", "show", "-p", "MainPID", "--value", "handyd-actions.service"],
                              capture_output=True, text=True).stdout.strip()
        owner = subprocess.run(["ps", "-o", "user=", "-p", user], capture_output=True, text=True).stdout.strip()
        check(owner == "handyd-actions", f"handyd-actions.service runs as {owner!r}")
        deadline = time.monotonic() + 30 * SCALE
        while time.monotonic() < deadline and "connected to" not in service_journal():
            time.sleep(0.2)
        check("connected to" in service_journal(), f"the service never reached handyd: {service_journal()[-1500:]}")
        check_bindings_fire(ctx, node, name, marker, wrong, service_journal)
    finally:
        subprocess.run(["systemctl", "stop", "handyd-actions.service"], timeout=60)
    result = subprocess.run(["systemctl", "show", "-p", "Result", "--value", "handyd-actions.service"],
                            capture_output=True, text=True).stdout.strip()
    check(result == "success", f"handyd-actions.service stop: Result={result}")
    keyboard_is_gone("handyd virtual keyboard")


TESTS = [test_actions_swipes_run_commands_and_press_keys]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--service", action="store_true",
                    help="check the installed handyd-actions.service instead (systemd guest)")
    args = ap.parse_args()
    ctx = Context(args.bin, tempfile.mkdtemp(prefix="handyd-actions-guest-", dir="/run"))
    tests = [test_actions_service] if args.service else TESTS
    sys.exit(1 if run_tests(tests, ctx, args.only, log_lines=40) else 0)


if __name__ == "__main__":
    main()
