#!/usr/bin/env python3
"""Guest test (inside qemu-run.sh --udev, root, /dev/uinput): record -> replay round trip on a real
kernel device.

For each fixture: `handyctl inject` creates a uinput device from it and plays its events;
`handyctl record DEVNODE` records that evdev node until SIGINT; then both files go through
`handyctl replay --touches` and the touch frames must be identical: same number of frames, same
touch ids, phases, tools and positions. Timestamps (and the velocities derived from them) are the
guest kernel's, not the fixture's, so they are not compared.

Usage: record_guest.py --bin BUILD_BIN [--keep DIR]
Exit 0 when every fixture round-trips.
"""
import argparse, json, os, signal, subprocess, sys, tempfile, time

FIXTURES = [
    "Tests/Fixtures/whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.2fg-tap.events",
    "Tests/Fixtures/whot-evemu-devices/tablets/Wacom ISDv4 E6 Finger.double-center-circle.events",
    "examples/recordings/demo.evemu",
]


def has_open(pid, path):
    """Whether process `pid` has `path` open (its /proc fd links)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == path:
                return True
        except OSError:
            pass
    return False


def touch_frames(handyctl, path):
    out = subprocess.run([handyctl, "replay", "--touches", path], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(f"replay {path}: {out.stderr.strip()}")
    frames = []
    for line in out.stdout.splitlines():
        msg = json.loads(line)
        if msg.get("type") != "touches":
            continue
        frames.append([(t["id"], t["phase"], t["tool"], t["xMm"], t["yMm"], t.get("majorMm"), t.get("pressure"))
                       for t in msg["touches"]])
    return frames


def round_trip(handyctl, fixture, folder):
    name = "handyd-test record " + os.path.basename(fixture)[:20]
    # inject is stopped (SIGSTOP) as soon as it names its device and let go once the recorder has
    # the node open: a reader opened after the first event never sees it, and under TCG on a
    # loaded host a fixed start delay (2 s) was too short. The hold: the recorder must read the
    # events before the device goes (the kernel refuses a read of a removed evdev node, whatever
    # its buffer holds), and a recorder that has just opened the node may not be reading yet.
    # The start delay (1 s) is the window in which the SIGSTOP must land before the first write.
    inject = subprocess.Popen([handyctl, "inject", "--name", name, "--start-delay", "1", "--hold", "3", fixture],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    devnode = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = inject.stdout.readline()
        if not line:
            break
        if line.startswith("device "):
            inject.send_signal(signal.SIGSTOP)
            devnode = line.split(" ", 1)[1].strip()
            break
    if not devnode:
        inject.kill()
        raise RuntimeError(f"inject gave no device: {inject.stderr.read()}")

    out = os.path.join(folder, os.path.basename(fixture) + ".recorded.evemu")
    record = subprocess.Popen([handyctl, "record", devnode, "-o", out], stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not has_open(record.pid, devnode):
            if record.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"handyctl record did not open {devnode} (exit {record.poll()})")
            time.sleep(0.05)
        inject.send_signal(signal.SIGCONT)
        rest, err = inject.communicate(timeout=180)
        if inject.returncode != 0:
            raise RuntimeError(f"inject failed ({inject.returncode}): {err.strip()}")
    finally:
        if inject.poll() is None:   # a failure before the stream: let go and end the injector
            inject.send_signal(signal.SIGCONT)
            inject.kill()
        if record.poll() is None:
            record.send_signal(signal.SIGINT)
    try:
        _, record_err = record.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        record.kill()
        raise RuntimeError("handyctl record did not stop on SIGINT")
    # The device going away also stops the recording; either way the exit is clean.
    if record.returncode != 0:
        raise RuntimeError(f"record failed ({record.returncode}): {record_err.strip()}")

    want, got = touch_frames(handyctl, fixture), touch_frames(handyctl, out)
    if not want:
        raise RuntimeError(f"{fixture}: no touch frames in the fixture itself")
    if want != got:
        first = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
        raise RuntimeError(f"{fixture}: {len(want)} frames in the fixture, {len(got)} recorded; first difference at "
                           f"frame {first}: {want[first] if first < len(want) else None} vs {got[first] if first < len(got) else None}")
    print(f"PASS record round trip {os.path.basename(fixture)}: {len(want)} frames ({record_err.strip()})")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--keep")
    a = p.parse_args()
    handyctl = os.path.join(a.bin, "handyctl")
    folder = a.keep or tempfile.mkdtemp(prefix="handyd-record-")
    failed = 0
    for fixture in FIXTURES:
        try:
            round_trip(handyctl, fixture, folder)
        except Exception as e:  # report every fixture, fail at the end
            print(f"FAIL record round trip {os.path.basename(fixture)}: {e}")
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
