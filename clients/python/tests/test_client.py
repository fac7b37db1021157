"""The clients against the real handyd replaying examples/recordings/demo.evemu. Every read has a
deadline: a broken feature fails, it does not hang."""
import asyncio
import os
import signal
import socket
import time

import pytest

import handyd
from conftest import Daemon, replay

DEADLINE = 15.0
VIEW = (0, 0, 1280, 720)


def until(iterator, stop, limit=5000):
    seen = []
    for m in iterator:
        seen.append(m)
        if stop(m) or len(seen) >= limit:
            return seen
    return seen


def pinch_ends(messages):
    return [m for m in messages if isinstance(m, handyd.Gesture) and m.gesture == "pinch" and m.phase == "ended"]


def test_blocking_iterator_receives_the_demo_pinches_and_places_their_popovers(daemons, socket_path):
    replay(daemons, socket_path)
    client = handyd.Client(socket_path, subscription=handyd.Subscription(gestures=["pinch"]), reconnect=None)
    ended = set()

    def both_hands_done(m):
        if isinstance(m, handyd.Gesture) and m.phase == "ended":
            ended.add(m.hand)
        return {"left", "right"} <= ended
    messages = until(client.blocking_messages(read_timeout=DEADLINE), both_hands_done)
    assert isinstance(messages[0], handyd.Hello) and messages[0].devices[0].id == "replay:demo"
    gestures = [m for m in messages if isinstance(m, handyd.Gesture)]
    assert gestures and {g.gesture for g in gestures} == {"pinch"}
    began = [g for g in gestures if g.phase == "began"]
    assert {g.hand for g in began} == {"left", "right"}
    for g in began:
        p = handyd.placement(g, size=(120, 48), gap=56, view=VIEW)
        cx = g.centroid.x * VIEW[2]
        assert p.rule == "beside-clear-side" and p.clear
        assert (p.x + p.width <= cx - 56 + 1e-6) if g.hand == "right" else (p.x >= cx + 56 - 1e-6)


def test_asyncio_client_full_and_compact_forms_agree(daemons, socket_path):
    replay(daemons, socket_path, wait_clients=2)

    async def collect(form):
        client = handyd.Client(socket_path, subscription=handyd.Subscription(gestures=["pinch", "rotate", "long-press"],
                                                                           form=form),
                               reconnect=None)
        out = []
        it = client.messages().__aiter__()
        while True:
            m = await asyncio.wait_for(it.__anext__(), DEADLINE)
            out.append(m)
            gestures = m.gestures if isinstance(m, handyd.Frame) else [m]
            if any(isinstance(g, handyd.Gesture) and g.gesture == "long-press" and g.phase == "ended" for g in gestures):
                await it.aclose()  # the demo's last gesture
                return out

    async def both():
        return await asyncio.gather(collect("full"), collect("compact"))

    full, compact = asyncio.run(both())
    assert isinstance(full[0], handyd.Hello) and isinstance(compact[0], handyd.Hello)
    full_gestures = [m for m in full if isinstance(m, handyd.Gesture)]
    frames = [m for m in compact if isinstance(m, handyd.Frame)]
    assert frames and not any(isinstance(m, handyd.Gesture) for m in compact)
    compact_gestures = [g for f in frames for g in f.gestures]
    assert len(compact_gestures) == len(full_gestures) > 20
    size = (compact[0].devices[0].width_mm, compact[0].devices[0].height_mm)
    for a, b in zip(full_gestures, compact_gestures):
        assert (a.gesture, a.phase, a.id, a.device, a.time) == (b.gesture, b.phase, b.id, b.device, b.time)
        # what the compact form leaves out, filled in
        assert (a.hand, a.hand_confidence, a.right_hand_probability, a.clear_side) == \
            (b.hand, b.hand_confidence, b.right_hand_probability, b.clear_side)
        if a.centroid_mm is not None:
            assert abs(a.centroid_mm.x - b.centroid_mm.x) <= 0.1 + 1e-9 and abs(a.centroid_mm.y - b.centroid_mm.y) <= 0.1 + 1e-9
        assert (a.occlusion is None) == (b.occlusion is None)
        if a.occlusion is not None:
            for p, q in zip(a.occlusion.polygon_mm, b.occlusion.polygon_mm):
                assert abs(p.x - q.x) <= 0.1 + size[0] / 1000 and abs(p.y - q.y) <= 0.1 + size[1] / 1000


def test_reconnects_when_the_daemon_restarts(daemons, socket_path):
    first = replay(daemons, socket_path, "--loop", wait_clients=0)
    client = handyd.Client(socket_path, subscription=handyd.Subscription(gestures=[]),
                           reconnect=handyd.Backoff(0.05, 0.2))
    it = client.blocking_messages(read_timeout=DEADLINE)
    assert isinstance(next(it), handyd.Hello)
    first.process.send_signal(signal.SIGTERM)
    m = next(it)
    assert isinstance(m, handyd.Shutdown), m
    first.process.wait(10)
    replay(daemons, socket_path, "--loop", wait_clients=0)
    again = next(it)  # after backoff, a new connection: hello again, the subscription sent again
    assert isinstance(again, handyd.Hello), again
    assert client.request_status()
    status = until(it, lambda m: isinstance(m, handyd.Status))[-1]
    assert isinstance(status, handyd.Status) and status.clients == 1
    it.close()


def test_a_consumer_that_falls_behind_leaves_the_socket_unread(daemons, socket_path):
    """maximum_buffered_messages: the reading stops, the backlog waits in the daemon, whose bound
    (--client-queue-bytes) drops the client, as it would any client that does not read."""
    replay(daemons, socket_path, "--loop", "--client-queue-bytes", "16384", wait_clients=1)

    async def stalled():
        client = handyd.Client(socket_path, subscription=handyd.Subscription(touches=True), reconnect=None,
                               maximum_buffered_messages=8)
        it = client.messages().__aiter__()
        first = await asyncio.wait_for(it.__anext__(), DEADLINE)
        assert isinstance(first, handyd.Hello)
        peak = 0
        drops = 0
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:  # the consumer takes nothing more
            await asyncio.sleep(0.1)
            peak = max(peak, client.buffered)
            drops = await asyncio.get_running_loop().run_in_executor(None, status_drops, socket_path)
            if drops:
                break
        await it.aclose()
        return peak, drops

    peak, drops = asyncio.run(stalled())
    assert peak <= 8
    assert drops >= 1, "the daemon never dropped the client that stopped reading"


def status_drops(path):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(DEADLINE)
    s.connect(path)
    s.sendall(b'{"type":"subscribe","gestures":[]}\n{"type":"status"}\n')
    buffer = b""
    try:
        while True:
            chunk = s.recv(65536)
            assert chunk, "closed before status"
            buffer += chunk
            for line in buffer.split(b"\n")[:-1]:
                m = handyd.decode_message(line)
                if isinstance(m, handyd.Status):
                    return m.drops
    finally:
        s.close()


def test_a_failed_connection_says_where(socket_path):
    client = handyd.Client(socket_path, reconnect=None)
    with pytest.raises(handyd.ConnectionFailed, match=socket_path):
        next(client.blocking_messages(read_timeout=DEADLINE))

    async def once():
        async for _ in client.messages():
            pass
    with pytest.raises(handyd.ConnectionFailed):
        asyncio.run(asyncio.wait_for(once(), DEADLINE))
