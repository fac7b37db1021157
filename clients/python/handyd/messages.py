"""The messages of handyd's protocol 1 (docs/PROTOCOL.md) as typed dataclasses.

Field names are the wire's in snake case (``rightHandProbability`` is ``right_hand_probability``);
fields the daemon left out are None. Fields this version does not know are kept in ``extra`` (the
protocol adds fields within a version), and message types it does not know decode to None.
"""
from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Type, TypeVar, Union

__all__ = [
    "PROTOCOL_VERSION", "MESSAGE_TYPES", "ProtocolError", "Point", "Occlusion", "Device", "Hello", "DeviceEvent",
    "Gesture", "Touch", "Touches", "Frame", "Status", "Error", "Shutdown", "Message", "decode_message",
    "Subscription", "encode_subscribe", "encode_status",
]

PROTOCOL_VERSION = 1
MESSAGE_TYPES = ("hello", "device", "gesture", "touches", "frame", "status", "error", "shutdown")

Hand = Literal["left", "right", "unknown"]
Side = Literal["left", "right", "unknown"]
Phase = Literal["began", "changed", "ended", "cancelled", "recognized"]


class ProtocolError(ValueError):
    """A line that is not a protocol message (not JSON, not an object with a string ``type``, or
    a known message with a field of the wrong shape)."""


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


_SNAKE = re.compile(r"(?<!^)(?=[A-Z])")

T = TypeVar("T")


def _build(cls: Type[T], obj: Any, convert: Optional[Dict[str, Callable[[Any], Any]]] = None,
           skip: tuple = ("type",)) -> T:
    if not isinstance(obj, Mapping):
        raise ProtocolError(f"{cls.__name__}: not a JSON object: {obj!r}")
    convert = convert or {}
    kwargs: Dict[str, Any] = {}
    known = set()
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name == "extra":
            continue
        wire = _camel(f.name)
        known.add(wire)
        if wire in obj:
            value = obj[wire]
            if f.name in convert and value is not None:
                try:
                    value = convert[f.name](value)
                except (KeyError, TypeError, ValueError) as e:
                    raise ProtocolError(f"{cls.__name__}.{wire}: {e}") from None
            kwargs[f.name] = value
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:  # type: ignore[misc]
            raise ProtocolError(f"{cls.__name__}: no {wire!r}")
    kwargs["extra"] = {k: v for k, v in obj.items() if k not in known and k not in skip}
    return cls(**kwargs)


@dataclass(frozen=True)
class Point:
    """A position normalised 0…1 on the display (x right, y down), a vector in those units, or (in
    fields ending in ``_mm``) millimetres."""
    x: float
    y: float

    @staticmethod
    def of(obj: Any) -> "Point":
        return Point(float(obj["x"]), float(obj["y"]))


def _points(obj: Any) -> List[Point]:
    return [Point.of(p) for p in obj]


@dataclass(frozen=True)
class Occlusion:
    """What the hand and forearm probably cover: a convex polygon, corners in order."""
    polygon: List[Point]
    polygon_mm: Optional[List[Point]] = None
    # "hover": built from the hovering fingers near the gesture's; "model": the hand model while
    # the device had hovering contacts; None (no hover): the model, as before.
    source: Optional[str] = None

    @staticmethod
    def of(obj: Any) -> "Occlusion":
        mm = obj.get("polygonMm")
        source = obj.get("source")
        return Occlusion(_points(obj["polygon"]), _points(mm) if mm is not None else None,
                         source if isinstance(source, str) else None)


@dataclass
class Device:
    id: str
    name: Optional[str] = None
    path: Optional[str] = None
    node: Optional[str] = None
    vendor: Optional[int] = None
    product: Optional[int] = None
    slots: Optional[int] = None
    width_mm: Optional[float] = None
    height_mm: Optional[float] = None
    readable: Optional[bool] = None
    reason: Optional[str] = None
    fix: Optional[str] = None
    problems: Optional[List[str]] = None
    extra: Dict[str, Any] = field(default_factory=dict)

    @property
    def is_readable(self) -> bool:
        return self.readable is not False

    @staticmethod
    def of(obj: Any) -> "Device":
        return _build(Device, obj, skip=())


