"""handyd's Python client: typed messages of its socket protocol (docs/PROTOCOL.md), an asyncio
client and a blocking iterator over its Unix socket, and ``placement()`` for a popover beside the
fingers on the side the hand leaves clear. Standard library only.

    import handyd
    for m in handyd.Client(subscription=handyd.Subscription(gestures=["pinch"])).blocking_messages():
        if isinstance(m, handyd.Gesture):
            p = handyd.placement(m, size=(120, 48), gap=56, view=(0, 0, 1280, 720))
"""
from .client import DEFAULT_SOCKET, MAXIMUM_LINE_BYTES, Backoff, Client, CompactExpander, ConnectionFailed
from .messages import (MESSAGE_TYPES, PROTOCOL_VERSION, Device, DeviceEvent, Error, Frame, Gesture, Hello, Message,
                       Occlusion, Point, ProtocolError, Shutdown, Status, Subscription, Touch, Touches, Hover,
                       decode_message, encode_status, encode_subscribe)
from .placement import PLACEMENT_RULES, Placement, Rect, Size, placement, placement_side, rect_overlaps_polygon

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_SOCKET", "MAXIMUM_LINE_BYTES", "Backoff", "Client", "CompactExpander", "ConnectionFailed",
    "MESSAGE_TYPES", "PROTOCOL_VERSION", "Device", "DeviceEvent", "Error", "Frame", "Gesture", "Hello", "Message",
    "Occlusion", "Point", "ProtocolError", "Shutdown", "Status", "Subscription", "Touch", "Touches", "Hover",
    "decode_message", "encode_status", "encode_subscribe",
    "PLACEMENT_RULES", "Placement", "Rect", "Size", "placement", "placement_side", "rect_overlaps_polygon",
]
