#!/usr/bin/env python3
"""A GTK 4 window (PyGObject) that shows a touchscreen, the fingers on it, and on each pinch a
popover beside them on the side the hand leaves clear, placed by handyd.placement() (its text names
the rule), out of the region the hand covers (the event's occlusion polygon, drawn faintly). While
handyd is not running (not started yet, restarting) it says so on screen and keeps retrying; when
the daemon comes back it reconnects. Copy it into a kiosk app.

    python3 examples/gtk/popover.py [SOCKET]        # default /run/handyd/handyd.sock
    handyd --replay examples/recordings/demo.evemu --socket /tmp/h.sock --loop &
    python3 examples/gtk/popover.py /tmp/h.sock

Each placement and each change of connection is printed as a JSON line. --exit-after-pinches N ends
the app (exit 0) when the Nth pinch ends; --screenshots DIR saves the window's own pixels (its
snapshot rendered to a texture by its renderer) as waiting.png when it first waits for handyd and
pinch-N-HAND.png when the Nth pinch begins (headless tests: scripts/gui_examples_test.py). PyGObject
and the handyd package (clients/python) only; on Debian: apt install gir1.2-gtk-4.0 python3-gi
python3-gi-cairo.
"""
import argparse
import ctypes
import json
import os
import queue
import sys
import threading
from dataclasses import replace

import gi

gi.require_version("Gdk", "4.0")
gi.require_version("Gtk", "4.0")
from gi.repository import Gdk, GLib, Gtk  # noqa: E402

try:
    import handyd
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
    import handyd

POPOVER = (180, 56)  # width, height in window pixels
GAP = 56             # from the fingers' centroid to the popover
CSS = b"""
.popover-card { background: #264653; color: white; border-radius: 8px; font-size: 14px; }
.banner { background: #fff3cd; color: #5c4400; border: 1px solid #e0b44c; border-radius: 10px; padding: 16px;
          font-size: 18px; }
.device { color: #8a94a6; font-size: 12px; }
"""