def _devices(obj: Any) -> List[Device]:
    return [Device.of(d) for d in obj]


@dataclass
class Hello:
    protocol: int
    version: str
    devices: List[Device] = field(default_factory=list)
    extra: Dict[str, Any] = field(default_factory=dict)
    type: Literal["hello"] = "hello"


@dataclass
class DeviceEvent:
    """``{"type":"device"}``: a device was added or removed."""
    event: Literal["added", "removed"]
    device: Device
    extra: Dict[str, Any] = field(default_factory=dict)
    type: Literal["device"] = "device"


@dataclass
class Gesture:
    """One gesture event (docs/GESTURES.md has the gestures and their fields)."""
    gesture: str
    phase: Phase
    id: int
    time: Optional[float] = None
    device: Optional[str] = None
    fingers: Optional[int] = None
    touches: Optional[List[int]] = None
    touch: Optional[int] = None
    centroid: Optional[Point] = None
    centroid_mm: Optional[Point] = None
    position: Optional[Point] = None
    position_mm: Optional[Point] = None
    translation: Optional[Point] = None
    translation_mm: Optional[Point] = None
    velocity: Optional[Point] = None
    scale: Optional[float] = None
    scale_velocity: Optional[float] = None
    span_mm: Optional[float] = None
    rotation: Optional[float] = None
    rotation_velocity: Optional[float] = None
    hand: Optional[Hand] = None
    hand_confidence: Optional[float] = None
    right_hand_probability: Optional[float] = None
    clear_side: Optional[Side] = None
    occlusion: Optional[Occlusion] = None
    glide_mm: Optional[Point] = None
    glide_scale: Optional[float] = None
    glide_rotation: Optional[float] = None
    taps: Optional[int] = None
    duration: Optional[float] = None
    direction: Optional[str] = None
    edge: Optional[str] = None
    reason: Optional[str] = None
    extra: Dict[str, Any] = field(default_factory=dict)
    type: Literal["gesture"] = "gesture"


_POINT_FIELDS = ("centroid", "centroid_mm", "position", "position_mm", "translation", "translation_mm", "velocity",
                 "glide_mm")
_GESTURE_CONVERT: Dict[str, Callable[[Any], Any]] = {name: Point.of for name in _POINT_FIELDS}
_GESTURE_CONVERT["occlusion"] = Occlusion.of


@dataclass
class Touch:
    id: int
    phase: str
    x: float
    y: float
    x_mm: Optional[float] = None
    y_mm: Optional[float] = None
    vx_mm: Optional[float] = None
    vy_mm: Optional[float] = None
    tool: Optional[str] = None
    major_mm: Optional[float] = None
    minor_mm: Optional[float] = None
    orientation: Optional[float] = None
    pressure: Optional[float] = None
    extra: Dict[str, Any] = field(default_factory=dict)


@dataclass
class Hover:
    """A hovering contact: a finger in range above the glass, not touching (only to a subscriber
    with ``hover=True``, on a device that reports hover). Never a touch: ``id`` is its own, and
    ``landed`` says which touch it became (``touch``), which begins in the same frame."""
    id: int
    phase: str  # began | hovering | landed | ended | cancelled
    x: float
    y: float
    distance: int
    distance_normalized: float
    x_mm: Optional[float] = None
    y_mm: Optional[float] = None
    touch: Optional[int] = None
    extra: Dict[str, Any] = field(default_factory=dict)


def _contacts(cls: Type[T]) -> Callable[[Any], List[T]]:
    """The field parser of a list of contacts (``touches``, ``hovers``): each an object of
    ``cls``, its unknown fields kept in ``extra``."""
    def parse(obj: Any) -> List[T]:
        return [_build(cls, c, skip=()) for c in obj]
    return parse


# A touches frame's two lists of contacts, one parser each.
_CONTACTS: Dict[str, Callable[[Any], Any]] = {"touches": _contacts(Touch), "hovers": _contacts(Hover)}


@dataclass
class Touches:
    device: str
    time: float
    touches: List[Touch]
    hovers: List[Hover] = field(default_factory=list)
    extra: Dict[str, Any] = field(default_factory=dict)
    type: Literal["touches"] = "touches"


