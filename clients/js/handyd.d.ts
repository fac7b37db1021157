// Types of handyd.js: the messages of protocol 1 (docs/PROTOCOL.md, docs/GESTURES.md).
// Fields that do not apply are left out by the daemon, hence the optional fields. New fields and
// message types may arrive within protocol 1; a client ignores what it does not know.

export declare const DEFAULT_URL: string;
export declare const PROTOCOL_VERSION: 1;
export declare const MESSAGE_TYPES: readonly MessageType[];
export declare const DEFAULT_RECONNECT: Readonly<Reconnect>;

export type MessageType = "hello" | "device" | "gesture" | "touches" | "frame" | "status" | "error" | "shutdown";

/** A position normalised 0…1 on the display (x right, y down), or a vector in those units. */
export interface Point { x: number; y: number }

export interface DeviceInfo {
  /** Stable across replug and reboot (`name@ID_PATH`, `HANDYD_ID`, …); opaque. */
  id: string;
  name: string;
  path?: string;
  node?: string;
  vendor?: number;
  product?: number;
  slots?: number;
  widthMm?: number;
  heightMm?: number;
  /** false when handyd may not open it; `reason` and `fix` say why and what to do. */
  readable?: boolean;
  reason?: string;
  fix?: string;
  problems?: string[];
}

export interface HelloMessage { type: "hello"; protocol: number; version: string; devices: DeviceInfo[] }
export interface DeviceMessage { type: "device"; event: "added" | "removed"; device: DeviceInfo }

export type Hand = "left" | "right" | "unknown";
export type Side = "left" | "right";
export type Phase = "began" | "changed" | "ended" | "cancelled" | "recognized";
export type GestureName =
  | "pinch" | "rotate" | "pan" | "tap" | "long-press" | "swipe"
  | "touch-tap" | "touch-hold" | "touch-pan" | "touch-swipe" | "touch-flick";

export interface GestureMessage {
  type: "gesture";
  /** A name above, or one added later within protocol 1. */
  gesture: GestureName | string;
  phase: Phase;
  /** Shared by every event of one gesture. */
  id: number;
  /** Seconds, from the device's kernel timestamps: only differences mean something. */
  time: number;
  device: string;
  fingers?: number;
  touches?: number[];
  touch?: number;
  centroid?: Point;
  centroidMm?: Point;
  position?: Point;
  positionMm?: Point;
  translation?: Point;
  translationMm?: Point;
  /** mm/s. */
  velocity?: Point;
  scale?: number;
  scaleVelocity?: number;
  spanMm?: number;
  /** Radians since began. */
  rotation?: number;
  rotationVelocity?: number;
  hand?: Hand;
  handConfidence?: number;
  /** P(right hand), 0…1 (3 decimals), wherever the hand classifier ran, also when `hand` is
   *  `"unknown"`: an app that must always place its popover picks its own threshold on it
   *  (a mirrored gesture gives 1 − P). Absent when no classifier judged one hand. */
  rightHandProbability?: number;
  /** The side of the fingers the hand does not cover (the side with less of `occlusion`). */
  clearSide?: Side | "unknown";
  /** What the hand and forearm probably cover: a convex polygon, corners in order. On `changed`
   *  events only when it moved more than 2 mm: keep the last one of the gesture. */
  /** `source`: "hover" (built from the hovering fingers near the gesture's), "model" (the hand
   *  model while the device had hovering contacts); absent without hover (the model). */
  occlusion?: { polygon: Point[]; polygonMm: Point[]; source?: "hover" | "model" | string };
  /** On `ended`: where momentum would carry it (see docs/GESTURES.md "Momentum"). */
  glideMm?: Point;
  glideScale?: number;
  glideRotation?: number;
  taps?: number;
  duration?: number;
  direction?: "up" | "down" | "left" | "right";
  edge?: "left" | "right" | "top" | "bottom";
}

export interface WireTouch {
  id: number;
  phase: "began" | "moved" | "stationary" | "ended" | "cancelled" | string;
  x: number; y: number; xMm: number; yMm: number;
  vxMm?: number; vyMm?: number;
  majorMm?: number; minorMm?: number; orientation?: number;
  pressure?: number;
  tool?: string;
}
/** A hovering contact: a finger in range above the glass, not touching (docs/PROTOCOL.md "Hover").
 *  Only to a subscriber with `hover: true`, on a device that reports hover. Never a touch: its `id`
 *  is its own; `landed` names the touch it became (`touch`), which begins in the same frame. */
export interface WireHover {
  id: number;
  phase: "began" | "hovering" | "landed" | "ended" | "cancelled" | string;
  x: number; y: number; xMm: number; yMm: number;
  /** ABS_MT_DISTANCE as the device reports it, and 0…1 over its axis (0 = touching). */
  distance: number; distanceNormalized: number;
  touch?: number;
}
export interface TouchesMessage { type: "touches"; device: string; time: number; touches: WireTouch[]; hovers?: WireHover[] }
/** A gesture event in a compact `frame`: the `gesture` message without `type`, `device`, `time`
 *  (the frame's), the mm twins of normalised points (times the device's widthMm/heightMm), and on
 *  `changed` without `occlusion` the hand (the one last sent for its id). */
