// The handyd web demo: a picture that pans, pinches and rotates at once, from gestures made
// anywhere on the touchscreen (handyd reads the device; the page only listens to handyd over its
// WebSocket). Double tap resets. Released gestures glide on with the momentum handyd reports
// (`glideMm`, `glideScale`, `glideRotation` on `ended`). While pinching, the zoom level shows
// beside the fingers on the side the hand does not cover (`clearSide`), out of the region the hand
// probably covers (`occlusion`).
//
// Open it as a kiosk would (README "Web kiosks"):  http://127.0.0.1:8080/?ws=ws://127.0.0.1:7345
// `window.handydDemo` holds the view and a log of what the page did, for tests and curious people.
import { HandydClient, placement } from "./handyd.js";

const params = new URLSearchParams(location.search);
const url = params.get("ws") ?? `ws://${location.hostname || "127.0.0.1"}:7345`;

const picture = document.getElementById("picture");
const popover = document.getElementById("popover");
const statusLine = document.getElementById("status");
const fingers = document.getElementById("fingers");

/** The picture's transform: scale (factor), rotation (radians), x/y (CSS px from the centre). */
const view = { scale: 1, rotation: 0, x: 0, y: 0 };
const SCALE_LIMITS = [0.05, 40];
/** Per gesture id: the view when it began (gestures report values since their began). */
const bases = new Map();
/** Per property (`scale`, `rotation`, `x`, `y`): a running glide. */
const glides = new Map();
/** Per pinch id: its hand and clear side when it began, so the popover never flips while the fingers move. */
const popoverSides = new Map();
/** Per pinch id: the last `occlusion` handyd sent with it. */
const shadows = new Map();
/** What the page did, in order (gesture values applied, glides, resets). */
const log = [];
const devices = new Map();

window.handydDemo = { view, log, glides, devices, url, connected: false, messages: 0, render };

const clampScale = (s) => Math.min(SCALE_LIMITS[1], Math.max(SCALE_LIMITS[0], s));

function render() {
  picture.style.transform =
    `translate(${view.x}px, ${view.y}px) rotate(${view.rotation}rad) scale(${view.scale})`;
  if (!popover.hidden) popover.textContent = `${Math.round(view.scale * 100)} %`;
}

/** A normalised display position (0…1) in CSS px: the touchscreen is the display in a kiosk. */
function toScreen(p) {
  return { x: p.x * window.innerWidth, y: p.y * window.innerHeight };
}

// ------------------------------------------------------------------ glides

/**
 * Momentum as handyd models it (docs/GESTURES.md "Momentum"): exponential deceleration, so the
 * value approaches its target as 1 − e^(−t/τ). Scale glides in log space (a factor).
 */
function startGlide(property, target, tauSeconds, gestureId) {
  if (!(tauSeconds > 0) || !Number.isFinite(target)) return;
  glides.set(property, {
    from: view[property], to: target, tauMs: tauSeconds * 1000, start: performance.now(), gestureId,
  });
  log.push({ what: "glide-started", property, gesture: gestureId, from: view[property], to: target, tau: tauSeconds });
}

/** Stops the glides of `properties` where they are (a new gesture takes hold of them). */
function stopGlides(properties, reason) {
  for (const property of properties) {
    const glide = glides.get(property);
    if (!glide) continue;
    glides.delete(property);
    log.push({ what: "glide-stopped", property, gesture: glide.gestureId, at: view[property], to: glide.to, reason });
  }
}

function stepGlides(now) {
  for (const [property, g] of glides) {
    const t = (now - g.start) / g.tauMs;
    const done = t >= 6;  // within 0.25 % of the target
    const k = done ? 1 : 1 - Math.exp(-t);
    view[property] = property === "scale"
      ? g.from * Math.pow(g.to / g.from, k)
      : g.from + (g.to - g.from) * k;
    if (done) {
      glides.delete(property);
      log.push({ what: "glide-finished", property, gesture: g.gestureId, at: view[property] });
    }
  }
}

function frame(now) {
  stepGlides(now);
  render();
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);

// ------------------------------------------------------------------ gestures

const PROPERTIES = { pinch: ["scale"], rotate: ["rotation"], pan: ["x", "y"] };

/** The view when gesture `g` began (or when the page first heard of it, if it joined late). */
function baseOf(g) {
  if (g.phase === "began" || !bases.has(g.id)) {
    stopGlides(PROPERTIES[g.gesture], `${g.gesture} ${g.id} began`);
    bases.set(g.id, { ...view });
  }
  return bases.get(g.id);
}

function applyContinuous(g) {
  const base = baseOf(g);
  const widthMm = devices.get(g.device)?.widthMm;
  if (g.gesture === "pinch" && g.scale !== undefined) {
    view.scale = clampScale(base.scale * g.scale);
    if (g.phase === "ended" && g.glideScale && g.scaleVelocity) {
      // glideScale = exp(τ · scaleVelocity / scale)
      startGlide("scale", clampScale(view.scale * g.glideScale), Math.log(g.glideScale) * g.scale / g.scaleVelocity, g.id);
    }
  } else if (g.gesture === "rotate" && g.rotation !== undefined) {
    view.rotation = base.rotation + g.rotation;
    if (g.phase === "ended" && g.glideRotation && g.rotationVelocity) {
      startGlide("rotation", view.rotation + g.glideRotation, g.glideRotation / g.rotationVelocity, g.id);
    }
  } else if (g.gesture === "pan" && g.translation) {
    view.x = base.x + g.translation.x * window.innerWidth;
    view.y = base.y + g.translation.y * window.innerHeight;
    if (g.phase === "ended" && g.glideMm && g.velocity && widthMm) {
      // glideMm = velocity · τ; mm to px through the display's width (the touchscreen's).
      const speed = Math.hypot(g.velocity.x, g.velocity.y);
      const tau = speed > 0 ? Math.hypot(g.glideMm.x, g.glideMm.y) / speed : 0;
      const pxPerMm = window.innerWidth / widthMm;
      startGlide("x", view.x + g.glideMm.x * pxPerMm, tau, g.id);
      startGlide("y", view.y + g.glideMm.y * pxPerMm, tau, g.id);
    }
  }
  if (g.phase === "began" || g.phase === "ended" || g.phase === "cancelled") {
    log.push({ what: g.phase, gesture: g.gesture, id: g.id, hand: g.hand, clearSide: g.clearSide,
               base: { ...base }, view: { ...view },
               values: { scale: g.scale, rotation: g.rotation, translation: g.translation } });
  }
  if (g.phase === "ended" || g.phase === "cancelled") bases.delete(g.id);
}

