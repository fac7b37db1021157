#!/usr/bin/env python3
"""A Qt Quick window (QML, PyQt6) that shows a touchscreen, the fingers on it, and on each pinch a
popover beside them on the side the hand leaves clear, placed by handyd.placement() (its text names
the rule), out of the region the hand covers (the event's occlusion polygon, drawn faintly). While
handyd is not running (not started yet, restarting) it says so on screen and keeps retrying; when
the daemon comes back it reconnects. Copy it into a kiosk app. The window is popover.qml.

    python3 examples/qt/popover.py [SOCKET]        # default /run/handyd/handyd.sock
    handyd --replay examples/recordings/demo.evemu --socket /tmp/h.sock --loop &
    python3 examples/qt/popover.py /tmp/h.sock

Each placement and each change of connection is printed as a JSON line. --exit-after-pinches N ends
the app (exit 0) when the Nth pinch ends; --screenshots DIR saves the window's own pixels
(QQuickWindow.grabWindow) as waiting.png when it first waits for handyd and pinch-N-HAND.png when
the Nth pinch begins (headless tests: scripts/gui_examples_test.py). PyQt6 and the handyd package
(clients/python) only; on Debian: apt install python3-pyqt6 python3-pyqt6.qtquick qml6-module-qtquick
qml6-module-qtquick-shapes qml6-module-qtqml-workerscript.
"""
import argparse
import json
import os
import queue
import sys
import threading
from dataclasses import replace

from PyQt6.QtCore import QObject, QPointF, QTimer, QUrl, pyqtProperty, pyqtSignal
from PyQt6.QtGui import QGuiApplication
from PyQt6.QtQml import QQmlApplicationEngine
from PyQt6.QtQuick import QQuickWindow
from PyQt6 import sip

try:
    import handyd
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
    import handyd

POPOVER = (180, 56)  # width, height in window pixels
GAP = 56             # from the fingers' centroid to the popover


