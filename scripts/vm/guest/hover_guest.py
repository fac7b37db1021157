#!/usr/bin/env python3
"""Issue 55: hovering fingers through the kernel's own hid-multitouch, made of a real touchscreen's
HID report descriptor through uhid (/dev/uhid), read by the real handyd.

Runs INSIDE the qemu guest (scripts/vm/run-guest-tests.sh, in-guest.sh): root, systemd-udevd,
the uhid, hid and hid-multitouch modules loaded (scripts/vm/mk-initramfs.sh). The device side is
written here: struct uhid_event written to /dev/uhid (include/uapi/linux/uhid.h), the kernel's
GET_REPORT/SET_REPORT requests answered. Every wait has a deadline; exit status 1 on failure.

Checks, in order:
1. the evdev stream hid-multitouch makes really carries ABS_MT_DISTANCE 1 while the finger is In
   Range without Tip Switch, then 0 on the same tracking id when it lands (python3-libevdev reads
   it), so this proves the driver path, not our assumptions;
2. handyd reports exactly one touch for the finger that hovers, lands, moves and lifts: it begins
   where and when the finger landed (never where it first hovered) and ends at the lift;
3. a finger that hovers and never lands is never a touch, and no gesture comes of either;
4. subscribed with "hover": true, the hovering contacts come as hovers (`hovers` in the touches
   frames, issue 55 item 2): A began, hovered, landed as the touch (in the frame the touch began),
   rose and ended; B began, hovered and ended; none is ever in `touches`;
5. a tap with a finger hovering beside it carries a covered region built from the hover
   (`occlusion.source` "hover", issue 55 item 3);
6. a tap whose hand's middle and ring fingers hover level beside it carries its hand from them
   (issue 55 item 4): right with them on its right, left on its left, at 0.95.
Made a touch, the hover would give a touch that begins at the hover's first position, or a touch
for the finger that never landed; dropped, no hovers would come: each fails here.

  /usr/bin/python3 hover_guest.py --bin DIR
"""
import argparse, os, select, struct, sys, tempfile, time

import libevdev  # python3-libevdev (scripts/vm/setup.sh): Debian's, for /usr/bin/python3

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from handyd_guest import SCALE, Client, Context, Failure, check, run_tests  # noqa: E402

# The report descriptor of the ELAN 04f3:200a touchscreen (a Windows 8 panel: two finger
# collections with Tip Switch, In Range, Contact Id, Width, Height, X, Y; Scan Time, Contact
# Count, the Contact Count Maximum feature 0x0a and the Win8 certification blob 0xff0000c5 in
# feature 0x0e, which makes hid-multitouch take it as MT_CLS_WIN_8, whose MT_QUIRK_HOVERING
# declares ABS_MT_DISTANCE 0…1). Data, not code, quoted from hid-tools
# (https://gitlab.freedesktop.org/libevdev/hid-tools, tests/test_multitouch.py, class
# Testelan_04f3_200a; MIT licence, Copyright Red Hat, Inc. and contributors); the same
# descriptor is in the Linux kernel's tools/testing/selftests/hid/tests/test_multitouch.py
# (GPL-2.0), which runs test_mt_inrange on it.
RDESC = bytes.fromhex(
    "05 0d 09 04 a1 01 85 01 09 22 a1 02 05 0d 09 42 15 00 25 01 75 01 95 01 81 02 09 32 81 02 75 06"
    " 09 51 25 3f 81 02 26 ff 00 75 08 09 48 81 02 09 49 81 02 95 01 05 01 26 c0 0e 75 10 55 0f 65 11"
    " 09 30 35 00 46 26 01 95 02 81 02 26 40 08 46 a6 00 09 31 81 02 c0 a1 02 05 0d 09 42 15 00 25 01"
    " 75 01 95 01 81 02 09 32 81 02 75 06 09 51 25 3f 81 02 26 ff 00 75 08 09 48 81 02 09 49 81 02 95"
    " 01 05 01 26 c0 0e 75 10 55 0f 65 11 09 30 35 00 46 26 01 95 02 81 02 26 40 08 46 a6 00 09 31 81"
    " 02 c0 05 0d 09 56 55 00 65 00 27 ff ff 00 00 95 01 75 20 81 02 09 54 25 7f 95 01 75 08 81 02 85"
    " 0a 09 55 25 0a b1 02 85 0e 06 00 ff 09 c5 15 00 26 ff 00 75 08 96 00 01 b1 02 c0")
