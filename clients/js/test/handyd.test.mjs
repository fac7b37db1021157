// Tests of clients/js/handyd.js under node's test runner, against the real handyd binary over a
// real WebSocket (node's own, --experimental-websocket on node 20; global on node 22).
//   HANDYD_BIN=.build/debug node --experimental-websocket --test clients/js/test/
// scripts/test-web.sh runs them (scripts/test.sh calls it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, connect } from "node:net";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import {
  HandydClient, HandydConnectionError, HandydProtocolError, backoffDelayMs, decodeMessage, encodeMessage,
} from "../handyd.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const BIN = process.env.HANDYD_BIN ?? join(ROOT, ".build", "debug");
const DEMO = join(ROOT, "examples", "recordings", "demo.evemu");
// node's own WebSocket where it has one (node 22; node 20 with --experimental-websocket), else the
// ws package (Debian's node-ws).
const WebSocket = globalThis.WebSocket ?? createRequire(import.meta.url)("ws");

// ------------------------------------------------------------------ pure functions

test("decodeMessage returns known messages with unknown fields kept, skips unknown types", () => {
  const hello = decodeMessage('{"type":"hello","protocol":1,"version":"9.9.9","devices":[],"futureField":{"a":1}}');
  assert.equal(hello.type, "hello");
  assert.equal(hello.protocol, 1);
  assert.deepEqual(hello.futureField, { a: 1 });
  const gesture = decodeMessage('{"type":"gesture","gesture":"pinch","phase":"began","id":3,"time":1.5,"device":"d","hand":"unknown","handConfidence":0,"rightHandProbability":0.537,"clearSide":"unknown"}');
  assert.equal(gesture.hand, "unknown");
  assert.equal(gesture.rightHandProbability, 0.537);
  assert.equal(gesture.clearSide, "unknown");
  assert.equal(decodeMessage('{"type":"hologram","x":1}'), null);
});

test("hovering contacts come in touches frames apart from the touches, and hover is asked for", () => {
  const t = decodeMessage('{"type":"touches","device":"d","time":0.02,"touches":[{"id":0,"phase":"began","tool":"finger","x":0.26,"xMm":26,"y":0.4,"yMm":24}],"hovers":[{"distance":1,"distanceNormalized":1,"id":0,"phase":"landed","touch":0,"x":0.26,"xMm":26,"y":0.4,"yMm":24},{"distance":1,"distanceNormalized":1,"id":1,"phase":"hovering","x":0.75,"xMm":75,"y":0.6,"yMm":36}]}');
  assert.deepEqual(t.touches.map((x) => x.id), [0]);
  assert.deepEqual(t.hovers.map((h) => [h.id, h.phase, h.touch]), [[0, "landed", 0], [1, "hovering", undefined]]);
  assert.equal(t.hovers[1].distanceNormalized, 1);
  assert.equal(decodeMessage('{"type":"touches","device":"d","time":3,"touches":[]}').hovers, undefined);
  assert.deepEqual(JSON.parse(encodeMessage({ type: "subscribe", touches: true, hover: true })),
    { type: "subscribe", touches: true, hover: true });
});

test("decodeMessage rejects what is not a protocol message", () => {
  for (const text of ["", "not json", "[1,2]", "null", "42", '{"kind":"hello"}', '{"type":7}']) {
    assert.throws(() => decodeMessage(text), HandydProtocolError, JSON.stringify(text));
  }
});

test("encodeMessage writes one JSON object", () => {
  assert.deepEqual(JSON.parse(encodeMessage({ type: "subscribe", gestures: ["pinch"], touches: false })),
    { type: "subscribe", gestures: ["pinch"], touches: false });
});

test("backoff doubles from the initial delay up to the maximum", () => {
  const r = { initialDelayMs: 100, maximumDelayMs: 1000 };
  assert.deepEqual([0, 1, 2, 3, 4, 5, 9].map((n) => backoffDelayMs(r, n)), [0, 100, 200, 400, 800, 1000, 1000]);
});

test("without a WebSocket implementation the constructor says what to pass", () => {
  assert.throws(() => new HandydClient({ WebSocket: null, url: "ws://x" }), /no WebSocket implementation/);
});

// ------------------------------------------------------------------ against the real daemon

