"""Subscribers of handyd over its Unix socket: an asyncio client and a blocking iterator.

Both send the subscription after every (re)connection, reconnect with backoff when the daemon
restarts (a new ``hello`` follows), and yield typed messages (:mod:`handyd.messages`).
"""
from __future__ import annotations

import asyncio
import socket
import time
from dataclasses import dataclass, replace
from typing import AsyncIterator, Dict, Iterator, Optional, Tuple

from .messages import (DeviceEvent, Frame, Gesture, Hello, Message, Point, ProtocolError, Subscription,
                       decode_message, encode_status, encode_subscribe)

__all__ = ["DEFAULT_SOCKET", "MAXIMUM_LINE_BYTES", "Backoff", "Client", "CompactExpander", "ConnectionFailed"]

DEFAULT_SOCKET = "/run/handyd/handyd.sock"
#: The protocol's line bound (docs/PROTOCOL.md "Limits"), plus its newline.
MAXIMUM_LINE_BYTES = 65536 + 1


@dataclass(frozen=True)
class Backoff:
    """Delay between connection attempts: ``initial_delay`` seconds, doubled after each failure up
    to ``maximum_delay``, back to the start after a connection (as HandyClient.Backoff)."""
    initial_delay: float = 0.1
    maximum_delay: float = 5.0

    def delay(self, failures: int) -> float:
        if failures <= 0:
            return 0.0
        return min(max(self.initial_delay * 2 ** (failures - 1), self.initial_delay), self.maximum_delay)


class ConnectionFailed(OSError):
    """The daemon's socket could not be connected to (with ``reconnect=None``)."""


class CompactExpander:
    """Fills in what the compact form leaves out of a frame's gestures: the mm twins of normalised
    positions (from the device's widthMm/heightMm in ``hello``/``device``) and, on a ``changed``
    event without a region, the hand, its confidence, P(right) and clearSide last sent for that
    gesture id (docs/PROTOCOL.md "frame (compact form)")."""

    def __init__(self) -> None:
        self.sizes: Dict[str, Tuple[float, float]] = {}
        self.hands: Dict[Tuple[str, int], Gesture] = {}

    def observe(self, message: Message) -> None:
        devices = message.devices if isinstance(message, Hello) else (
            [message.device] if isinstance(message, DeviceEvent) else [])
        if isinstance(message, Hello):
            self.sizes.clear()
        for d in devices:
            if d.width_mm is not None and d.height_mm is not None:
                self.sizes[d.id] = (d.width_mm, d.height_mm)

    def expand(self, frame: Frame) -> Frame:
        size = self.sizes.get(frame.device)
        for g in frame.gestures:
            key = (frame.device, g.id)
            if g.phase != "changed" or g.occlusion is not None or g.hand is not None:
                self.hands[key] = g
            else:
                last = self.hands.get(key)
                if last is not None:
                    g.hand, g.hand_confidence = last.hand, last.hand_confidence
                    g.right_hand_probability, g.clear_side = last.right_hand_probability, last.clear_side
            if g.phase in ("ended", "cancelled", "recognized"):
                self.hands.pop(key, None)
            if size is not None:
                for name in ("centroid", "position", "translation"):
                    p = getattr(g, name)
                    if p is not None and getattr(g, name + "_mm") is None:
                        setattr(g, name + "_mm", Point(round(p.x * size[0], 1), round(p.y * size[1], 1)))
                if g.occlusion is not None and g.occlusion.polygon_mm is None:
                    g.occlusion = replace(g.occlusion, polygon_mm=[
                        Point(round(p.x * size[0], 1), round(p.y * size[1], 1)) for p in g.occlusion.polygon])
        return frame


