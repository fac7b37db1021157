// handyd's JavaScript client: the daemon's WebSocket endpoint (`handyd --websocket`) as an async
// iterator of typed messages, the web page's counterpart of the Swift HandyClient.
// One ES module, no dependencies; runs in browsers and in node (a WebSocket implementation is
// passed in where there is no global one). The protocol is docs/PROTOCOL.md; types: handyd.d.ts.
//
//   import { HandydClient } from "./handyd.js";
//   const client = new HandydClient({ url: "ws://127.0.0.1:7345", subscription: { gestures: ["pinch"] } });
//   for await (const message of client.messages()) {
//     if (message.type === "gesture") console.log(message.phase, message.scale, message.hand);
//   }

/** The address the README and systemd/handyd-websocket.conf use. */
export const DEFAULT_URL = "ws://127.0.0.1:7345";

/** The protocol version this client reads (hello.protocol). */
export const PROTOCOL_VERSION = 1;

/** The message types of protocol 1 (`frame` only with `form: "compact"`). Others (added later
 *  within protocol 1) are skipped. */
export const MESSAGE_TYPES = Object.freeze(["hello", "device", "gesture", "touches", "frame", "status", "error", "shutdown"]);

/** Backoff between connection attempts, as HandyClient.Backoff: doubled after each failure. */
export const DEFAULT_RECONNECT = Object.freeze({ initialDelayMs: 100, maximumDelayMs: 5000 });

/**
 * One text frame from the daemon as a message, or null for a message type this client does not
 * know (the protocol adds types within a version; a client skips them). Unknown fields are kept
 * and ignored. Throws a HandydProtocolError for text that is not a JSON object with a string type.
 */
