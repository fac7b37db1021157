// placement(): the cases shared with the Swift and Python clients (clients/placement-cases.json,
// worked by hand from the rules) and a few properties over generated events.
//   node --test clients/js/test/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { placement, placementSide, rectOverlapsPolygon, PLACEMENT_RULES } from "../handyd.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const { cases } = JSON.parse(readFileSync(join(ROOT, "clients", "placement-cases.json"), "utf8"));

for (const c of cases) {
  test(`shared case: ${c.name}`, () => {
    const got = placement(c.event, c);
    if (c.expected === null) return assert.equal(got, null);
    assert.equal(got.rule, c.expected.rule, c.why);
    assert.equal(got.clear, c.expected.clear, c.why);
    for (const k of ["x", "y", "width", "height"]) assert.ok(Math.abs(got[k] - c.expected[k]) <= 1e-6, `${k}: ${got[k]} (${c.why})`);
  });
}

/** mulberry32: the same events on every run. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hull(points) {
  const pts = [...points].sort((a, b) => a.x - b.x || a.y - b.y);
  const cross = (o, a, b) => (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
  const lower = [], upper = [];
  for (const p of pts) { while (lower.length >= 2 && cross(lower.at(-2), lower.at(-1), p) <= 0) lower.pop(); lower.push(p); }
  for (const p of pts.reverse()) { while (upper.length >= 2 && cross(upper.at(-2), upper.at(-1), p) <= 0) upper.pop(); upper.push(p); }
  return lower.slice(0, -1).concat(upper.slice(0, -1));
}

test("properties: on screen, clear when anything is, on the clear side when it fits, mirrored", () => {
  const r = random(46);
  const u = (lo, hi) => lo + (hi - lo) * r();
  const seen = new Set();
  for (let run = 0; run < 1500; run++) {
    const view = { x: u(-50, 50), y: u(-50, 50), width: u(200, 2000), height: u(200, 1500) };
    const size = { width: u(10, 400), height: u(10, 300) };
    const gap = u(0, 80), margin = r() < 0.5 ? 0 : u(0, 20);
    const c = { x: r(), y: r() };
    const hand = ["left", "right", "unknown", undefined][Math.floor(r() * 4)];
    const event = { centroid: c, hand, clearSide: { left: "right", right: "left", unknown: "unknown" }[hand],
                    rightHandProbability: Math.round(r() * 1000) / 1000 };
    const pts = Array.from({ length: 3 + Math.floor(r() * 6) }, () => ({ x: u(c.x - 0.2, c.x + 0.3), y: u(c.y - 0.1, 1.1) }));
    const poly = hull(pts.map((p) => ({ x: Math.round(p.x * 1000) / 1000, y: Math.round(p.y * 1000) / 1000 })));
    if (poly.length >= 3) event.occlusion = { polygon: poly };
    const threshold = r() < 0.5 ? null : u(0.5, 0.9);
    const opts = { size, gap, view, margin, threshold };
    const p = placement(event, opts);
    seen.add(p.rule);
    const scale = Math.max(view.width, view.height), tol = 1e-7 * scale, eps = 1e-9 * scale;
    const S = { l: view.x + margin, t: view.y + margin, r: view.x + view.width - margin, b: view.y + view.height - margin };
    const px = (event.occlusion?.polygon ?? []).map((q) => ({ x: view.x + q.x * view.width, y: view.y + q.y * view.height }));
    const what = JSON.stringify({ run, event, opts, p });
    if (size.width > S.r - S.l || size.height > S.b - S.t) { assert.equal(p.rule, "too-big", what); continue; }
    assert.ok(p.x >= S.l - tol && p.x + p.width <= S.r + tol && p.y >= S.t - tol && p.y + p.height <= S.b + tol, what);
    const clearAt = (x, y) => !rectOverlapsPolygon({ x, y, width: size.width, height: size.height }, px, eps);
    const anyClear = (x0, x1) => {
      for (let i = 0; i <= 16; i++) for (let j = 0; j <= 16; j++) {
        if (clearAt(x0 + (x1 - x0) * i / 16, S.t + (S.b - size.height - S.t) * j / 16)) return true;
      }
      return false;
    };
    if (p.rule === "overlapping") assert.ok(!anyClear(S.l, S.r - size.width), what);
    else assert.ok(p.clear, what);
    const side = placementSide(event, threshold);
    const cx = view.x + c.x * view.width;
    if (side) {
      const box = side === "left" ? [S.l, cx - gap - size.width] : [cx + gap, S.r - size.width];
      if (box[0] <= box[1] && anyClear(...box)) assert.equal(p.rule, "beside-clear-side", what);
    }
    const swap = { left: "right", right: "left" };
    const m = placement({ centroid: { x: 1 - c.x, y: c.y }, hand: swap[hand] ?? hand, clearSide: swap[event.clearSide] ?? event.clearSide,
                          rightHandProbability: 1 - event.rightHandProbability,
                          occlusion: event.occlusion && { polygon: [...poly].reverse().map((q) => ({ x: 1 - q.x, y: q.y })) } }, opts);
    assert.equal(m.rule, p.rule, what);
    assert.ok(Math.abs(2 * view.x + view.width - m.x - m.width - p.x) <= 1e-6 * scale && Math.abs(m.y - p.y) <= 1e-6 * scale, what);
  }
  assert.ok(seen.size >= PLACEMENT_RULES.length - 1, [...seen].join(","));
});