class Client:
    """A subscriber of handyd.

    asyncio::

        client = handyd.Client(subscription=handyd.Subscription(gestures=["pinch"]))
        async for message in client.messages():
            if isinstance(message, handyd.Gesture):
                print(message.phase, message.scale, message.hand)

    blocking::

        for message in handyd.Client().blocking_messages():
            ...

    ``reconnect=None``: no reconnection; the iteration ends when the connection does, and a failed
    connection raises :class:`ConnectionFailed`. ``maximum_buffered_messages`` (asyncio): messages
    received and not yet taken at which the socket is left unread, so what the consumer has not
    read waits in the daemon, whose bound for slow clients then applies (``client-too-slow``),
    instead of in this process without a bound. The blocking iterator reads only when asked. With
    ``form="compact"``, frames are expanded (:class:`CompactExpander`) unless ``expand_compact`` is
    False. Lines that are not protocol messages are skipped (``on_protocol_error`` is told).
    """

    def __init__(self, socket_path: str = DEFAULT_SOCKET, subscription: Optional[Subscription] = None,
                 reconnect: Optional[Backoff] = Backoff(), maximum_buffered_messages: int = 4096,
                 expand_compact: bool = True, on_protocol_error=None, on_connection_failure=None) -> None:
        self.socket_path = socket_path
        self.subscription = subscription
        self.reconnect = reconnect
        self.maximum_buffered_messages = max(2, maximum_buffered_messages)
        self.expand_compact = expand_compact
        self.on_protocol_error = on_protocol_error
        self.on_connection_failure = on_connection_failure
        self._writer: Optional[asyncio.StreamWriter] = None
        self._sock: Optional[socket.socket] = None
        self._queue: Optional["asyncio.Queue"] = None

    # ------------------------------------------------------------------ both

    def subscribe(self, subscription: Subscription) -> None:
        """Changes the subscription: sent now if connected, and after every reconnection. Each
        field that is not None replaces the current one."""
        if self.subscription is None:
            self.subscription = subscription
        else:
            merged = {k: v for k, v in vars(self.subscription).items()}
            merged.update({k: v for k, v in vars(subscription).items() if v is not None})
            self.subscription = Subscription(**merged)
        self._send(encode_subscribe(subscription))

    def request_status(self) -> bool:
        """Asks for a ``status`` message (it comes in order with the events); False when not
        connected."""
        return self._send(encode_status())

    @property
    def buffered(self) -> int:
        """Messages received and not yet taken (asyncio)."""
        return self._queue.qsize() if self._queue is not None else 0

    def _send(self, data: bytes) -> bool:
        if self._writer is not None and not self._writer.is_closing():
            self._writer.write(data)
            return True
        if self._sock is not None:
            try:
                self._sock.sendall(data)
                return True
            except OSError:
                return False
        return False

    def _decode(self, line: bytes, expander: CompactExpander) -> Optional[Message]:
        if not line.strip():
            return None
        try:
            message = decode_message(line)
        except ProtocolError as e:
            if self.on_protocol_error:
                self.on_protocol_error(e)
            return None
        if message is None:
            return None
        expander.observe(message)
        if isinstance(message, Frame) and self.expand_compact:
            message = expander.expand(message)
        return message

    def _failed(self, error: OSError) -> ConnectionFailed:
        failure = ConnectionFailed(error.errno, f"cannot connect to handyd at {self.socket_path}: "
                                   f"{error.strerror or error}; is handyd running?")
        if self.on_connection_failure and self.reconnect is not None:
            self.on_connection_failure(failure)
        return failure

    # ------------------------------------------------------------------ asyncio

    async def messages(self) -> AsyncIterator[Message]:
        """The daemon's messages, starting with ``hello`` (again after each reconnection)."""
        queue: asyncio.Queue = asyncio.Queue(maxsize=self.maximum_buffered_messages)
        self._queue = queue
        done = object()
        reader = asyncio.ensure_future(self._read_all(queue, done))
        try:
            while True:
                item = await queue.get()
                if item is done:
                    break
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            reader.cancel()
            try:
                await reader
            except (asyncio.CancelledError, Exception):
                pass
            self._queue = None

    async def _read_all(self, queue: "asyncio.Queue", done: object) -> None:
        try:
            await self._connections(queue)
        except asyncio.CancelledError:
            raise
        await queue.put(done)

    async def _connections(self, queue: "asyncio.Queue") -> None:
        failures = 0
        expander = CompactExpander()
        while True:
            try:
                reader, writer = await asyncio.open_unix_connection(self.socket_path, limit=MAXIMUM_LINE_BYTES)
            except OSError as e:
                failure = self._failed(e)
                if self.reconnect is None:
                    await queue.put(failure)
                    return
                failures += 1
                await asyncio.sleep(self.reconnect.delay(failures))
                continue
            failures = 0
            self._writer = writer
            try:
                if self.subscription is not None:
                    writer.write(encode_subscribe(self.subscription))
                while True:
                    try:
                        line = await reader.readuntil(b"\n")
                    except asyncio.IncompleteReadError as e:
                        line = e.partial
                        if line:
                            message = self._decode(line, expander)
                            if message is not None:
                                await queue.put(message)
                        break
                    except asyncio.LimitOverrunError:
                        break  # the daemon never sends such a line; treat as a broken connection
                    message = self._decode(line, expander)
                    if message is not None:
                        await queue.put(message)  # waits while the consumer is behind: reading stops
            except (ConnectionError, OSError):
                pass
            finally:
                self._writer = None
                writer.close()
            if self.reconnect is None:
                return
            failures = 1
            await asyncio.sleep(self.reconnect.delay(failures))

    async def hello(self) -> Hello:
        """Connects once and returns the daemon's ``hello``."""
        once = Client(self.socket_path, reconnect=None)
        async for message in once.messages():
            if isinstance(message, Hello):
                return message
        raise ConnectionFailed("the daemon closed the connection before hello")

    # ------------------------------------------------------------------ blocking

    def blocking_messages(self, read_timeout: Optional[float] = None) -> Iterator[Message]:
        """The daemon's messages, read as they are asked for. ``read_timeout`` (seconds): a read that
        waits longer raises :class:`TimeoutError` (None waits for ever)."""
        failures = 0
        expander = CompactExpander()
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(read_timeout)
                sock.connect(self.socket_path)
            except OSError as e:
                sock.close()
                if isinstance(e, socket.timeout):
                    raise
                failure = self._failed(e)
                if self.reconnect is None:
                    raise failure from None
                failures += 1
                time.sleep(self.reconnect.delay(failures))
                continue
            failures = 0
            self._sock = sock
            try:
                if self.subscription is not None:
                    sock.sendall(encode_subscribe(self.subscription))
                buffer = b""
                while True:
                    try:
                        chunk = sock.recv(65536)
                    except socket.timeout:
                        raise TimeoutError(f"no message from handyd within {read_timeout} s") from None
                    except (ConnectionError, OSError):
                        chunk = b""
                    if not chunk:
                        if buffer:
                            message = self._decode(buffer, expander)
                            if message is not None:
                                yield message
                        break
                    buffer += chunk
                    *lines, buffer = buffer.split(b"\n")
                    for line in lines:
                        message = self._decode(line, expander)
                        if message is not None:
                            yield message
                    if len(buffer) > MAXIMUM_LINE_BYTES:
                        break
            finally:
                self._sock = None
                sock.close()
            if self.reconnect is None:
                return
            time.sleep(self.reconnect.delay(1))