function reset(g) {
  stopGlides(["scale", "rotation", "x", "y"], "double tap");
  log.push({ what: "reset", id: g.id, before: { ...view } });
  Object.assign(view, { scale: 1, rotation: 0, x: 0, y: 0 });
  // The state is reset at once; the picture eases back to it.
  picture.classList.add("resetting");
  setTimeout(() => picture.classList.remove("resetting"), 300);
}

// ------------------------------------------------------------------ the popover

const POPOVER_GAP_PX = 56;  // from the fingers' centroid: clear of a fingertip
const POPOVER_MARGIN_PX = 4;  // kept free along the window's edges
let hideTimer = null;

function placePopover(g) {
  if (!g.centroid) return;
  // The hand is decided once per pinch, so the popover never flips sides while the fingers move.
  let hand = popoverSides.get(g.id);
  if (!hand) {
    hand = { hand: g.hand, clearSide: g.clearSide };
    popoverSides.set(g.id, hand);
  }
  // `changed` events carry the covered region only when it moved: keep the last one of this pinch.
  if (g.occlusion) shadows.set(g.id, g.occlusion);
  const firstShow = popover.hidden || popover.dataset.gesture !== String(g.id);
  clearTimeout(hideTimer);
  popover.hidden = false;
  popover.classList.remove("fading");
  popover.textContent = `${Math.round(view.scale * 100)} %`;
  const c = toScreen(g.centroid);
  // Beside the fingers on the clear side, out of the region the hand covers, on screen
  // (handyd.js `placement`, the same function as the Swift and Python clients').
  const place = placement({ ...g, ...hand, occlusion: shadows.get(g.id) }, {
    size: { width: popover.offsetWidth, height: popover.offsetHeight },
    gap: POPOVER_GAP_PX,
    view: { x: 0, y: 0, width: window.innerWidth, height: window.innerHeight },
    margin: POPOVER_MARGIN_PX,
  });
  const { x: left, y: top, width: w } = place;
  const side = left + w <= c.x ? "left" : left >= c.x ? "right" : "above";
  if (firstShow) popover.style.transition = "none";  // appear in place, do not slide in
  popover.style.transform = `translate(${left}px, ${top}px)`;
  if (firstShow) {
    void popover.offsetWidth;
    popover.style.transition = "";
  }
  Object.assign(popover.dataset, {
    gesture: String(g.id), side, rule: place.rule, hand: g.hand ?? "unknown", centroidX: String(c.x), centroidY: String(c.y),
  });
  const shadow = (shadows.get(g.id)?.polygon ?? []).map(toScreen);
  log.push({ what: "popover", id: g.id, phase: g.phase, side, rule: place.rule, hand: g.hand, centroidX: c.x,
             left, right: left + w, top, bottom: top + place.height, shadow,
             hasShadow: shadow.length >= 3, clearOfShadow: place.clear });
}

function hidePopover(g) {
  popoverSides.delete(g.id);
  shadows.delete(g.id);
  clearTimeout(hideTimer);
  hideTimer = setTimeout(() => {
    popover.classList.add("fading");
    hideTimer = setTimeout(() => { popover.hidden = true; }, 250);
  }, 900);
}

// ------------------------------------------------------------------ handyd

/** The ring at the fingers' centroid while a continuous gesture is live. */
function showFingers(g) {
  if (g.phase === "ended" || g.phase === "cancelled" || !g.centroid) {
    fingers.hidden = true;
    return;
  }
  const c = toScreen(g.centroid);
  fingers.hidden = false;
  fingers.style.transform = `translate(${c.x}px, ${c.y}px)`;
}

function onMessage(message) {
  window.handydDemo.messages += 1;
  switch (message.type) {
    case "hello":
      window.handydDemo.connected = true;
      devices.clear();
      for (const d of message.devices) devices.set(d.id, d);
      statusLine.textContent = `handyd ${message.version}: ${message.devices.length} touchscreen(s)`;
      break;
    case "device":
      if (message.event === "added") devices.set(message.device.id, message.device);
      else devices.delete(message.device.id);
      break;
    case "gesture":
      if (PROPERTIES[message.gesture]) {
        applyContinuous(message);
        showFingers(message);
        if (message.gesture === "pinch") {
          if (message.phase === "ended" || message.phase === "cancelled") hidePopover(message);
          else placePopover(message);
        }
      } else if (message.gesture === "tap" && message.taps === 2) {
        reset(message);
      }
      render();
      break;
    case "shutdown":
      statusLine.textContent = `handyd stopped (${message.reason}); waiting for it`;
      break;
  }
}

const client = new HandydClient({
  url,
  subscription: { gestures: ["pinch", "rotate", "pan", "tap"] },
  onError: (error) => {
    window.handydDemo.connected = false;
    statusLine.textContent = `handyd not reachable at ${url} (${error.message}); retrying`;
  },
});

for await (const message of client.messages()) onMessage(message);
