#!/usr/bin/env python3
"""A Tk window that shows a touchscreen, the fingers on it, and on each pinch a popover beside them on
the side the hand leaves clear, placed by handyd.placement() (the rule it used is in its text). The
region the hand covers (the event's occlusion polygon) is drawn faintly. Copy it into a kiosk app.

    python3 examples/tk/popover.py [SOCKET]        # default /run/handyd/handyd.sock
    handyd --replay examples/recordings/demo.evemu --socket /tmp/h.sock --loop &
    python3 examples/tk/popover.py /tmp/h.sock

Each placement is also printed as a JSON line. --exit-after-pinches N ends the app (exit 0) when the
Nth pinch ends, after saving the canvas as PostScript to --screenshot PATH if given (headless tests:
scripts/tk_example_test.py). Standard library and the handyd package (clients/python) only.
"""
import argparse
import json
import os
import queue
import sys
import threading
import tkinter as tk
from dataclasses import replace

try:
    import handyd
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
    import handyd

POPOVER = (180, 56)  # width, height in canvas pixels
GAP = 56             # from the fingers' centroid to the popover


class App:
    def __init__(self, root, args):
        self.root, self.args = root, args
        self.canvas = tk.Canvas(root, width=args.width, height=args.width * 3 // 5, background="white",
                                highlightthickness=0)
        self.canvas.pack()
        self.px_per_mm = 4.0
        self.occlusion = {}  # gesture id -> last occlusion (a `changed` event may come without one)
        self.pinches = 0
        self.done = False
        # The socket is read on a thread; Tk's loop takes its messages from this queue (poll()).
        self.messages = queue.Queue()
        client = handyd.Client(args.socket, subscription=handyd.Subscription(gestures=["pinch"], touches=True))
        threading.Thread(target=self.read, args=(client,), daemon=True).start()
        self.poll()

    def read(self, client):
        for message in client.blocking_messages():  # reconnects when the daemon restarts
            self.messages.put(message)

    def poll(self):
        while not self.done:
            try:
                message = self.messages.get_nowait()
            except queue.Empty:
                break
            if isinstance(message, handyd.Hello) and message.devices:
                self.show_device(message.devices[0])
            elif isinstance(message, handyd.Touches):
                self.show_fingers(message.touches)
            elif isinstance(message, handyd.Gesture):
                self.show_pinch(message)
        if not self.done:
            self.root.after(15, self.poll)

    def show_device(self, device):
        # The canvas is the display, in its proportions (from the device's size in mm, else 5:3).
        w, h = device.width_mm or 5, device.height_mm or 3
        height = round(self.args.width * h / w)
        self.canvas.configure(height=height)
        self.px_per_mm = self.args.width / w
        self.root.title(f"handyd: {device.name or device.id}")

    def show_fingers(self, touches):
        self.canvas.delete("finger")
        _, _, w, h = self.canvas_size()
        for t in touches:  # a finger that has just lifted stays as a ring until the next touch
            lifted = t.phase in ("ended", "cancelled")
            r = (t.major_mm or 10) * self.px_per_mm / 2
            self.canvas.create_oval(t.x * w - r, t.y * h - r, t.x * w + r, t.y * h + r, outline="#c0652a",
                                    fill="" if lifted else "#f4a261", width=2, tags="finger")
        self.canvas.tag_raise("popover")

    def canvas_size(self):
        return (0, 0, int(self.canvas["width"]), int(self.canvas["height"]))

    def show_pinch(self, g):
        if g.occlusion is not None:
            self.occlusion[g.id] = g.occlusion
        occlusion = self.occlusion.get(g.id)
        if g.phase in ("ended", "cancelled"):
            self.occlusion.pop(g.id, None)
            self.pinches += 1
            if self.args.exit_after_pinches and self.pinches >= self.args.exit_after_pinches:
                return self.finish()
            self.canvas.delete("popover", "region")
            return
        view = self.canvas_size()
        event = replace(g, occlusion=occlusion)
        p = handyd.placement(event, size=POPOVER, gap=GAP, view=view)
        if p is None:
            return
        w, h = view[2], view[3]
        polygon = [(q.x * w, q.y * h) for q in occlusion.polygon] if occlusion else []
        self.canvas.delete("popover", "region")
        if len(polygon) >= 3:
            self.canvas.create_polygon(*[c for q in polygon for c in q], fill="#e6ecf5", outline="#b8c4d6",
                                       tags="region")
            self.canvas.tag_lower("region")
        self.canvas.create_rectangle(p.x, p.y, p.x + p.width, p.y + p.height, fill="#264653", outline="",
                                     tags="popover")
        scale = f"×{g.scale:.2f}" if g.scale is not None else "pinch"
        self.canvas.create_text(p.x + p.width / 2, p.y + p.height / 2, fill="white", justify="center",
                                text=f"{scale}  {g.hand or 'unknown'} hand\n{p.rule}", tags="popover")
        print(json.dumps({"pinch": g.id, "phase": g.phase, "hand": g.hand, "clearSide": g.clear_side,
                          "centroid": [g.centroid.x * w, g.centroid.y * h] if g.centroid else None,
                          "popover": [p.x, p.y, p.width, p.height], "rule": p.rule, "clear": p.clear,
                          "polygon": polygon, "view": list(view)}), flush=True)

    def finish(self):
        if self.args.screenshot:
            self.canvas.update_idletasks()
            self.canvas.postscript(file=self.args.screenshot, colormode="color")
        self.done = True
        self.root.destroy()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("socket", nargs="?", default=handyd.DEFAULT_SOCKET)
    parser.add_argument("--width", type=int, default=960, help="canvas width in pixels (height: the display's)")
    parser.add_argument("--exit-after-pinches", type=int, default=0, metavar="N")
    parser.add_argument("--screenshot", metavar="PATH", help="the canvas as PostScript, written on exit")
    args = parser.parse_args()
    root = tk.Tk()
    App(root, args)
    root.mainloop()


if __name__ == "__main__":
    main()
