#!/usr/bin/env python3
"""Print every pinch handyd recognises and the hand that made it (standard library only).

    python3 examples/subscribe.py [SOCKET]     # default /run/handyd/handyd.sock
"""
import json, socket, sys

path = sys.argv[1] if len(sys.argv) > 1 else "/run/handyd/handyd.sock"
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
    s.connect(path)
    s.sendall(b'{"type":"subscribe","gestures":["pinch"]}\n')
    for line in s.makefile("r", encoding="utf-8"):
        m = json.loads(line)
        if m["type"] == "gesture":
            print(f'{m["time"]:.3f} pinch {m["phase"]} scale={m.get("scale", 1):.2f} '
                  f'hand={m.get("hand", "unknown")} clearSide={m.get("clearSide", "unknown")}', flush=True)
        elif m["type"] in ("error", "shutdown"):
            print(m, file=sys.stderr)