@dataclass
class Frame:
    """The compact form (``form="compact"``): one device's moment. Its gestures carry the frame's
    ``device`` and ``time``; what the compact form leaves out (mm twins, a ``changed`` event's hand
    without a region) the :class:`handyd.Client` fills in unless told not to."""
    device: str
    time: float
    gestures: List[Gesture] = field(default_factory=list)
    touches: List[Touch] = field(default_factory=list)
    hovers: List[Hover] = field(default_factory=list)
    extra: Dict[str, Any] = field(default_factory=dict)
    type: Literal["frame"] = "frame"


@dataclass
class Status:
    clients: int
    devices: int
    frames: int
    events: int
    drops: int
    uptime: Optional[float] = None
    unreadable: Optional[List[Device]] = None
    extra: Dict[str, Any] = field(default_factory=dict)
    type: Literal["status"] = "status"


@dataclass
class Error:
    """``{"type":"error"}``: ``code`` is one of PROTOCOL.md's (``client-too-slow``, …)."""
    code: str
    message: str
    extra: Dict[str, Any] = field(default_factory=dict)
    type: Literal["error"] = "error"


@dataclass
class Shutdown:
    reason: str
    extra: Dict[str, Any] = field(default_factory=dict)
    type: Literal["shutdown"] = "shutdown"


Message = Union[Hello, DeviceEvent, Gesture, Touches, Frame, Status, Error, Shutdown]


def _gesture(obj: Any, device: Optional[str] = None, time: Optional[float] = None) -> Gesture:
    g = _build(Gesture, obj, _GESTURE_CONVERT)
    if device is not None and g.device is None:
        g.device = device
    if time is not None and g.time is None:
        g.time = time
    return g


def _frame(obj: Mapping[str, Any]) -> Frame:
    f = _build(Frame, obj, _CONTACTS)
    f.gestures = [_gesture(g, f.device, f.time) for g in (obj.get("gestures") or [])]
    return f


_DECODERS: Dict[str, Callable[[Mapping[str, Any]], Message]] = {
    "hello": lambda o: _build(Hello, o, {"devices": _devices}),
    "device": lambda o: _build(DeviceEvent, o, {"device": Device.of}),
    "gesture": _gesture,
    "touches": lambda o: _build(Touches, o, _CONTACTS),
    "frame": _frame,
    "status": lambda o: _build(Status, o, {"unreadable": _devices}),
    "error": lambda o: _build(Error, o),
    "shutdown": lambda o: _build(Shutdown, o),
}


def decode_message(line: Union[str, bytes, Mapping[str, Any]]) -> Optional[Message]:
    """One line from the daemon (or its decoded JSON object) as a message; None for a message type
    this version does not know. Raises :class:`ProtocolError` for what is not a protocol message."""
    if isinstance(line, Mapping):
        obj: Any = line
    else:
        try:
            obj = json.loads(line)
        except (ValueError, UnicodeDecodeError) as e:
            raise ProtocolError(f"not JSON: {e}") from None
    if not isinstance(obj, dict):
        raise ProtocolError("not a JSON object")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise ProtocolError('no string "type"')
    decoder = _DECODERS.get(kind)
    return decoder(obj) if decoder else None


@dataclass
class Subscription:
    """What to receive (docs/PROTOCOL.md "subscribe"); None leaves a field as it is (initially every
    gesture of every device, no touches, the full form)."""
    gestures: Optional[List[str]] = None
    devices: Optional[List[str]] = None
    touches: Optional[bool] = None
    form: Optional[Literal["full", "compact"]] = None
    # True: touches frames carry the hovering contacts (``hovers``) of devices that report hover;
    # with ``touches=True`` only.
    hover: Optional[bool] = None

    def to_json(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"type": "subscribe"}
        for name in ("gestures", "devices", "touches", "form", "hover"):
            value = getattr(self, name)
            if value is not None:
                out[name] = list(value) if isinstance(value, (list, tuple)) else value
        return out


def encode_subscribe(subscription: Subscription) -> bytes:
    return (json.dumps(subscription.to_json(), separators=(",", ":")) + "\n").encode()


def encode_status() -> bytes:
    return b'{"type":"status"}\n'