export type CompactGesture =
  Omit<GestureMessage, "type" | "device" | "time" | "centroidMm" | "positionMm" | "translationMm" | "occlusion">
  & { occlusion?: { polygon: Point[]; source?: "hover" | "model" | string } };
/** A touch in a compact `frame`: without xMm/yMm; stationary touches are left out. */
export type CompactTouch = Omit<WireTouch, "xMm" | "yMm">;
/** A hovering contact in a compact `frame`: without xMm/yMm. */
export type CompactHover = Omit<WireHover, "xMm" | "yMm">;
/** Only with `form: "compact"`: one device's moment (docs/PROTOCOL.md "frame (compact form)"). */
export interface FrameMessage { type: "frame"; device: string; time: number; gestures?: CompactGesture[]; touches?: CompactTouch[]; hovers?: CompactHover[] }
export interface StatusMessage { type: "status"; clients: number; devices: number; drops: number; events: number; frames: number; uptime: number }
export interface ErrorMessage { type: "error"; code: string; message: string }
export interface ShutdownMessage { type: "shutdown"; reason: string }

export type Message =
  | HelloMessage | DeviceMessage | GestureMessage | TouchesMessage | FrameMessage
  | StatusMessage | ErrorMessage | ShutdownMessage;

/** What to receive; each field changes only itself (docs/PROTOCOL.md "subscribe"). */
export interface Subscription {
  gestures?: string[] | null;
  devices?: string[] | null;
  touches?: boolean;
  /** "full" (default) or "compact": `frame` messages instead of `gesture` and `touches`. */
  form?: "full" | "compact";
  /** With `touches`: touches frames carry the hovering contacts (`hovers`) of devices that report hover. */
  hover?: boolean;
}

export interface Reconnect { initialDelayMs: number; maximumDelayMs: number }

export interface HandydClientOptions {
  url?: string;
  subscription?: Subscription | null;
  reconnect?: Reconnect | null;
  WebSocket?: { new (url: string): WebSocket };
  onError?: (error: Error) => void;
}

export declare function decodeMessage(text: string): Message | null;
export declare function encodeMessage(message: { type: "subscribe" } & Subscription | { type: "status" }): string;
export declare function backoffDelayMs(reconnect: Reconnect, failures: number): number;

export declare class HandydProtocolError extends Error {}
export declare class HandydConnectionError extends Error {
  code?: number;
  reason?: string;
}

export declare class HandydClient {
  constructor(options?: HandydClientOptions);
  readonly url: string;
  subscription: Subscription | null;
  reconnect: Reconnect | null;
  subscribe(subscription: Subscription): void;
  requestStatus(): boolean;
  close(): void;
  messages(): AsyncGenerator<Message, void, undefined>;
  static hello(options?: HandydClientOptions): Promise<HelloMessage>;
}

// ------------------------------------------------------------------ placement

export type PlacementRule =
  | "beside-clear-side" | "above" | "far-side" | "neutral-above" | "neutral-beside" | "corner"
  | "overlapping" | "too-big";
export declare const PLACEMENT_RULES: readonly PlacementRule[];

/** A rectangle in the app's units (e.g. CSS px), y down. */
export interface Rect { x: number; y: number; width: number; height: number }

export interface PlacementOptions {
  /** The popover's size, in the view's units. */
  size: { width: number; height: number };
  /** From the fingers' centroid to the popover's near edge. Default 0. */
  gap?: number;
  /** The rectangle that shows the whole display (e.g. {x: 0, y: 0, width: innerWidth, height: innerHeight}
   *  in a kiosk); the event's normalised positions map onto it. */
  view: Rect;
  /** Kept free along the screen's edges. Default 0. */
  margin?: number;
  /** With an unknown hand: a right hand when rightHandProbability > 0.5 and ≥ threshold, a left
   *  hand when < 0.5 and ≤ 1 − threshold. null (default): an unknown hand is placed neutrally. */
  threshold?: number | null;
}

/** The popover's rectangle, the rule that placed it, and whether it is clear of the region. */
export interface Placement extends Rect { rule: PlacementRule; clear: boolean }

/** The fields placement reads (a GestureMessage, or a compact frame's gesture). */
export type PlacementEvent = Pick<GestureMessage, "centroid" | "position" | "hand" | "clearSide" | "rightHandProbability">
  & { occlusion?: { polygon: Point[]; source?: "hover" | "model" | string } };

/** Where to put a popover beside the fingers, on the side the hand leaves clear, outside the region
 *  it covers, on screen (README "Placing a popover"); null without centroid or position. The same
 *  function as HandyClient's placement(for:…) and handyd.placement (Python). */
export declare function placement(event: PlacementEvent, options: PlacementOptions): Placement | null;
/** The side placement puts the popover on; null: neutral. */
export declare function placementSide(event: PlacementEvent, threshold?: number | null): Side | null;
/** Whether the rectangle's inside meets the convex polygon's by more than eps. */
export declare function rectOverlapsPolygon(rect: Rect, polygon: Point[], eps?: number): boolean;
