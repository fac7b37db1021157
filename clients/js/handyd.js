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