class Kiosk:
    def __init__(self, app, args):
        self.args = args
        self.width, self.height = args.width, args.width * 3 // 5
        self.px_per_mm = 4.0
        self.connected = False
        self.fingers, self.region = [], []
        self.occlusion = {}  # gesture id -> last occlusion (a `changed` event may come without one)
        self.pinches = 0
        self.waited = False
        self.pending_screenshot = None

        provider = Gtk.CssProvider()
        provider.load_from_data(CSS)
        Gtk.StyleContext.add_provider_for_display(Gdk.Display.get_default(), provider,
                                                  Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
        self.window = Gtk.ApplicationWindow(application=app, title="handyd")
        self.window.set_decorated(False)  # a kiosk's window is the display: no title bar inside the view
        self.window.set_resizable(False)
        # The display (white, the region, the fingers) is drawn; the popover, the banner and the
        # device's name are widgets over it.
        self.area = Gtk.DrawingArea()
        self.area.set_draw_func(self.draw)
        overlay = Gtk.Overlay(child=self.area)
        self.fixed = Gtk.Fixed(can_target=False)
        overlay.add_overlay(self.fixed)
        self.popover = Gtk.Label(justify=Gtk.Justification.CENTER, visible=False)
        self.popover.add_css_class("popover-card")
        self.popover.set_size_request(*POPOVER)
        self.fixed.put(self.popover, 0, 0)
        self.banner = Gtk.Label(wrap=True, justify=Gtk.Justification.CENTER, halign=Gtk.Align.FILL,
                                valign=Gtk.Align.CENTER, margin_start=40, margin_end=40)
        self.banner.add_css_class("banner")
        overlay.add_overlay(self.banner)
        self.device = Gtk.Label(halign=Gtk.Align.START, valign=Gtk.Align.END, margin_start=8, margin_bottom=8,
                                visible=False)
        self.device.add_css_class("device")
        overlay.add_overlay(self.device)
        self.window.set_child(overlay)
        self.resize()
        self.banner.set_text(f"Waiting for handyd at {args.socket}…")
        self.window.present()
        self.window.get_frame_clock().connect("after-paint", self.painted)

        # The socket is read on a thread (the blocking iterator reconnects by itself); GTK's loop
        # takes its messages from this queue (poll()).
        self.messages = queue.Queue()
        client = handyd.Client(args.socket, subscription=handyd.Subscription(gestures=["pinch"], touches=True),
                               on_connection_failure=lambda failure: self.messages.put(failure))
        threading.Thread(target=self.read, args=(client,), daemon=True).start()
        GLib.timeout_add(15, self.poll)

    def read(self, client):
        for message in client.blocking_messages():
            self.messages.put(message)

    def poll(self):
        # While a screenshot waits for its frame, messages wait too: it shows what it was taken for.
        while self.pending_screenshot is None:
            try:
                message = self.messages.get_nowait()
            except queue.Empty:
                break
            if isinstance(message, handyd.ConnectionFailed):
                self.show_waiting(message)
            elif isinstance(message, handyd.Hello):
                self.show_connected(message)
            elif isinstance(message, handyd.Touches):
                self.show_fingers(message.touches)
            elif isinstance(message, handyd.Gesture):
                self.show_pinch(message)
        return GLib.SOURCE_CONTINUE

    def resize(self):
        self.area.set_content_width(self.width)
        self.area.set_content_height(self.height)
        self.window.set_default_size(self.width, self.height)

    def clear(self):
        self.fingers, self.region = [], []
        self.occlusion.clear()
        self.popover.set_visible(False)
        self.area.queue_draw()

    def show_waiting(self, failure):
        # Nothing shown from before stays: the daemon that sent it is gone.
        first = self.connected or not self.waited
        self.connected = False
        self.clear()
        reason = os.strerror(failure.errno) if failure.errno else "not running"
        self.banner.set_text(f"Waiting for handyd…\nnot running yet or restarting ({self.args.socket}: {reason}); "
                             "retrying")
        self.banner.set_visible(True)
        self.device.set_visible(False)
        if first:
            print(json.dumps({"status": "waiting", "socket": self.args.socket, "error": reason}), flush=True)
            if not self.waited:
                self.waited = True
                self.screenshot("waiting.png")

    def show_connected(self, hello):
        self.connected = True
        self.clear()
        device = hello.devices[0] if hello.devices else None
        if device is not None:
            # The window is the display, in its proportions (the device's size in mm, else 5:3).
            w, h = device.width_mm or 5, device.height_mm or 3
            self.height = round(self.width * h / w)
            self.px_per_mm = self.width / w
            self.window.set_title(f"handyd: {device.name or device.id}")
            self.resize()
        self.banner.set_visible(False)
        self.device.set_text(f"handyd {hello.version}: {device.name or device.id if device else 'no touchscreen yet'}")
        self.device.set_visible(True)
        print(json.dumps({"status": "connected", "device": device.id if device else None,
                          "widthMm": device.width_mm if device else None,
                          "heightMm": device.height_mm if device else None}), flush=True)

    def view(self):
        # The rectangle that shows the whole display, in window pixels: the whole window.
        return (0, 0, self.width, self.height)

    def show_fingers(self, touches):
        _, _, w, h = self.view()
        self.fingers = [(t.x * w, t.y * h, (t.major_mm or 10) * self.px_per_mm / 2, t.phase in ("ended", "cancelled"))
                        for t in touches]
        self.area.queue_draw()

    def show_pinch(self, g):
        if g.occlusion is not None:
            self.occlusion[g.id] = g.occlusion
        occlusion = self.occlusion.get(g.id)
        if g.phase in ("ended", "cancelled"):
            self.occlusion.pop(g.id, None)
            self.region = []
            self.popover.set_visible(False)
            self.area.queue_draw()
            self.pinches += 1
            print(json.dumps({"pinch": g.id, "phase": g.phase, "hand": g.hand, "pinches": self.pinches}), flush=True)
            if self.args.exit_after_pinches and self.pinches >= self.args.exit_after_pinches:
                self.window.get_application().quit()
            return
        view = self.view()
        p = handyd.placement(replace(g, occlusion=occlusion), size=POPOVER, gap=GAP, view=view)
        if p is None:
            return
        w, h = view[2], view[3]
        polygon = [(q.x * w, q.y * h) for q in occlusion.polygon] if occlusion else []
        self.region = polygon
        scale = f"×{g.scale:.2f}" if g.scale is not None else "pinch"
        self.popover.set_text(f"{scale}  {g.hand or 'unknown'} hand\n{p.rule}")
        self.fixed.move(self.popover, p.x, p.y)
        self.popover.set_visible(True)
        self.area.queue_draw()
        print(json.dumps({"pinch": g.id, "phase": g.phase, "hand": g.hand, "clearSide": g.clear_side,
                          "centroid": [g.centroid.x * w, g.centroid.y * h] if g.centroid else None,
                          "popover": [p.x, p.y, p.width, p.height], "rule": p.rule, "clear": p.clear,
                          "polygon": polygon, "view": list(view)}), flush=True)
        if g.phase == "began":
            self.screenshot(f"pinch-{self.pinches + 1}-{g.hand or 'unknown'}.png")

    def draw(self, area, cr, width, height):
        cr.set_source_rgb(1, 1, 1)
        cr.paint()
        if len(self.region) >= 3:
            cr.move_to(*self.region[0])
            for x, y in self.region[1:]:
                cr.line_to(x, y)
            cr.close_path()
            cr.set_source_rgb(0xe6 / 255, 0xec / 255, 0xf5 / 255)
            cr.fill_preserve()
            cr.set_source_rgb(0xb8 / 255, 0xc4 / 255, 0xd6 / 255)
            cr.set_line_width(1)
            cr.stroke()
        for x, y, r, lifted in self.fingers:  # a lifted finger stays as a ring until the next touch
            cr.new_sub_path()
            cr.arc(x, y, r, 0, 6.283185307179586)
            if not lifted:
                cr.set_source_rgb(0xf4 / 255, 0xa2 / 255, 0x61 / 255)
                cr.fill_preserve()
            cr.set_source_rgb(0xc0 / 255, 0x65 / 255, 0x2a / 255)
            cr.set_line_width(2)
            cr.stroke()

    def screenshot(self, name):
        if self.args.screenshots:
            self.pending_screenshot = os.path.join(self.args.screenshots, name)
            self.area.queue_draw()  # a frame, after which painted() takes it

    def painted(self, clock):
        path, self.pending_screenshot = self.pending_screenshot, None
        if path is None:
            return
        if not save_window_png(self.window, path):
            print(f"popover.py: could not save {path}", file=sys.stderr)
        print(json.dumps({"screenshot": path}), flush=True)


def save_window_png(window, path):
    """The window's own pixels as a PNG: its snapshot (Gtk.WidgetPaintable) rendered to a texture by
    the window's renderer. PyGObject before 3.46 cannot hold a GskRenderNode, so the node's three
    calls go through ctypes (GTK 4's C API; newer PyGObject: snapshot.to_node() and
    renderer.render_texture(node, None) directly)."""
    width, height = window.get_width(), window.get_height()
    snapshot = Gtk.Snapshot()
    Gtk.WidgetPaintable.new(window).snapshot(snapshot, width, height)
    pointer = ctypes.pythonapi.PyCapsule_GetPointer
    pointer.restype, pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    gtk = ctypes.CDLL("libgtk-4.so.1")
    gtk.gtk_snapshot_to_node.restype, gtk.gtk_snapshot_to_node.argtypes = ctypes.c_void_p, [ctypes.c_void_p]
    gtk.gsk_renderer_render_texture.restype = ctypes.c_void_p
    gtk.gsk_renderer_render_texture.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    gtk.gdk_texture_save_to_png.restype = ctypes.c_bool
    gtk.gdk_texture_save_to_png.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    gtk.gsk_render_node_unref.argtypes = [ctypes.c_void_p]
    gtk.g_object_unref.argtypes = [ctypes.c_void_p]
    node = gtk.gtk_snapshot_to_node(pointer(snapshot.__gpointer__, None))
    if not node:
        return False
    renderer = pointer(window.get_native().get_renderer().__gpointer__, None)
    texture = gtk.gsk_renderer_render_texture(renderer, node, None)
    saved = bool(texture) and gtk.gdk_texture_save_to_png(texture, os.fsencode(path))
    if texture:
        gtk.g_object_unref(texture)
    gtk.gsk_render_node_unref(node)
    return saved


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("socket", nargs="?", default=handyd.DEFAULT_SOCKET)
    parser.add_argument("--width", type=int, default=960, help="window width in pixels (height: the display's)")
    parser.add_argument("--exit-after-pinches", type=int, default=0, metavar="N")
    parser.add_argument("--screenshots", metavar="DIR", help="save the window as PNGs there (see above)")
    args = parser.parse_args()
    app = Gtk.Application(flags=0)
    kiosks = []
    app.connect("activate", lambda app: kiosks.append(Kiosk(app, args)))
    sys.exit(app.run(sys.argv[:1]))


if __name__ == "__main__":
    main()