assert len(RDESC) == 219, len(RDESC)
MAX_X, MAX_Y = 0x0EC0, 0x0840  # logical maxima of X and Y in RDESC

# include/uapi/linux/uhid.h
UHID_DESTROY, UHID_START, UHID_STOP, UHID_OPEN, UHID_CLOSE, UHID_OUTPUT = 1, 2, 3, 4, 5, 6
UHID_GET_REPORT, UHID_GET_REPORT_REPLY, UHID_CREATE2, UHID_INPUT2 = 9, 10, 11, 12
UHID_SET_REPORT, UHID_SET_REPORT_REPLY = 13, 14
UHID_FEATURE_REPORT = 0
UHID_EVENT_SIZE = 4 + 4372  # __u32 type + the largest member (struct uhid_create2_req)
BUS_USB = 0x03
EIO = 5


class UHidTouchscreen:
    """A HID device made through /dev/uhid: the kernel parses RDESC and binds hid-multitouch."""

    def __init__(self, name):
        self.fd = os.open("/dev/uhid", os.O_RDWR | os.O_CLOEXEC | os.O_NONBLOCK)
        self.started = False
        self.scan_time = 0
        # struct uhid_create2_req: name[128] phys[64] uniq[64] rd_size bus vendor product version
        # country rd_data[4096]
        req = struct.pack("<128s64s64sHHIIII", name.encode(), b"handyd-test/uhid0", b"", len(RDESC), BUS_USB,
                          0x04F3, 0x200A, 0x0100, 0) + RDESC
        self.write(UHID_CREATE2, req)
        self.service_until(lambda: self.started, 10 * SCALE, "UHID_START (hid-multitouch bound)")

    def write(self, kind, payload):
        ev = struct.pack("<I", kind) + payload
        os.write(self.fd, ev + bytes(UHID_EVENT_SIZE - len(ev)))

    def service(self, timeout):
        """Answers what the kernel asked within `timeout` seconds (GET_REPORT: the contact maximum,
        the Win8 blob; SET_REPORT), returns when nothing more is waiting."""
        deadline = time.monotonic() + timeout
        while True:
            left = max(0.0, deadline - time.monotonic())
            r, _, _ = select.select([self.fd], [], [], left)
            if not r:
                return
            try:
                ev = os.read(self.fd, UHID_EVENT_SIZE)
            except BlockingIOError:
                continue
            kind = struct.unpack_from("<I", ev)[0]
            if kind == UHID_START:
                self.started = True
            elif kind == UHID_GET_REPORT:
                rid, rnum, rtype = struct.unpack_from("<IBB", ev, 4)
                if rtype == UHID_FEATURE_REPORT and rnum == 0x0A:
                    data = bytes([0x0A, 10])  # Contact Count Maximum: ten fingers (a tap and its shadows are three)
                elif rtype == UHID_FEATURE_REPORT and rnum == 0x0E:
                    data = bytes([0x0E]) + bytes(256)  # the certification blob's contents do not matter
                else:
                    data = None
                if data is None:
                    self.write(UHID_GET_REPORT_REPLY, struct.pack("<IHH", rid, EIO, 0))
                else:
                    self.write(UHID_GET_REPORT_REPLY, struct.pack("<IHH", rid, 0, len(data)) + data)
            elif kind == UHID_SET_REPORT:
                rid = struct.unpack_from("<I", ev, 4)[0]
                self.write(UHID_SET_REPORT_REPLY, struct.pack("<IH", rid, 0))
            if time.monotonic() >= deadline:
                return

    def service_until(self, cond, timeout, what):
        deadline = time.monotonic() + timeout
        while not cond():
            check(time.monotonic() < deadline, f"timed out ({timeout:.0f} s) waiting for {what}")
            self.service(0.05)

    def frame(self, contacts):
        """One frame of any number of contacts: two a report (Win8 hybrid mode), the first report
        carrying the frame's contact count, the others 0; hid-multitouch syncs the frame when it
        has them all."""
        for k in range(0, max(len(contacts), 1), 2):
            self.report(contacts[k:k + 2], count=len(contacts) if k == 0 else 0)

    def report(self, contacts, count=None):
        """One input report 1: up to two contacts (tip, in_range, contact_id, x, y); `count` the
        Contact Count field (default: the contacts in it)."""
        def finger(c):
            if c is None:
                return bytes(11)
            tip, in_range, cid, x, y = c
            # Tip Switch, In Range, Contact Id (6 bits); Width, Height; X twice, Y twice (the
            # descriptor's Report Count 2 on one usage)
            return bytes([tip | in_range << 1 | cid << 2, 20, 20]) + struct.pack("<HHHH", x, x, y, y)
        padded = list(contacts) + [None] * (2 - len(contacts))
        self.scan_time = (self.scan_time + 100) & 0xFFFF  # Scan Time in 100 µs units: 10 ms a report
        data = bytes([1]) + finger(padded[0]) + finger(padded[1]) + struct.pack("<IB", self.scan_time, len(contacts) if count is None else count)
        self.write(UHID_INPUT2, struct.pack("<H", len(data)) + data + bytes(4096 - len(data)))

    def destroy(self):
        try:
            self.write(UHID_DESTROY, b"")
        finally:
            os.close(self.fd)