/** A TCP port free on 127.0.0.1 (bound and released; handyd binds it right after). */
async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** handyd replaying `recording`, with its Unix socket and WebSocket on `port`. */
class Daemon {
  constructor({ port, recording = DEMO, speed = 4, waitClients = 1, extra = [] }) {
    this.dir = mkdtempSync(join(tmpdir(), "handyd-js-"));
    this.socket = join(this.dir, "handyd.sock");
    this.log = "";
    this.proc = spawn(join(BIN, "handyd"), [
      "--replay", recording, "--speed", String(speed), "--wait-clients", String(waitClients),
      "--socket", this.socket, "--websocket", `127.0.0.1:${port}`, ...extra,
    ], { stdio: ["ignore", "ignore", "pipe"] });
    this.proc.stderr.on("data", (d) => { this.log += d; });
    this.exited = new Promise((resolve) => this.proc.on("exit", (code, signal) => resolve({ code, signal })));
  }

  async ready() {
    const deadline = Date.now() + 20_000;
    while (!this.log.includes("ready")) {
      if (this.proc.exitCode !== null) throw new Error(`handyd exited: ${this.log}`);
      if (Date.now() > deadline) throw new Error(`handyd not ready: ${this.log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return this;
  }

  async stop() {
    if (this.proc.exitCode === null) this.proc.kill("SIGTERM");
    const result = await this.exited;
    rmSync(this.dir, { recursive: true, force: true });
    return result;
  }
}

/** Every message on the Unix socket until `until(message)` holds (the reference for the WebSocket). */
function unixMessages(path, subscription, until) {
  return new Promise((resolve, reject) => {
    const messages = [];
    let pending = "";
    const socket = connect(path, () => socket.write(JSON.stringify({ type: "subscribe", ...subscription }) + "\n"));
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => {
      pending += chunk;
      let newline;
      while ((newline = pending.indexOf("\n")) >= 0) {
        const message = JSON.parse(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
        messages.push(message);
        if (until(message)) { socket.destroy(); resolve(messages); return; }
      }
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(messages));
  });
}

/** The demo recording's last gesture event (a long press ends it). */
const lastOfDemo = (m) => m.type === "gesture" && m.gesture === "long-press" && m.phase === "ended";

test("the client receives hello, then exactly the pinch events the Unix socket carries", { timeout: 60_000 }, async () => {
  const port = await freePort();
  const daemon = await new Daemon({ port, waitClients: 2 }).ready();
  try {
    const subscription = { gestures: ["pinch", "long-press"] };
    const reference = unixMessages(daemon.socket, subscription, lastOfDemo);
    const client = new HandydClient({ url: `ws://127.0.0.1:${port}`, subscription, reconnect: null, WebSocket });
    const received = [];
    for await (const message of client.messages()) {
      received.push(message);
      if (lastOfDemo(message)) break;
    }
    assert.equal(received[0].type, "hello");
    assert.equal(received[0].protocol, 1);
    assert.deepEqual(received[0].devices.map((d) => d.id), ["replay:demo"]);
    const gestures = received.filter((m) => m.type === "gesture");
    const expected = (await reference).filter((m) => m.type === "gesture");
    assert.ok(expected.some((m) => m.gesture === "pinch" && m.hand === "right"), "the demo has a right-hand pinch");
    assert.ok(expected.some((m) => m.gesture === "pinch" && m.hand === "left"), "the demo has a left-hand pinch");
    assert.deepEqual(gestures, expected);
    // P(right hand) reaches the client, on the right hand's side of 0.5.
    const right = gestures.find((m) => m.gesture === "pinch" && m.hand === "right");
    assert.ok(right.rightHandProbability > 0.5 && right.rightHandProbability <= 1, `P ${right.rightHandProbability}`);
    const left = gestures.find((m) => m.gesture === "pinch" && m.hand === "left");
    assert.ok(left.rightHandProbability >= 0 && left.rightHandProbability < 0.5, `P ${left.rightHandProbability}`);
    assert.ok(gestures.every((m) => m.gesture === "pinch" || m.gesture === "long-press"), "the subscription applied");
    assert.equal(client.socket, null, "the connection is closed when the consumer stops");
  } finally {
    await daemon.stop();
  }
});

test("in the compact form the client receives the frames the Unix socket carries", { timeout: 60_000 }, async () => {
  const port = await freePort();
  const daemon = await new Daemon({ port, waitClients: 2 }).ready();
  try {
    const subscription = { gestures: ["pinch", "long-press"], form: "compact" };
    const lastFrame = (m) => m.type === "frame" && (m.gestures ?? []).some((g) => lastOfDemo({ type: "gesture", ...g }));
    const reference = unixMessages(daemon.socket, subscription, lastFrame);
    const client = new HandydClient({ url: `ws://127.0.0.1:${port}`, subscription, reconnect: null, WebSocket });
    const received = [];
    for await (const message of client.messages()) {
      received.push(message);
      if (lastFrame(message)) break;
    }
    const frames = received.filter((m) => m.type === "frame");
    assert.equal(received.filter((m) => m.type === "gesture").length, 0, "no full-form gesture lines");
    assert.deepEqual(frames, (await reference).filter((m) => m.type === "frame"));
    const pinches = frames.flatMap((f) => f.gestures).filter((g) => g.gesture === "pinch");
    assert.ok(pinches.some((g) => g.phase === "began" && g.hand === "right" && g.rightHandProbability > 0.5),
              "the demo's right-hand pinch, with its hand and P(right hand)");
    assert.ok(frames.every((f) => f.device === "replay:demo" && typeof f.time === "number" && f.touches === undefined));
  } finally {
    await daemon.stop();
  }
});

test("status and subscribe on a live connection", { timeout: 60_000 }, async () => {
  const port = await freePort();
  // --wait-clients 2: the replay waits, so nothing but the replies arrives meanwhile.
  const daemon = await new Daemon({ port, waitClients: 2 }).ready();
  try {
    const client = new HandydClient({ url: `ws://127.0.0.1:${port}`, reconnect: null, WebSocket });
    const seen = [];
    for await (const message of client.messages()) {
      seen.push(message.type);
      if (message.type === "hello") {
        assert.equal(client.requestStatus(), true);
      } else if (message.type === "status") {
        assert.equal(message.clients, 1);
        client.subscribe({ touches: true });
      } else if (message.type === "error") {
        // WebSocket clients get raw touches only with --websocket-touches.
        assert.equal(message.code, "touches-not-allowed");
        break;
      }
    }
    assert.deepEqual(seen, ["hello", "status", "error"]);
    assert.deepEqual(client.subscription, { touches: true });
  } finally {
    await daemon.stop();
  }
});

test("without reconnection a refused first connection throws", { timeout: 30_000 }, async () => {
  const port = await freePort();
  const client = new HandydClient({ url: `ws://127.0.0.1:${port}`, reconnect: null, WebSocket });
  await assert.rejects(async () => { for await (const _ of client.messages()) { /* none */ } }, HandydConnectionError);
});

test("with reconnection it waits for the daemon, and comes back after a restart", { timeout: 90_000 }, async () => {
  const port = await freePort();
  const errors = [];
  const client = new HandydClient({
    url: `ws://127.0.0.1:${port}`, subscription: { gestures: ["tap"] }, WebSocket,
    reconnect: { initialDelayMs: 50, maximumDelayMs: 400 }, onError: (e) => errors.push(e),
  });
  let daemon = null;
  const started = (async () => {
    await new Promise((r) => setTimeout(r, 1000));  // some refused attempts first
    daemon = await new Daemon({ port, waitClients: 1 }).ready();
  })();
  const hellos = [];
  const tapsAfterHello = [];
  let shutdowns = 0;
  let restarted = false;
  try {
    for await (const message of client.messages()) {
      if (message.type === "hello") { hellos.push(message); tapsAfterHello.push(0); }
      if (message.type === "gesture") {
        assert.equal(message.gesture, "tap", "the subscription is sent again after reconnecting");
        tapsAfterHello[tapsAfterHello.length - 1] += 1;
      }
      if (message.type === "shutdown") shutdowns += 1;
      if (!restarted && tapsAfterHello[0] > 0) {
        // The first daemon has replayed a tap: restart it on the same port.
        restarted = true;
        await started;
        const old = daemon;
        daemon = null;
        await old.stop();
        daemon = await new Daemon({ port, waitClients: 1 }).ready();
      }
      if (tapsAfterHello.length === 2 && tapsAfterHello[1] > 0) break;
    }
  } finally {
    client.close();
    await started;
    if (daemon) await daemon.stop();
  }
  assert.equal(hellos.length, 2);
  assert.ok(tapsAfterHello.every((n) => n > 0), `taps per connection: ${tapsAfterHello}`);
  assert.equal(shutdowns, 1, "the stopping daemon said shutdown");
  const refused = errors.filter((e) => e instanceof HandydConnectionError && /cannot connect/.test(e.message));
  assert.ok(refused.length >= 2, `refused attempts before the daemon started: ${errors.map((e) => e.message)}`);
  // Backoff: at 50, 100, 200, 400, 400… ms, one second holds a handful of attempts, not hundreds.
  assert.ok(refused.length <= 12, `${refused.length} attempts in about a second`);
});
