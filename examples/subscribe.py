#!/usr/bin/env python3
"""Print every pinch handyd recognises, the hand that made it, and where a 120 x 48 popover would go
on a 1280 x 720 screen (the handyd package, clients/python: standard library only).

    python3 examples/subscribe.py [SOCKET]     # default /run/handyd/handyd.sock

Runs without installing the package (pip install ./clients/python): it falls back to the tree's copy.
"""
import os
import sys

try:
    import handyd
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "clients", "python"))
    import handyd

path = sys.argv[1] if len(sys.argv) > 1 else handyd.DEFAULT_SOCKET
client = handyd.Client(path, subscription=handyd.Subscription(gestures=["pinch"]), reconnect=None)
for m in client.blocking_messages():
    if isinstance(m, handyd.Gesture):
        line = (f"{m.time:.3f} pinch {m.phase} scale={m.scale if m.scale is not None else 1:.2f} "
                f"hand={m.hand or 'unknown'} clearSide={m.clear_side or 'unknown'}")
        p = handyd.placement(m, size=(120, 48), gap=56, view=(0, 0, 1280, 720))
        if p is not None:
            line += f" popover={p.x:.0f},{p.y:.0f} ({p.rule})"
        print(line, flush=True)
    elif isinstance(m, (handyd.Error, handyd.Shutdown)):
        print(m, file=sys.stderr)