def event_node(panel, name, timeout):
    """The /dev/input/eventN whose device name starts with `name` (hid-multitouch may add a
    suffix such as " Touchscreen"), answering the kernel's requests meanwhile (hid-multitouch's
    probe waits for its GET_REPORTs)."""
    deadline = time.monotonic() + timeout
    while True:
        for entry in sorted(os.listdir("/sys/class/input")):
            if not entry.startswith("event"):
                continue
            try:
                with open(f"/sys/class/input/{entry}/device/name") as f:
                    if f.read().strip().startswith(name):
                        return f"/dev/input/{entry}"
            except OSError:
                pass
        check(time.monotonic() < deadline, f"no event node named {name!r} within {timeout:.0f} s")
        panel.service(0.1)


class EvdevLog:
    """Every event of one node, read without blocking (python3-libevdev)."""

    def __init__(self, node):
        self.f = open(node, "rb")
        os.set_blocking(self.f.fileno(), False)
        self.device = libevdev.Device(self.f)
        self.events = []

    def drain(self):
        try:
            for e in self.device.events():
                self.events.append(e)
        except libevdev.EventsDroppedException:
            raise Failure("SYN_DROPPED while reading the hid-multitouch node")

    def slot_story(self, first):
        """Per report (SYN_REPORT) from event `first` on, the (tracking id, distance, x) of each slot with a
        contact, and the report's time: the state protocol B gives after each frame (a slot keeps
        its values across tracking ids: the kernel sends only what changed)."""
        slot, ids, values, frames = 0, {}, {}, []
        for k, e in enumerate(self.events):
            if e.matches(libevdev.EV_ABS.ABS_MT_SLOT):
                slot = e.value
            elif e.matches(libevdev.EV_ABS.ABS_MT_TRACKING_ID):
                if e.value < 0:
                    ids.pop(slot, None)
                else:
                    ids[slot] = e.value
            elif e.matches(libevdev.EV_ABS.ABS_MT_DISTANCE):
                values.setdefault(slot, dict(distance=0, x=None))["distance"] = e.value
            elif e.matches(libevdev.EV_ABS.ABS_MT_POSITION_X):
                values.setdefault(slot, dict(distance=0, x=None))["x"] = e.value
            elif e.matches(libevdev.EV_SYN.SYN_REPORT) and k >= first:
                frames.append((e.sec + e.usec / 1e6,
                               {s: dict(id=i, **values.get(s, dict(distance=0, x=None))) for s, i in ids.items()}))
        return frames


def touches_of(messages, device):
    return [m for m in messages if m.get("type") == "touches" and m.get("device") == device]