export function decodeMessage(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new HandydProtocolError(`not JSON: ${e.message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new HandydProtocolError("not a JSON object");
  }
  if (typeof value.type !== "string") throw new HandydProtocolError("no string \"type\"");
  return MESSAGE_TYPES.includes(value.type) ? value : null;
}

/** The text frame of a client message (`subscribe` or `status`). */
export function encodeMessage(message) {
  return JSON.stringify(message);
}

/** Delay before attempt `failures` + 1, doubling from initialDelayMs up to maximumDelayMs. */
export function backoffDelayMs(reconnect, failures) {
  if (failures <= 0) return 0;
  const delay = reconnect.initialDelayMs * 2 ** (failures - 1);
  return Math.min(Math.max(delay, reconnect.initialDelayMs), reconnect.maximumDelayMs);
}

/** Text that is not a protocol message. */
export class HandydProtocolError extends Error {
  constructor(message) {
    super(message);
    this.name = "HandydProtocolError";
  }
}

/** A connection that failed or closed when the client was not to reconnect. */
export class HandydConnectionError extends Error {
  constructor(message, { code, reason } = {}) {
    super(message);
    this.name = "HandydConnectionError";
    this.code = code;
    this.reason = reason;
  }
}

/**
 * A subscriber of handyd over WebSocket. messages() connects, sends the subscription after every
 * (re)connection, and yields what the daemon sends, starting with hello (again after each
 * reconnection). With `reconnect` null, the iterator ends when the connection closes and a failed
 * first connection throws; otherwise it reconnects with backoff until the consumer stops.
 */
export class HandydClient {
  /**
   * @param {object} [options]
   * @param {string} [options.url] the daemon's WebSocket, DEFAULT_URL by default.
   * @param {object|null} [options.subscription] sent after every connection; null keeps the
   *   daemon's default (every gesture, no touches).
   * @param {{initialDelayMs: number, maximumDelayMs: number}|null} [options.reconnect]
   * @param {Function} [options.WebSocket] the WebSocket class (globalThis.WebSocket by default).
   * @param {(error: Error) => void} [options.onError] told of each failed connection and of
   *   frames that are not protocol messages (those are skipped).
   */
  constructor({ url = DEFAULT_URL, subscription = null, reconnect = DEFAULT_RECONNECT,
                WebSocket = globalThis.WebSocket, onError = () => {} } = {}) {
    if (typeof WebSocket !== "function") {
      throw new TypeError("no WebSocket implementation: pass { WebSocket } (node: --experimental-websocket or the ws package)");
    }
    this.url = url;
    this.subscription = subscription;
    this.reconnect = reconnect;
    this.WebSocket = WebSocket;
    this.onError = onError;
    this.socket = null;
    this.closed = false;
  }

  /** Changes the subscription: kept for reconnections and sent now if connected. */
  subscribe(subscription) {
    this.subscription = { ...(this.subscription ?? {}), ...subscription };
    this.#send({ type: "subscribe", ...subscription });
  }

  /** Asks for a `status` reply (it arrives among the messages). False when not connected. */
  requestStatus() {
    return this.#send({ type: "status" });
  }

  /** Ends messages() and closes the connection; no reconnection follows. */
  close() {
    this.closed = true;
    this.#wake?.();
    this.socket?.close(1000);
  }

  #send(message) {
    const socket = this.socket;
    if (!socket || socket.readyState !== 1) return false;
    socket.send(encodeMessage(message));
    return true;
  }

  #queue = [];
  #wake = null;

  #push(item) {
    this.#queue.push(item);
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  async #next() {
    while (this.#queue.length === 0 && !this.closed) {
      await new Promise((resolve) => { this.#wake = resolve; });
    }
    return this.#queue.shift();
  }

  /** Opens one connection; its frames and its end go to the queue. */
  #open() {
    let opened = false;
    const socket = new this.WebSocket(this.url);
    this.socket = socket;
    socket.onopen = () => {
      opened = true;
      this.#push({ kind: "open" });
      if (this.subscription) socket.send(encodeMessage({ type: "subscribe", ...this.subscription }));
    };
    socket.onmessage = (event) => {
      if (typeof event.data !== "string") {
        this.onError(new HandydProtocolError("binary frame"));
        return;
      }
      try {
        const message = decodeMessage(event.data);
        if (message) this.#push({ kind: "message", message });
      } catch (e) {
        this.onError(e);
      }
    };
    let ended = false;
    const end = (code, reason) => {
      if (ended) return;
      ended = true;
      if (this.socket === socket) this.socket = null;
      this.#push({ kind: "close", opened, code, reason });
    };
    // Browsers follow an error with close (1006); node 20's WebSocket fires only the error when
    // the connection is refused, so an error before open ends the attempt too.
    socket.onerror = () => {
      if (!opened) {
        end(1006, "connection failed");
        try { socket.close(); } catch { /* not open */ }
      }
    };
    socket.onclose = (event) => end(event.code, event.reason);
  }

  /** The daemon's messages; see the class comment. */
  async *messages() {
    let failures = 0;
    try {
      while (!this.closed) {
        this.#open();
        for (;;) {
          const item = await this.#next();
          if (item === undefined) return;  // close() while waiting
          if (item.kind === "open") { failures = 0; continue; }
          if (item.kind === "message") { yield item.message; continue; }
          // close
          const error = new HandydConnectionError(
            item.opened ? `connection to ${this.url} closed (${item.code})` : `cannot connect to ${this.url} (${item.code})`,
            { code: item.code, reason: item.reason });
          if (this.closed) return;
          if (!this.reconnect) {
            if (item.opened) return;
            throw error;
          }
          this.onError(error);
          if (!item.opened) failures += 1;
          break;
        }
        const delay = backoffDelayMs(this.reconnect, Math.max(failures, 1));
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.#wake = () => { clearTimeout(timer); resolve(); };
        });
        this.#wake = null;
      }
    } finally {
      this.closed = true;
      this.socket?.close(1000);
      this.socket = null;
    }
  }

  /** Connects once and returns the daemon's hello. */
  static async hello(options = {}) {
    const client = new HandydClient({ ...options, subscription: null, reconnect: null });
    for await (const message of client.messages()) {
      if (message.type === "hello") { client.close(); return message; }
    }
    throw new HandydConnectionError("closed before hello");
  }
}

// ------------------------------------------------------------------ placement

/** The rules `placement` names, in the order it tries them (docs: README "Placing a popover"). */
export const PLACEMENT_RULES = Object.freeze([
  "beside-clear-side", "above", "far-side", "neutral-above", "neutral-beside", "corner", "overlapping", "too-big",
]);

/**
 * Where to put a popover of `size` next to the fingers of a gesture event, on the side the hand
 * leaves clear and outside the region it covers (`occlusion.polygon`), on screen. The same function,
 * rule for rule, as HandyClient's `placement(for:…)` (Swift) and `handyd.placement` (Python);
 * clients/placement-cases.json checks all three.
 *
 * Coordinates: `view` is the rectangle (in the app's units, e.g. CSS px) that shows the whole
 * display; the event's normalised positions (0…1) map onto it. `size`, `gap`, `margin` and the
 * returned rectangle are in the same units.
 *
 * The side: `clearSide` when it is left or right, else the one `hand` leaves clear, else (hand
 * unknown) from `rightHandProbability` when a `threshold` is given (right hand when P > 0.5 and
 * P ≥ threshold, left when P < 0.5 and P ≤ 1 − threshold), else none: neutral.
 *
 * Rules, first that is clear of the region and on screen (inset by `margin`):
 * - with a side: `beside-clear-side` (`gap` from the centroid, vertically centred, else raised
 *   above the region, else below it, else pushed further out past it, else at the screen's edge
 *   on that side), `above` (centred, `gap` above, raised above the region if needed), `far-side`
 *   (as beside, on the hand's side), `corner` (the nearest clear corner of the screen);
 * - without: `neutral-above`, `neutral-beside` (the roomier side first), `corner`;
 * - none clear: `overlapping`, the first rule's place moved onto the screen; a popover larger than
 *   the screen: `too-big`, the same, at the screen's top/left.
 * Because the region is convex, a clear place exists somewhere on screen only if one of the
 * corners is clear, so `overlapping` means no clear place exists.
 *
 * @returns {{x: number, y: number, width: number, height: number, rule: string, clear: boolean} | null}
 *   null when the event has neither `centroid` nor `position`.
 */
export function placement(event, { size, gap = 0, view, margin = 0, threshold = null } = {}) {
  const at = event?.centroid ?? event?.position;
  if (!at || !size || !view) return null;
  const w = size.width, h = size.height;
  const S = { l: view.x + margin, t: view.y + margin, r: view.x + view.width - margin, b: view.y + view.height - margin };
  const c = { x: view.x + at.x * view.width, y: view.y + at.y * view.height };
  const raw = event.occlusion?.polygon ?? [];
  const poly = raw.length >= 3 ? raw.map((p) => ({ x: view.x + p.x * view.width, y: view.y + p.y * view.height })) : [];
  const eps = 1e-9 * Math.max(Math.abs(view.width), Math.abs(view.height));
  const side = placementSide(event, threshold);
  const clampX = (x) => Math.max(S.l, Math.min(x, S.r - w));
  const clampY = (y) => Math.max(S.t, Math.min(y, S.b - h));
  const clear = (x, y) => !rectOverlapsPolygon({ x, y, width: w, height: h }, poly, eps);
  const onX = (x) => x >= S.l - eps && x + w <= S.r + eps;
  const onY = (y) => y >= S.t - eps && y + h <= S.b + eps;
  const result = (x, y, rule) => ({ x, y, width: w, height: h, rule, clear: clear(x, y) });

  // The first rule's place, for `overlapping` and `too-big`.
  const preferred = side === "left" ? { x: c.x - gap - w, y: c.y - h / 2 }
    : side === "right" ? { x: c.x + gap, y: c.y - h / 2 }
    : { x: c.x - w / 2, y: c.y - gap - h };
  if (w > S.r - S.l || h > S.b - S.t) return result(clampX(preferred.x), clampY(preferred.y), "too-big");

  /** A clear y in the column at x: y0, else raised above the region, else below it. */
  const column = (x, y0, down) => {
    if (!onX(x) || !onY(y0)) return null;
    if (clear(x, y0)) return y0;
    const range = polygonRange(poly, x, x + w, false);
    if (!range) return null;
    const up = range[0] - h;
    if (up <= y0 && onY(up) && clear(x, up)) return up;
    if (down && range[1] >= y0 && onY(range[1]) && clear(x, range[1])) return range[1];
    return null;
  };
  /** Beside the fingers on side `s` ("left" or "right"). */
  const beside = (s) => {
    const near = s === "left" ? c.x - gap - w : c.x + gap;
    const edge = s === "left" ? S.l : S.r - w;
    if (!onX(near)) return null;
    const y0 = clampY(c.y - h / 2);
    let y = column(near, y0, true);
    if (y !== null) return { x: near, y };
    const band = polygonRange(poly, y0, y0 + h, true);
    if (band) {
      const x = s === "left" ? band[0] - w : band[1];
      if (onX(x) && (s === "left" ? x <= near : x >= near) && clear(x, y0)) return { x, y: y0 };
    }
    y = column(edge, y0, true);
    return y !== null ? { x: edge, y } : null;
  };
  const above = () => {
    const x = clampX(c.x - w / 2);
    const y = column(x, c.y - gap - h, false);
    return y !== null ? { x, y } : null;
  };
  const corner = () => {
    const first = side ?? "left";
    const xs = first === "left" ? [S.l, S.r - w] : [S.r - w, S.l];
    let best = null, bestD = Infinity;
    for (const y of [S.t, S.b - h]) {
      for (const x of xs) {
        const dx = x + w / 2 - c.x, dy = y + h / 2 - c.y;
        const d = dx * dx + dy * dy;
        if (d < bestD && clear(x, y)) { best = { x, y }; bestD = d; }
      }
    }
    return best;
  };

  const other = side === "left" ? "right" : "left";
  const roomier = c.x - S.l > S.r - c.x ? "left" : "right";
  const tries = side
    ? [["beside-clear-side", () => beside(side)], ["above", above], ["far-side", () => beside(other)], ["corner", corner]]
    : [["neutral-above", above], ["neutral-beside", () => beside(roomier)],
       ["neutral-beside", () => beside(roomier === "left" ? "right" : "left")], ["corner", corner]];
  for (const [rule, attempt] of tries) {
    const p = attempt();
    if (p) return result(p.x, p.y, rule);
  }
  return result(clampX(preferred.x), clampY(preferred.y), "overlapping");
}

/** The side `placement` puts the popover on: "left", "right", or null (neutral). */
export function placementSide(event, threshold = null) {
  if (event.clearSide === "left" || event.clearSide === "right") return event.clearSide;
  if (event.hand === "right") return "left";
  if (event.hand === "left") return "right";
  const p = event.rightHandProbability;
  if (threshold !== null && threshold !== undefined && typeof p === "number") {
    if (p > 0.5 && p >= threshold) return "left";
    if (p < 0.5 && p <= 1 - threshold) return "right";
  }
  return null;
}

/**
 * Whether the rectangle's inside meets the convex polygon's (separating axes: the rectangle's and
 * each edge's normal); touching, or meeting by no more than `eps`, is not overlapping.
 */
export function rectOverlapsPolygon(rect, polygon, eps = 0) {
  const n = polygon.length;
  if (n < 3) return false;
  const x0 = rect.x, y0 = rect.y, x1 = rect.x + rect.width, y1 = rect.y + rect.height;
  let pminx = Infinity, pmaxx = -Infinity, pminy = Infinity, pmaxy = -Infinity;
  for (const p of polygon) {
    pminx = Math.min(pminx, p.x); pmaxx = Math.max(pmaxx, p.x);
    pminy = Math.min(pminy, p.y); pmaxy = Math.max(pmaxy, p.y);
  }
  if (Math.min(x1, pmaxx) - Math.max(x0, pminx) <= eps) return false;
  if (Math.min(y1, pmaxy) - Math.max(y0, pminy) <= eps) return false;
  for (let i = 0; i < n; i++) {
    const a = polygon[i], b = polygon[(i + 1) % n];
    const dx = b.x - a.x, dy = b.y - a.y;
    const len = Math.sqrt(dx * dx + dy * dy);
    if (!(len > 0)) continue;
    const nx = -dy / len, ny = dx / len;
    let pmin = Infinity, pmax = -Infinity;
    for (const p of polygon) {
      const d = p.x * nx + p.y * ny;
      pmin = Math.min(pmin, d); pmax = Math.max(pmax, d);
    }
    let rmin = Infinity, rmax = -Infinity;
    for (const [x, y] of [[x0, y0], [x1, y0], [x0, y1], [x1, y1]]) {
      const d = x * nx + y * ny;
      rmin = Math.min(rmin, d); rmax = Math.max(rmax, d);
    }
    if (Math.min(rmax, pmax) - Math.max(rmin, pmin) <= eps) return false;
  }
  return true;
}

/** The polygon's extent along y within the strip lo ≤ x ≤ hi, or (`transposed`) along x within
 *  lo ≤ y ≤ hi: [min, max], or null when it does not reach the strip. */
function polygonRange(polygon, lo, hi, transposed) {
  const n = polygon.length;
  let min = Infinity, max = -Infinity;
  for (let i = 0; i < n; i++) {
    const a = polygon[i], b = polygon[(i + 1) % n];
    const au = transposed ? a.y : a.x, av = transposed ? a.x : a.y;
    const bu = transposed ? b.y : b.x, bv = transposed ? b.x : b.y;
    if (au >= lo && au <= hi) { min = Math.min(min, av); max = Math.max(max, av); }
    for (const u of [lo, hi]) {
      if ((au < u && bu > u) || (au > u && bu < u)) {
        const v = av + (u - au) * (bv - av) / (bu - au);
        min = Math.min(min, v); max = Math.max(max, v);
      }
    }
  }
  return min <= max ? [min, max] : null;
}