class Kiosk(QObject):
    """What the window shows (the `kiosk` object in popover.qml), from handyd's messages."""
    changed = pyqtSignal()

    def __init__(self, args):
        super().__init__()
        self.args = args
        self._width, self._height = args.width, args.width * 3 // 5
        self._title = "handyd"
        self._status = f"Waiting for handyd at {args.socket}…"
        self._connected = False
        self._fingers, self._region, self._popover = [], [], {"visible": False}
        self.px_per_mm = 4.0
        self.occlusion = {}  # gesture id -> last occlusion (a `changed` event may come without one)
        self.pinches = 0
        self.waited = False
        self.window = None
        # The socket is read on a thread (the blocking iterator reconnects by itself); the GUI thread
        # takes its messages from this queue (poll()).
        self.messages = queue.Queue()
        client = handyd.Client(args.socket, subscription=handyd.Subscription(gestures=["pinch"], touches=True),
                               on_connection_failure=lambda failure: self.messages.put(failure))
        threading.Thread(target=self.read, args=(client,), daemon=True).start()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.poll)
        self.timer.start(15)

    # What popover.qml binds to (all notified by `changed`).
    displayWidth = pyqtProperty(int, lambda self: self._width, notify=changed)
    displayHeight = pyqtProperty(int, lambda self: self._height, notify=changed)
    title = pyqtProperty(str, lambda self: self._title, notify=changed)
    status = pyqtProperty(str, lambda self: self._status, notify=changed)
    connected = pyqtProperty(bool, lambda self: self._connected, notify=changed)
    fingers = pyqtProperty("QVariantList", lambda self: self._fingers, notify=changed)
    region = pyqtProperty("QVariantList", lambda self: self._region, notify=changed)
    popover = pyqtProperty("QVariantMap", lambda self: self._popover, notify=changed)

    def read(self, client):
        for message in client.blocking_messages():
            self.messages.put(message)

    def poll(self):
        while True:
            try:
                message = self.messages.get_nowait()
            except queue.Empty:
                return
            if isinstance(message, handyd.ConnectionFailed):
                self.show_waiting(message)
            elif isinstance(message, handyd.Hello):
                self.show_connected(message)
            elif isinstance(message, handyd.Touches):
                self.show_fingers(message.touches)
            elif isinstance(message, handyd.Gesture):
                self.show_pinch(message)

    def show_waiting(self, failure):
        # Nothing shown from before stays: the daemon that sent it is gone.
        first = self._connected or not self.waited
        self._connected = False
        reason = os.strerror(failure.errno) if failure.errno else "not running"
        self._status = f"Waiting for handyd…\nnot running yet or restarting ({self.args.socket}: {reason}); retrying"
        self._fingers, self._region, self._popover = [], [], {"visible": False}
        self.occlusion.clear()
        self.changed.emit()
        if first:
            print(json.dumps({"status": "waiting", "socket": self.args.socket, "error": reason}), flush=True)
            if not self.waited:
                self.waited = True
                self.screenshot("waiting.png")

    def show_connected(self, hello):
        self._connected = True
        self._fingers, self._region, self._popover = [], [], {"visible": False}
        self.occlusion.clear()
        device = hello.devices[0] if hello.devices else None
        if device is not None:
            # The window is the display, in its proportions (the device's size in mm, else 5:3).
            w, h = device.width_mm or 5, device.height_mm or 3
            self._height = round(self._width * h / w)
            self.px_per_mm = self._width / w
            self._title = f"handyd: {device.name or device.id}"
        self._status = f"handyd {hello.version or ''}: {device.name or device.id if device else 'no touchscreen yet'}"
        self.changed.emit()
        print(json.dumps({"status": "connected", "device": device.id if device else None,
                          "widthMm": device.width_mm if device else None,
                          "heightMm": device.height_mm if device else None}), flush=True)

    def view(self):
        # The rectangle that shows the whole display, in window pixels: the whole window.
        return (0, 0, self._width, self._height)

    def show_fingers(self, touches):
        _, _, w, h = self.view()
        self._fingers = [{"x": t.x * w, "y": t.y * h, "r": (t.major_mm or 10) * self.px_per_mm / 2,
                          "lifted": t.phase in ("ended", "cancelled")} for t in touches]
        self.changed.emit()

    def show_pinch(self, g):
        if g.occlusion is not None:
            self.occlusion[g.id] = g.occlusion
        occlusion = self.occlusion.get(g.id)
        if g.phase in ("ended", "cancelled"):
            self.occlusion.pop(g.id, None)
            self._region, self._popover = [], {"visible": False}
            self.changed.emit()
            self.pinches += 1
            print(json.dumps({"pinch": g.id, "phase": g.phase, "hand": g.hand, "pinches": self.pinches}), flush=True)
            if self.args.exit_after_pinches and self.pinches >= self.args.exit_after_pinches:
                QGuiApplication.instance().exit(0)
            return
        view = self.view()
        p = handyd.placement(replace(g, occlusion=occlusion), size=POPOVER, gap=GAP, view=view)
        if p is None:
            return
        w, h = view[2], view[3]
        polygon = [(q.x * w, q.y * h) for q in occlusion.polygon] if occlusion else []
        scale = f"×{g.scale:.2f}" if g.scale is not None else "pinch"
        self._region = [QPointF(x, y) for x, y in polygon]
        self._popover = {"visible": True, "x": p.x, "y": p.y, "width": p.width, "height": p.height,
                         "text": f"{scale}  {g.hand or 'unknown'} hand\n{p.rule}"}
        self.changed.emit()
        print(json.dumps({"pinch": g.id, "phase": g.phase, "hand": g.hand, "clearSide": g.clear_side,
                          "centroid": [g.centroid.x * w, g.centroid.y * h] if g.centroid else None,
                          "popover": [p.x, p.y, p.width, p.height], "rule": p.rule, "clear": p.clear,
                          "polygon": polygon, "view": list(view)}), flush=True)
        if g.phase == "began":
            self.screenshot(f"pinch-{self.pinches + 1}-{g.hand or 'unknown'}.png")

    def screenshot(self, name):
        if self.args.screenshots and self.window is not None:
            # The window's own pixels, rendered now (the bindings above are already updated).
            path = os.path.join(self.args.screenshots, name)
            if not self.window.grabWindow().save(path):
                print(f"popover.py: could not save {path}", file=sys.stderr)
            print(json.dumps({"screenshot": path}), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("socket", nargs="?", default=handyd.DEFAULT_SOCKET)
    parser.add_argument("--width", type=int, default=960, help="window width in pixels (height: the display's)")
    parser.add_argument("--exit-after-pinches", type=int, default=0, metavar="N")
    parser.add_argument("--screenshots", metavar="DIR", help="save the window as PNGs there (see above)")
    args = parser.parse_args()
    app = QGuiApplication(sys.argv[:1])
    kiosk = Kiosk(args)
    engine = QQmlApplicationEngine()
    engine.rootContext().setContextProperty("kiosk", kiosk)
    engine.load(QUrl.fromLocalFile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "popover.qml")))
    if not engine.rootObjects():
        sys.exit("popover.py: popover.qml did not load (are qml6-module-qtquick and -shapes installed?)")
    kiosk.window = sip.cast(engine.rootObjects()[0], QQuickWindow)
    code = app.exec()
    del engine  # before the kiosk object its bindings read
    sys.exit(code)


if __name__ == "__main__":
    main()