def test_hover_through_hid_multitouch(ctx):
    ctx.start_daemon()
    client = Client(ctx.socket, subscribe={"touches": True, "hover": True})
    name = "handyd-test uhid elan 04f3:200a"
    panel = UHidTouchscreen(name)
    try:
        node = event_node(panel, name, 30 * SCALE)
        device = client.expect(lambda m: m.get("type") == "device" and m.get("event") == "added"
                               and m["device"].get("path") == node, f"handyd to add {node}", timeout=30)["device"]
        log = EvdevLog(node)
        check(log.device.has(libevdev.EV_ABS.ABS_MT_DISTANCE),
              "hid-multitouch declared no ABS_MT_DISTANCE for a Win8 panel with In Range")
        absinfo = log.device.absinfo[libevdev.EV_ABS.ABS_MT_DISTANCE]
        check((absinfo.minimum, absinfo.maximum) == (0, 1), f"ABS_MT_DISTANCE range {absinfo.minimum}…{absinfo.maximum}")

        def play(reports, pause=0.005):
            for contacts in reports:
                panel.frame(contacts)
                panel.service(pause)
                log.drain()

        x0, y0 = MAX_X // 4, MAX_Y // 2
        land_x = x0 + 200
        # A: comes into range, hovers 5 reports drifting 200 units, lands, moves 6 reports, rises, leaves.
        hover = [[(0, 1, 5, x0 + 50 * k, y0)] for k in range(4)] + [[(0, 1, 5, land_x, y0)]]
        down = [[(1, 1, 5, land_x + 50 * k, y0)] for k in range(7)]
        lift = [[(0, 1, 5, land_x + 300, y0)], [(0, 0, 5, land_x + 300, y0)]]
        # B: hovers 6 reports elsewhere, leaves without ever landing.
        only_hover = [[(0, 1, 9, 3 * MAX_X // 4, MAX_Y // 3)] for _ in range(6)]
        only_hover += [[(0, 0, 9, 3 * MAX_X // 4, MAX_Y // 3)]]
        # hid-multitouch releases every contact of a Win8 panel that sends no report for 100 ms
        # (MT_QUIRK_STICKY_FINGERS); under TCG on a loaded host the guest stalls that long at
        # times. Such an attempt shows in the evdev stream (a new tracking id) and is played again.
        for attempt in range(1, 7):
            first_event, first_message = len(log.events), len(client.seen)
            play(hover + down + lift)
            play(only_hover)
            panel.service(0.3)
            log.drain()
            # 1. The driver's stream: one tracking id for A through distance 1 → 0 → 1, another for B at 1.
            story = log.slot_story(first_event)
            a = [(t, s) for t, frame in story for s in frame.values() if s["x"] is not None and s["x"] < MAX_X // 2]
            b = [(t, s) for t, frame in story for s in frame.values() if s["x"] is not None and s["x"] >= MAX_X // 2]
            check(a and b, f"the evdev stream lacks a finger: {len(a)} frames of A, {len(b)} of B")
            ids_a, ids_b = {s["id"] for _, s in a}, {s["id"] for _, s in b}
            if len(ids_a) == 1 and len(ids_b) == 1:
                break
            print(f"  attempt {attempt}: hid-multitouch released a contact (tracking ids {sorted(ids_a)}, "
                  f"{sorted(ids_b)}: the guest stalled over 100 ms); again", flush=True)
            # handyd must have seen every lift before the next attempt is told apart from this one
            client.collect(1 * SCALE)
        else:
            raise Failure("hid-multitouch released a contact in every attempt (the guest stalled over 100 ms); "
                          "A's frames (time, id, distance, x): "
                          + str([(round(t, 3), s["id"], s["distance"], s["x"]) for t, s in a]))
        distances = [s["distance"] for _, s in a]
        collapsed = [d for k, d in enumerate(distances) if k == 0 or distances[k - 1] != d]
        check(collapsed == [1, 0, 1], f"A's ABS_MT_DISTANCE went {collapsed}, not 1 → 0 → 1 on one tracking id")
        check({s["distance"] for _, s in b} == {1}, "B's ABS_MT_DISTANCE was not 1 throughout")
        landed_at = next(t for t, s in a if s["distance"] == 0)
        rose_at = next(t for t, s in a if s["distance"] == 1 and t > landed_at)
        landed_x = next(s["x"] for _, s in a if s["distance"] == 0)

        # 2./3. What handyd reported: one touch, from landing to rising; nothing for the hovers.
        if not any(m.get("type") == "touches" and any(t["phase"] == "ended" for t in m["touches"])
                   for m in client.seen[first_message:]):
            client.expect(lambda m: m.get("type") == "touches" and any(t["phase"] == "ended" for t in m["touches"]),
                          "A's touch to end", timeout=30)
        client.collect(2 * SCALE)
        frames = touches_of(client.seen[first_message:], device["id"])
        began = [(f, t) for f in frames for t in f["touches"] if t["phase"] == "began"]
        ended = [(f, t) for f in frames for t in f["touches"] if t["phase"] in ("ended", "cancelled")]
        check(len(began) == 1 and len(ended) == 1,
              f"{len(began)} touches began and {len(ended)} finished, not one touch: "
              + str([[(t['id'], t['phase']) for t in f['touches']] for f in frames])[:800])
        (bf, bt), (ef, et) = began[0], ended[0]
        check(abs(bf["time"] - landed_at) < 0.002,
              f"the touch began at {bf['time']}, the finger landed at {landed_at:.6f} (first hovered at {a[0][0]:.6f})")
        check(abs(bt["x"] - landed_x / MAX_X) < 0.002,
              f"the touch began at x {bt['x']}, the finger landed at {landed_x / MAX_X:.5f}")
        check(et["phase"] == "ended" and abs(ef["time"] - rose_at) < 0.002,
              f"the touch {et['phase']} at {ef['time']}, the finger rose at {rose_at:.6f}")
        check(all(t["x"] < 0.5 for f in frames for t in f["touches"]), "the hover that never landed became a touch")
        gestures = [m for m in client.seen[first_message:] if m.get("type") == "gesture"]
        check(all(g.get("touches") in (None, [bt["id"]]) for g in gestures),
              f"a gesture of other touches: {gestures[:3]}")
        print(f"  attempt {attempt}: evdev: A id {ids_a.pop()} distance {collapsed}, landed {landed_at:.6f}; handyd: touch "
              f"{bf['time']}…{ef['time']} at x {bt['x']}; {len(gestures)} gesture events", flush=True)

        # 4. The hovers, as hovers: A's and B's stories.
        hovers = [(f, h) for f in frames for h in f.get("hovers", [])]
        check(hovers, "no hovering contact came to a subscriber with hover (hover dropped)")
        ha = [(f, h) for f, h in hovers if h["x"] < 0.5]
        hb = [(f, h) for f, h in hovers if h["x"] >= 0.5]

        def collapse(phases):
            return [p for k, p in enumerate(phases) if k == 0 or phases[k - 1] != p]
        story_a, story_b = collapse([h["phase"] for _, h in ha]), collapse([h["phase"] for _, h in hb])
        check(story_a == ["began", "hovering", "landed", "began", "ended"],
              f"A's hover went {story_a}, not began, hovering, landed, began (rose), ended")
        check(story_b == ["began", "hovering", "ended"], f"B's hover went {story_b}, not began, hovering, ended")
        check(abs(ha[0][0]["time"] - a[0][0]) < 0.002,
              f"A's hover began at {ha[0][0]['time']}, the finger came into range at {a[0][0]:.6f}")
        lf, lh = next((f, h) for f, h in ha if h["phase"] == "landed")
        check(lf is bf and lh.get("touch") == bt["id"],
              f"A's hover landed at {lf['time']} as touch {lh.get('touch')}; the touch {bt['id']} began at {bf['time']}")
        rise = next(f for f, h in ha if h["phase"] == "began" and f["time"] > lf["time"])
        check(rise is ef, f"A's hover began again at {rise['time']}, the touch ended at {ef['time']}")
        check(all(isinstance(h["distance"], int) and h["distance"] == 1 and h["distanceNormalized"] == 1
                  for _, h in hovers), "a hover's distance is not hid-multitouch's 1 (normalised 1)")
        check(all("xMm" in h and "yMm" in h for _, h in hovers), "a full-form hover without xMm/yMm")
        print(f"  hovers: A {story_a} ({len(ha)} frames), B {story_b} ({len(hb)} frames), landed as touch "
              f"{lh.get('touch')}", flush=True)

        def released(first_event, contacts):
            """More tracking ids since `first_event` than the `contacts` played: hid-multitouch
            released one (a guest stall over 100 ms, MT_QUIRK_STICKY_FINGERS) and made it anew."""
            return len({e.value for e in log.events[first_event:]
                        if e.matches(libevdev.EV_ABS.ABS_MT_TRACKING_ID) and e.value >= 0}) > contacts

        def tap_among(frames, contacts, what):
            """Plays `frames` (a tap among `contacts` contacts in all) until hid-multitouch kept
            every contact through it; the tap handyd recognised, and the messages since it began."""
            for attempt in range(1, 7):
                first, first_event = len(client.seen), len(log.events)
                play(frames)
                try:
                    tap = client.expect(lambda m: m.get("type") == "gesture" and m.get("gesture") == "tap"
                                        and m.get("phase") == "recognized", what, timeout=30)
                except Failure:
                    if not released(first_event, contacts):
                        seen = client.seen[first:]
                        print("  touches:", [[(t["id"], t["phase"], t["x"]) for t in f["touches"]]
                                             for f in touches_of(seen, device["id"]) if f["touches"]][:20], flush=True)
                        print("  gestures:", [(m.get("gesture"), m.get("phase")) for m in seen
                                              if m.get("type") == "gesture"], flush=True)
                        print("  evdev:", [sorted((v["distance"], v["x"]) for v in frame.values()) for _, frame in
                                           log.slot_story(first_event)][:14], flush=True)
                        raise
                    tap = None
                if not released(first_event, contacts):
                    return tap, client.seen[first:]
                print(f"  {what}, attempt {attempt}: hid-multitouch released a contact (the guest stalled over "
                      f"100 ms); again", flush=True)
                client.collect(2.0)  # what the stalled attempt still makes
            raise Failure(f"{what}: hid-multitouch released a contact in every attempt (the guest stalled over 100 ms)")

        # 5. A tap with a finger hovering 30 mm beside it: its region is the hover's.
        tap_x, tap_y = MAX_X // 3, MAX_Y // 2
        beside = (tap_x + 400, tap_y + 150)  # ~31 mm right, ~12 mm down (12.8 units a mm)
        hovering = lambda: (0, 1, 9, beside[0], beside[1])
        tap, since = tap_among([[hovering()] for _ in range(4)]
                               + [[(1, 1, 5, tap_x, tap_y), hovering()] for _ in range(4)]
                               + [[(0, 0, 5, tap_x, tap_y), hovering()]]
                               + [[hovering()] for _ in range(60)]  # beyond the double-tap wait, the hover still there
                               + [[(0, 0, 9, beside[0], beside[1])]], 2, "the tap beside the hover")
        region = tap.get("occlusion") or {}
        check(region.get("source") == "hover",
              f"the tap's region says source {region.get('source')!r}, not hover: {str(tap)[:600]}")
        taps_touches = [t for f in touches_of(since, device["id"]) for t in f["touches"]]
        check(taps_touches and all(t["x"] < 0.4 for t in taps_touches), "the hover beside the tap became a touch")
        print(f"  tap beside a hover: occlusion source {region.get('source')}, {len(region.get('polygon', []))} corners",
              flush=True)

        # 6. A tap whose hand's middle and ring fingers hover level beside it: the tap's hand from
        #    its shadows (issue 55 item 4), right with them on its right, left when mirrored; three
        #    contacts a frame, two reports each (hybrid mode).
        for side, hand in ((1, "right"), (-1, "left")):
            tx, ty = MAX_X // 2, MAX_Y // 2
            middle = (tx + side * 256, ty - 64)  # 20 mm beside, 5 mm above (12.8 units a mm)
            ring = (tx + side * 486, ty + 26)  # 38 mm beside, 2 mm below
            shadows = [(0, 1, 10, *middle), (0, 1, 11, *ring)]
            tap, _ = tap_among([shadows for _ in range(4)]
                               + [[(1, 1, 6, tx, ty)] + shadows for _ in range(4)]
                               + [[(0, 0, 6, tx, ty)] + shadows]
                               + [shadows for _ in range(60)]
                               + [[(0, 0, 10, *middle), (0, 0, 11, *ring)]], 3, f"the tap with its {hand} hand's shadows")
            check(tap.get("hand") == hand and tap.get("handConfidence") == 0.95,
                  f"the tap with two fingers hovering on its {'right' if side > 0 else 'left'} has hand "
                  f"{tap.get('hand')!r} at {tap.get('handConfidence')!r}, not {hand} at 0.95: {str(tap)[:600]}")
            check(abs(tap["position"]["x"] - tx / MAX_X) < 0.01, f"the tap is at {tap['position']}, not the finger's")
            print(f"  tap with its {hand} hand's shadows: hand {tap.get('hand')} at {tap.get('handConfidence')}, "
                  f"rightHandProbability {tap.get('rightHandProbability')}", flush=True)
    finally:
        panel.destroy()
        client.close()
        ctx.stop_daemon()


TESTS = [test_hover_through_hid_multitouch]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    args = ap.parse_args()
    ctx = Context(args.bin, tempfile.mkdtemp(prefix="handyd-hover-", dir="/run"))
    sys.exit(1 if run_tests(TESTS, ctx) else 0)


if __name__ == "__main__":
    main()
