// skinweights view: draws a scene posed with a solver's weights and shows compare's metrics.
// Served by `skinweights view` (the library solves, poses and measures; this page draws), or
// inlined into an `--html` file (weights precomputed; posing and the pose metrics below are
// ports of the library's, checked against it by tests/it/view_browser.rs).
"use strict";
(function () {
  const embedded = JSON.parse(document.getElementById("embedded").textContent);
  const fileMode = embedded.mode === "file";
  const $ = (id) => document.getElementById(id);
  // What tests and curious users can read: the state, the numbers shown, the last error.
  const view = (window.skinweightsView = {
    mode: embedded.mode, idle: false, frame: 0, state: null, metrics: null, error: null,
    drag: null, bones: null, seconds: null,
  });

  let scene = null; // scene info (geometry, bones, probes, solvers, default_state)
  let state = null; // solver, options, pose, skinning, colour, bone, grid, probe
  let weights = null; // Float32Array / Float64Array, vertices x bones
  let solvedInfo = null; // {seconds, warnings}
  let posed = null; // {positions, bones, metrics, drag}
  let frameBox = null; // drawing frame: grows to hold every pose seen, Reset shrinks it (one a panel)
  let panelParts = null; // while a transfer panel draws: the parts it shows

  // ---------------------------------------------------------------- state and URL
  const clone = (x) => JSON.parse(JSON.stringify(x));

  function encodeState(s) {
    const q = new URLSearchParams();
    q.set("scene", s.scene);
    if (s.vertices != null) q.set("vertices", s.vertices);
    q.set("solver", s.solver);
    q.set("skin", s.skinning);
    q.set("colour", s.colour);
    if (s.bone) q.set("bone", s.bone);
    q.set("grid", s.grid ? "1" : "0");
    if (s.probe) q.set("probe", s.probe);
    for (const [k, v] of Object.entries(s.options)) if (v !== "" && v != null) q.set("o." + k, v);
    for (const [k, v] of Object.entries(s.pose)) if (v !== 0) q.set("p." + k, v);
    return q.toString();
  }

  // The URL's fields over `defaults`; a URL that names pose or options replaces them whole.
  function decodeState(text, defaults) {
    const s = clone(defaults);
    const q = new URLSearchParams(text.replace(/^#/, ""));
    if (![...q.keys()].length) return s;
    const get = (k, f) => (q.has(k) ? f(q.get(k)) : undefined);
    s.scene = get("scene", String) ?? s.scene;
    s.vertices = get("vertices", Number) ?? s.vertices;
    s.solver = get("solver", String) ?? s.solver;
    s.skinning = get("skin", String) ?? s.skinning;
    s.colour = get("colour", String) ?? s.colour;
    s.bone = get("bone", String) ?? s.bone;
    s.grid = get("grid", (v) => v === "1") ?? s.grid;
    s.probe = get("probe", String) ?? s.probe;
    const keys = [...q.keys()];
    if (keys.some((k) => k.startsWith("o.")) || q.has("solver")) s.options = {};
    if (keys.some((k) => k.startsWith("p."))) s.pose = {};
    for (const [k, v] of q) {
      if (k.startsWith("o.")) s.options[k.slice(2)] = v;
      // Not-a-number stays NaN so the pose check reports it instead of a silent 0.
      if (k.startsWith("p.")) s.pose[k.slice(2)] = v.trim() === "" ? NaN : Number(v);
    }
    return s;
  }

  function writeUrl() {
    history.replaceState(null, "", "#" + encodeState(state));
    view.state = clone(state);
  }

  // ---------------------------------------------------------------- back ends
  function decodeFloats(b64, exact) {
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return exact ? new Float64Array(bytes.buffer) : new Float32Array(bytes.buffer);
  }

  let spinnerTimer = null;
  async function post(path, body) {
    clearTimeout(spinnerTimer);
    spinnerTimer = setTimeout(() => ($("spinner").hidden = false), 150);
    try {
      const r = await fetch(path, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      let j;
      try {
        j = await r.json();
      } catch (e) {
        throw new Error(`${path}: HTTP ${r.status}, not JSON`);
      }
      if (!r.ok) throw new Error(j.error || `${path}: HTTP ${r.status}`);
      return j;
    } finally {
      clearTimeout(spinnerTimer);
      $("spinner").hidden = true;
    }
  }

  function request() {
    return {
      scene: state.scene, vertices: state.vertices ?? null, solver: state.solver,
      options: state.options, pose: state.pose, skinning: state.skinning, probe: state.probe ?? null,
    };
  }

  const server = {
    async scene(name, vertices) {
      return post("/api/scene", { scene: name ?? "", vertices: vertices ?? null });
    },
    async solve() {
      const r = await post("/api/solve", request());
      return { weights: decodeFloats(r.weights, false), seconds: r.seconds, warnings: r.warnings };
    },
    async pose() {
      const r = await post("/api/pose", request());
      return { positions: decodeFloats(r.positions, false), bones: r.bones, metrics: r.metrics, drag: r.drag };
    },
  };

  const file = {
    async scene() {
      return embedded.scene;
    },
    async solve() {
      const s = embedded.solved.find((x) => x.name === state.solver);
      if (!s) {
        throw new Error(`solver ${JSON.stringify(state.solver)} is not in this file (it has ` +
          `${embedded.solved.map((x) => x.name).join(", ")}); re-solving needs the server: ` +
          `skinweights view SCENE`);
      }
      return { weights: decodeFloats(s.weights, true), seconds: s.seconds, warnings: s.warnings };
    },
    async pose() {
      return poseInPage(scene, weights, state);
    },
  };
  const backend = fileMode ? file : server;

  // ---------------------------------------------------------------- library ports (file mode)
  // 2D rigid transforms {c, s, x, y}: p -> R p + t, as nalgebra's Isometry2.
  const iso = (a, x, y) => ({ c: Math.cos(a), s: Math.sin(a), x, y });
  const mul = (a, b) => ({
    c: a.c * b.c - a.s * b.s, s: a.s * b.c + a.c * b.s,
    x: a.c * b.x - a.s * b.y + a.x, y: a.s * b.x + a.c * b.y + a.y,
  });
  const inv = (a) => ({ c: a.c, s: -a.s, x: -(a.c * a.x + a.s * a.y), y: a.s * a.x - a.c * a.y });
  const bindOf = (b) => {
    const dx = b.tail[0] - b.head[0], dy = b.tail[1] - b.head[1];
    return iso(Math.hypot(dx, dy) > 0 ? Math.atan2(dy, dx) : 0, b.head[0], b.head[1]);
  };

  // skeleton.rs: world_transforms and skinning_transforms (rotations only).
  function skinningTransforms(bones, angles) {
    const bind = bones.map(bindOf);
    const world = new Array(bones.length);
    const worldOf = (j) => {
      if (world[j]) return world[j];
      const rot = iso((angles[j] * Math.PI) / 180, 0, 0);
      const p = bones[j].parent;
      world[j] = p == null ? mul(bind[j], rot) : mul(mul(worldOf(p), mul(inv(bind[p]), bind[j])), rot);
      return world[j];
    };
    return bones.map((_, j) => mul(worldOf(j), inv(bind[j])));
  }

  function anglesOf(bones, pose) {
    const names = bones.map((b) => b.name);
    for (const [name, deg] of Object.entries(pose)) {
      if (!names.includes(name)) throw new Error(`pose rotation: unknown bone ${JSON.stringify(name)}`);
      if (typeof deg !== "number" || !Number.isFinite(deg)) {
        throw new Error(`pose: bone ${JSON.stringify(name)} has a non-finite rotation`);
      }
    }
    return bones.map((b) => pose[b.name] ?? 0);
  }

  // skinning.rs: lbs_with_transforms.
  function lbs(rest, w, nb, S) {
    const n = rest.length / 2, out = new Float64Array(2 * n);
    for (let v = 0; v < n; v++) {
      const px = rest[2 * v], py = rest[2 * v + 1];
      let ox = 0, oy = 0, sum = 0;
      for (let j = 0; j < nb; j++) {
        const wj = Math.max(w[v * nb + j], 0);
        if (wj === 0) continue;
        const t = S[j];
        ox += wj * (t.c * px - t.s * py + t.x);
        oy += wj * (t.s * px + t.c * py + t.y);
        sum += wj;
      }
      const d = Math.max(sum, 1e-12);
      out[2 * v] = ox / d;
      out[2 * v + 1] = oy / d;
    }
    return out;
  }

  // skinning.rs: dqs_with_transforms. A planar unit dual quaternion has real part w + k·k
  // and dual part x·i + y·j only.
  function dqs(rest, w, nb, S) {
    const q = S.map((t) => {
      const a = Math.atan2(t.s, t.c), rw = Math.cos(a / 2), rk = Math.sin(a / 2);
      return { w: rw, k: rk, x: 0.5 * (t.x * rw + t.y * rk), y: 0.5 * (t.y * rw - t.x * rk) };
    });
    const n = rest.length / 2, out = new Float64Array(2 * n);
    for (let v = 0; v < n; v++) {
      let pivot = 0;
      for (let j = 1; j < nb; j++) if (w[v * nb + j] >= w[v * nb + pivot]) pivot = j;
      let sw = 0, sk = 0, sx = 0, sy = 0;
      for (let j = 0; j < nb; j++) {
        const wj = Math.max(w[v * nb + j], 0);
        if (wj === 0) continue;
        const s = q[j].w * q[pivot].w + q[j].k * q[pivot].k < 0 ? -wj : wj;
        sw += s * q[j].w; sk += s * q[j].k; sx += s * q[j].x; sy += s * q[j].y;
      }
      const norm = Math.hypot(sw, sk);
      if (norm < 1e-12) continue; // origin, as the library
      const rw = sw / norm, rk = sk / norm, dx = sx / norm, dy = sy / norm;
      const c = rw * rw - rk * rk, s = 2 * rw * rk;
      const tx = 2 * (dx * rw - dy * rk), ty = 2 * (dx * rk + dy * rw);
      const px = rest[2 * v], py = rest[2 * v + 1];
      out[2 * v] = c * px - s * py + tx;
      out[2 * v + 1] = s * px + c * py + ty;
    }
    return out;
  }

  // skinning.rs: HalfAngleHelper::add and drive, one helper per joint in bone order.
  function withHelpers(bones, w, angles) {
    let B = bones.slice(), W = w, A = angles.slice();
    const n = W.length / B.length;
    bones.forEach((bone, c) => {
      const p = bone.parent;
      if (p == null) return;
      const nb = B.length, nb2 = nb + 1, h = nb;
      const out = new Float64Array(n * nb2);
      for (let v = 0; v < n; v++) {
        for (let j = 0; j < nb; j++) out[v * nb2 + j] = W[v * nb + j];
        const wp = Math.max(W[v * nb + p], 0), wc = Math.max(W[v * nb + c], 0), s = wp + wc;
        if (wp > 0 && wc > 0) {
          if (wc <= s / 2) {
            out[v * nb2 + p] = s - 2 * wc; out[v * nb2 + h] = 2 * wc; out[v * nb2 + c] = 0;
          } else {
            out[v * nb2 + p] = 0; out[v * nb2 + h] = 2 * (s - wc); out[v * nb2 + c] = 2 * wc - s;
          }
        }
      }
      B = B.concat([{ name: bone.name + "_half", parent: p, head: bone.head, tail: bone.tail }]);
      A = A.concat([A[c] / 2]);
      W = out;
    });
    return { bones: B, weights: W, angles: A };
  }

  const area2 = (P, a, b, c) =>
    (P[2 * b] - P[2 * a]) * (P[2 * c + 1] - P[2 * a + 1]) - (P[2 * b + 1] - P[2 * a + 1]) * (P[2 * c] - P[2 * a]);

  // metrics/mod.rs: drag_of_positions, leaked_weight, flipped_triangles, distortion (+ max_and_p99),
  // area_change_pct, for the current pose and the chosen probe's watched vertices.
  function metricsInPage(sc, w, P, S, angles, probeName) {
    const probe = sc.probes.find((p) => p.name === probeName) || sc.probes[0];
    if (!probe) return { metrics: null, drag: null };
    const rest = sc.vertices, nb = sc.bones.length, T = sc.triangles;
    const drag = probe.watched.map((v) => {
      const o = sc.owners[v], px = rest[2 * v], py = rest[2 * v + 1];
      const tx = o >= 0 ? S[o].c * px - S[o].s * py + S[o].x : px;
      const ty = o >= 0 ? S[o].s * px + S[o].c * py + S[o].y : py;
      return Math.hypot(P[2 * v] - tx, P[2 * v + 1] - ty);
    });
    if (!drag.length) throw new Error(`probes[${JSON.stringify(probe.name)}].watch selects no vertex`);
    // Bones the pose moves, and their descendants.
    const moved = sc.bones.map((_, b) => {
      for (let a = b; a != null; a = sc.bones[a].parent) if (angles[a] !== 0) return true;
      return false;
    });
    let leaked = 0;
    for (const v of probe.watched) {
      let s = 0;
      for (let j = 0; j < nb; j++) if (moved[j]) s += w[v * nb + j];
      leaked += s;
    }
    let flipped = 0, posedArea = 0;
    const ratios = [];
    for (let t = 0; t < T.length; t += 3) {
      const a = T[t], b = T[t + 1], c = T[t + 2];
      const ar = area2(P, a, b, c);
      if (ar <= 0) flipped++;
      posedArea += ar;
      // F = posed edges * inverse(rest edges); singular values in closed form.
      const r00 = rest[2 * b] - rest[2 * a], r10 = rest[2 * b + 1] - rest[2 * a + 1];
      const r01 = rest[2 * c] - rest[2 * a], r11 = rest[2 * c + 1] - rest[2 * a + 1];
      const det = r00 * r11 - r01 * r10;
      const i00 = r11 / det, i01 = -r01 / det, i10 = -r10 / det, i11 = r00 / det;
      const p00 = P[2 * b] - P[2 * a], p10 = P[2 * b + 1] - P[2 * a + 1];
      const p01 = P[2 * c] - P[2 * a], p11 = P[2 * c + 1] - P[2 * a + 1];
      const f00 = p00 * i00 + p01 * i10, f01 = p00 * i01 + p01 * i11;
      const f10 = p10 * i00 + p11 * i10, f11 = p10 * i01 + p11 * i11;
      const e = (f00 + f11) / 2, f = (f00 - f11) / 2, g = (f10 + f01) / 2, h = (f10 - f01) / 2;
      const qq = Math.hypot(e, h), rr = Math.hypot(f, g);
      const s1 = qq + rr, s2 = Math.abs(qq - rr);
      ratios.push(s2 > 0 ? s1 / s2 : Infinity);
    }
    ratios.sort((x, y) => x - y);
    const rank = Math.min(Math.max(Math.ceil(0.99 * ratios.length), 1), ratios.length);
    const h = sc.height;
    const metrics = {
      probe: probe.name,
      drag_max_pct: (drag.reduce((m, d) => Math.max(m, d), 0) / h) * 100,
      drag_mean_pct: (drag.reduce((s, d) => s + d, 0) / drag.length / h) * 100,
      leaked_weight: leaked / probe.watched.length,
      flipped,
      distortion_max: ratios[ratios.length - 1],
      distortion_p99: ratios[rank - 1],
      area_change_pct: ((posedArea * 0.5) / sc.area - 1) * 100,
    };
    return { metrics, drag: drag.map((d) => (d * 100) / h) };
  }

  function poseInPage(sc, w, st) {
    const angles = anglesOf(sc.bones, st.pose);
    const S = skinningTransforms(sc.bones, angles);
    const nb = sc.bones.length;
    let P;
    if (st.skinning === "lbs") P = lbs(sc.vertices, w, nb, S);
    else if (st.skinning === "dqs") P = dqs(sc.vertices, w, nb, S);
    else if (st.skinning === "helper") {
      const x = withHelpers(sc.bones, w, angles);
      P = lbs(sc.vertices, x.weights, x.bones.length, skinningTransforms(x.bones, x.angles));
    } else throw new Error(`unknown skinning ${JSON.stringify(st.skinning)} (lbs, dqs or helper)`);
    const bones = sc.bones.map((b, j) => {
      const t = S[j];
      const ap = (x, y) => [t.c * x - t.s * y + t.x, t.s * x + t.c * y + t.y];
      return [...ap(b.head[0], b.head[1]), ...ap(b.tail[0], b.tail[1])];
    });
    const m = metricsInPage(sc, w, P, S, angles, st.probe);
    return { positions: P, bones, metrics: m.metrics, drag: m.drag };
  }

  // ---------------------------------------------------------------- drawing
  const canvas = $("canvas");
  const ctx = canvas.getContext("2d");
  const PALETTE = [
    [66, 133, 244], [234, 67, 53], [52, 168, 83], [251, 188, 5], [171, 71, 188],
    [0, 172, 193], [255, 112, 67], [158, 157, 36], [92, 107, 192], [240, 98, 146],
  ];
  const BLUE = [40, 90, 255], RED = [240, 40, 40], GREY = [110, 110, 110];
  const ramp = (t) => {
    // dark blue -> teal -> yellow, for one bone's weight
    const stops = [[20, 24, 82], [33, 145, 140], [253, 231, 37]];
    t = Math.min(Math.max(t, 0), 1) * 2;
    const i = Math.min(Math.floor(t), 1), f = t - i;
    return stops[i].map((c, k) => c + (stops[i + 1][k] - c) * f);
  };

  function vertexColours() {
    const n = scene.vertices.length / 2, nb = scene.bones.length;
    const out = new Float32Array(3 * n);
    const bi = Math.max(0, scene.bones.findIndex((b) => b.name === state.bone));
    const parent = scene.bones[bi]?.parent;
    for (let v = 0; v < n; v++) {
      let c = [0, 0, 0];
      if (state.colour === "bone") c = ramp(weights[v * nb + bi]);
      else if (state.colour === "joint") {
        const wc = weights[v * nb + bi], wp = parent == null ? 0 : weights[v * nb + parent];
        const rest = Math.max(0, 1 - wc - wp);
        for (let k = 0; k < 3; k++) c[k] = BLUE[k] * wp + RED[k] * wc + GREY[k] * rest;
      } else {
        for (let j = 0; j < nb; j++) {
          const p = PALETTE[j % PALETTE.length], wj = weights[v * nb + j];
          for (let k = 0; k < 3; k++) c[k] += p[k] * wj;
        }
      }
      out.set(c, 3 * v);
    }
    return out;
  }

  // Textured art: each triangle clipped and drawn with the affine map from its texture
  // coordinates (pixels of its layer's image) to the screen, layers back to front.
  let artImages = [];
  async function loadArt() {
    artImages = [];
    if (!scene.art) return [];
    const notes = [];
    for (const im of scene.art.images) {
      if (!im.url) { artImages.push(null); notes.push(im.error); continue; }
      const img = new Image();
      img.src = im.url;
      try { await img.decode(); artImages.push(img); } catch (e) { artImages.push(null); notes.push("an art image did not decode"); }
    }
    return notes;
  }

  // A rig's slots show one attachment each: which layers are drawn (art.drawn at rest and in
  // poses, the clip frame's own while a clip plays), and from them which parts. null: all.
  function drawnLayers() {
    if (!scene.art || !scene.art.drawn) return null;
    if (clipName && clipData && clipData.drawn) return clipData.drawn[clipFrame];
    return scene.art.drawn;
  }

  function drawnParts() {
    if (panelParts) return panelParts;
    const layers = drawnLayers();
    if (!layers) return null;
    const parts = new Array(scene.parts.length).fill(false);
    scene.art.layers.forEach((l, i) => { if (layers[i] && l.part != null) parts[l.part] = true; });
    return parts;
  }

  function drawArt(P, sx, sy, col) {
    const T = scene.triangles, parts = scene.vertex_parts, uv = scene.art.uvs;
    const grow = 0.6 * (window.devicePixelRatio || 1); // overlap, so clip edges leave no seams
    const drawn = drawnLayers();
    for (const [li, layer] of scene.art.layers.entries()) {
      if (panelParts ? !panelParts[layer.part] : drawn && !drawn[li]) continue;
      const img = layer.image == null ? null : artImages[layer.image];
      for (let t = 0; t < T.length; t += 3) {
        const v = [T[t], T[t + 1], T[t + 2]];
        if (parts[v[0]] !== layer.part) continue;
        const X = v.map((i) => sx(P[2 * i])), Y = v.map((i) => sy(P[2 * i + 1]));
        const cx = (X[0] + X[1] + X[2]) / 3, cy = (Y[0] + Y[1] + Y[2]) / 3;
        ctx.save();
        ctx.beginPath();
        for (let k = 0; k < 3; k++) {
          const d = Math.hypot(X[k] - cx, Y[k] - cy) || 1;
          ctx.lineTo(X[k] + ((X[k] - cx) * grow) / d, Y[k] + ((Y[k] - cy) * grow) / d);
        }
        ctx.closePath();
        if (!img) {
          const m = [0, 1, 2].map((q) => (col[3 * v[0] + q] + col[3 * v[1] + q] + col[3 * v[2] + q]) / 3 | 0);
          ctx.fillStyle = `rgb(${m})`;
          ctx.fill();
          ctx.restore();
          continue;
        }
        ctx.clip();
        const [u0, u1, u2] = v.map((i) => uv[2 * i]), [w0, w1, w2] = v.map((i) => uv[2 * i + 1]);
        const du1 = u1 - u0, dv1 = w1 - w0, du2 = u2 - u0, dv2 = w2 - w0;
        const dx1 = X[1] - X[0], dy1 = Y[1] - Y[0], dx2 = X[2] - X[0], dy2 = Y[2] - Y[0];
        const det = du1 * dv2 - du2 * dv1;
        if (det !== 0 && Number.isFinite(det)) {
          const a = (dx1 * dv2 - dx2 * dv1) / det, b = (dy1 * dv2 - dy2 * dv1) / det;
          const c = (dx2 * du1 - dx1 * du2) / det, d = (dy2 * du1 - dy1 * du2) / det;
          ctx.setTransform(a, b, c, d, X[0] - a * u0 - c * w0, Y[0] - b * u0 - d * w0);
          ctx.drawImage(img, 0, 0);
        }
        ctx.restore();
      }
    }
  }

  // Triangles with colours interpolated from their vertices (Gouraud), rasterized into the
  // canvas's pixels directly: a path fill per triangle took 0.3-1 s at 19k triangles in
  // software-rendered Chromium. Pixel centres inside or on an edge are filled, so shared edges
  // leave no gap.
  function fillTriangles(P, col, sx, sy, W, H, left = 0, right = W) {
    const image = ctx.getImageData(0, 0, W, H), d = image.data, T = scene.triangles;
    const shown = drawnParts(), vp = scene.vertex_parts;
    for (let t = 0; t < T.length; t += 3) {
      const a = T[t], b = T[t + 1], c = T[t + 2];
      if (shown && !shown[vp[a]]) continue;
      const x0 = sx(P[2 * a]), y0 = sy(P[2 * a + 1]), x1 = sx(P[2 * b]), y1 = sy(P[2 * b + 1]);
      const x2 = sx(P[2 * c]), y2 = sy(P[2 * c + 1]);
      const area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
      if (!(Math.abs(area) > 0)) continue;
      const xa = Math.max(left, Math.floor(Math.min(x0, x1, x2))), xb = Math.min(right - 1, Math.ceil(Math.max(x0, x1, x2)));
      const ya = Math.max(0, Math.floor(Math.min(y0, y1, y2))), yb = Math.min(H - 1, Math.ceil(Math.max(y0, y1, y2)));
      const inv = 1 / area;
      for (let py = ya; py <= yb; py++) {
        const qy = py + 0.5;
        for (let px = xa; px <= xb; px++) {
          const qx = px + 0.5;
          const l0 = ((x1 - qx) * (y2 - qy) - (x2 - qx) * (y1 - qy)) * inv;
          const l1 = ((x2 - qx) * (y0 - qy) - (x0 - qx) * (y2 - qy)) * inv;
          const l2 = 1 - l0 - l1;
          if (l0 < -1e-9 || l1 < -1e-9 || l2 < -1e-9) continue;
          const o = 4 * (py * W + px);
          d[o] = l0 * col[3 * a] + l1 * col[3 * b] + l2 * col[3 * c];
          d[o + 1] = l0 * col[3 * a + 1] + l1 * col[3 * b + 1] + l2 * col[3 * c + 1];
          d[o + 2] = l0 * col[3 * a + 2] + l1 * col[3 * b + 2] + l2 * col[3 * c + 2];
          d[o + 3] = 255;
        }
      }
    }
    ctx.putImageData(image, 0, 0);
  }

  // The frame grown to hold `P`'s shown vertices and `bones` (a transfer's panels frame
  // their own parts and no bones: a costume part is small beside the skeleton).
  function growFrame(box, P, bones) {
    let [x0, y0, x1, y1] = box;
    const shown = drawnParts(), vp = scene.vertex_parts;
    for (let i = 0; i < P.length; i += 2) {
      if (shown && !shown[vp[i / 2]]) continue;
      x0 = Math.min(x0, P[i]); x1 = Math.max(x1, P[i]);
      y0 = Math.min(y0, P[i + 1]); y1 = Math.max(y1, P[i + 1]);
    }
    for (const b of bones) {
      x0 = Math.min(x0, b[0], b[2]); x1 = Math.max(x1, b[0], b[2]);
      y0 = Math.min(y0, b[1], b[3]); y1 = Math.max(y1, b[1], b[3]);
    }
    return [x0, y0, x1, y1];
  }

  // The transfer's two panels (`view --transfer-from`): the sources' parts, then the
  // targets'. null: one panel, the whole scene.
  function transferPanels() {
    const t = scene.transfer;
    if (!t) return null;
    const mask = (list) => { const m = new Array(scene.parts.length).fill(false); list.forEach((p) => { m[p] = true; }); return m; };
    return [["sources", mask(t.sources)], ["targets", mask(t.targets)]];
  }

  function draw() {
    const dpr = window.devicePixelRatio || 1;
    const W = Math.round(canvas.clientWidth * dpr), H = Math.round(canvas.clientHeight * dpr);
    if (canvas.width !== W || canvas.height !== H) { canvas.width = W; canvas.height = H; }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "#0f1115";
    ctx.fillRect(0, 0, W, H);
    if (!posed || !weights) return;
    const P = posed.positions;
    const col = vertexColours();
    const panels = transferPanels();
    if (!panels) {
      frameBox = growFrame(frameBox || (scene.art && scene.art.drawn_bounds) || scene.bounds, P, posed.bones);
      drawPanel(P, col, frameBox, 0, W, H, dpr);
    } else {
      if (!frameBox) frameBox = panels.map(() => [Infinity, Infinity, -Infinity, -Infinity]);
      const w = Math.floor(W / panels.length);
      panels.forEach(([label, parts], i) => {
        panelParts = parts;
        frameBox[i] = growFrame(frameBox[i], P, []);
        ctx.save();
        ctx.beginPath(); ctx.rect(i * w, 0, w, H); ctx.clip();
        drawPanel(P, col, frameBox[i], i * w, w, H, dpr);
        ctx.fillStyle = "#9aa3b2";
        ctx.font = `${13 * dpr}px system-ui, sans-serif`;
        ctx.fillText(label === "sources" ? "source (the artist's weights)" : "target (transferred)", i * w + 12 * dpr, H - 12 * dpr);
        ctx.restore();
        panelParts = null;
      });
      ctx.strokeStyle = "#2a2f3a"; ctx.lineWidth = dpr;
      ctx.beginPath(); ctx.moveTo(w + 0.5, 30 * dpr); ctx.lineTo(w + 0.5, H); ctx.stroke();
    }
    // Caption, so a screenshot says what it shows.
    const pose = Object.entries(state.pose).filter(([, d]) => d !== 0).map(([b, d]) => `${b} ${d}°`).join(", ");
    const opts = Object.entries(state.options).filter(([, v]) => v !== "" && v != null).map(([k, v]) => `${k}=${v}`).join(" ");
    ctx.fillStyle = "#dde1e8";
    ctx.font = `${14 * dpr}px system-ui, sans-serif`;
    ctx.fillText(`${scene.name} · ${panels ? "transfer, fallback " : ""}${state.solver}${opts ? " " + opts : ""} · ${state.skinning.toUpperCase()} · ${clipName && view.clip ? `clip ${clipName} ${view.clip.time.toFixed(2)} s` : pose || "rest"}` +
      (posed.metrics ? ` · drag max ${fmt(posed.metrics.drag_max_pct, 3)}% h` : ""), 12 * dpr, 22 * dpr);
  }

  // The posed scene framed by `box` into the columns [left, left + w) of the canvas.
  function drawPanel(P, col, box, left, w, H, dpr) {
    const [x0, y0, x1, y1] = box;
    const margin = 30 * dpr;
    const k = Math.min((w - 2 * margin) / (x1 - x0 || 1), (H - 2 * margin - 30 * dpr) / (y1 - y0 || 1));
    const ox = left + (w - k * (x1 - x0)) / 2 - k * x0, oy = (H + 30 * dpr + k * (y1 - y0)) / 2 + k * y0;
    const sx = (x) => ox + k * x, sy = (y) => oy - k * y; // y up
    const n = P.length / 2;
    if (state.colour === "art" && scene.art && !state.grid) {
      drawArt(P, sx, sy, col);
    } else if (state.grid) {
      // The point grid: every vertex a dot in its colour.
      const r = Math.max(1.2 * dpr, Math.min(3 * dpr, 0.35 * k * Math.sqrt(scene.area / n)));
      const shown = drawnParts(), vp = scene.vertex_parts;
      for (let v = 0; v < n; v++) {
        if (shown && !shown[vp[v]]) continue;
        ctx.fillStyle = `rgb(${col[3 * v] | 0},${col[3 * v + 1] | 0},${col[3 * v + 2] | 0})`;
        ctx.fillRect(sx(P[2 * v]) - r, sy(P[2 * v + 1]) - r, 2 * r, 2 * r);
      }
    } else {
      fillTriangles(P, col, sx, sy, canvas.width, H, left, left + w);
    }
    // Watched vertices shaded by drag: faint white = stays put, opaque magenta = dragged
    // (scale: the larger of 1% of the height and the current max).
    const probe = scene.probes.find((p) => p.name === posed.metrics?.probe);
    if (probe && posed.drag) {
      const top = Math.max(1, posed.metrics.drag_max_pct);
      const r = 1.4 * dpr;
      probe.watched.forEach((v, i) => {
        const t = Math.min(posed.drag[i] / top, 1);
        ctx.fillStyle = `rgba(255,${(255 * (1 - t)) | 0},255,${0.12 + 0.88 * t})`;
        ctx.fillRect(sx(P[2 * v]) - r, sy(P[2 * v + 1]) - r, 2 * r, 2 * r);
      });
    }
    // Bones.
    ctx.lineCap = "round";
    for (const [hx, hy, tx, ty] of posed.bones) {
      for (const [lw, s] of [[5 * dpr, "#000"], [2.5 * dpr, "#fff"]]) {
        ctx.lineWidth = lw; ctx.strokeStyle = s;
        ctx.beginPath(); ctx.moveTo(sx(hx), sy(hy)); ctx.lineTo(sx(tx), sy(ty)); ctx.stroke();
      }
      ctx.fillStyle = "#fff";
      ctx.beginPath(); ctx.arc(sx(hx), sy(hy), 4 * dpr, 0, 2 * Math.PI); ctx.fill();
    }
  }

  // ---------------------------------------------------------------- panels
  const fmt = (v, d) => (v == null ? "inf" : Number.isFinite(v) ? v.toFixed(d) : "inf");
  const DIGITS = { drag_max_pct: 3, drag_mean_pct: 3, leaked_weight: 4, distortion_p99: 3, distortion_max: 2, area_change_pct: 3 };

  function showMetrics() {
    const m = posed?.metrics;
    view.metrics = m ? clone(m) : null;
    view.drag = posed?.drag ? Array.from(posed.drag) : null;
    view.bones = posed ? posed.bones : null;
    $("probe-name").textContent = m ? `(watch: ${m.probe})` : "(scene has no probe)";
    for (const key of Object.keys(DIGITS).concat(["flipped"])) {
      const cell = $("m-" + key);
      const v = m ? m[key] : null;
      cell.textContent = !m ? "–" : key === "flipped" ? String(v) : fmt(v, DIGITS[key]);
      cell.dataset.value = m ? String(v) : "";
    }
    $("m-seconds").textContent = solvedInfo ? solvedInfo.seconds.toFixed(3) : "–";
    view.seconds = solvedInfo?.seconds ?? null;
    showWarnings(solvedInfo?.warnings || []);
    let note = !m ? "No probe: nothing watched to measure." : (state.skinning === "lbs" ? "LBS: compare's numbers for this pose." :
      "Pose metrics of the " + (state.skinning === "dqs" ? "DQS" : "helper-bone") + " positions (compare uses LBS).") +
      " Dots: the watched vertices, magenta where dragged.";
    if (fileMode) {
      const s = embedded.solved.find((x) => x.name === state.solver);
      const lib = s && m ? s.metrics[m.probe] : null;
      if (lib) note += ` Library at the ${m.probe} pose: drag max ${fmt(lib.drag_max_pct, 3)}% h.`;
    }
    if (state.colour === "art" && !scene.art) note += " This scene has no art: drawn in bone colours.";
    if ($("solver-note").dataset.art) note += " " + $("solver-note").dataset.art;
    $("metrics-note").textContent = note;
  }

  function showError(message) {
    view.error = message;
    $("error").textContent = message;
    $("error").hidden = !message;
  }

  // ---------------------------------------------------------------- controls
  function solverDoc(name) {
    return scene.solvers.find((s) => s.name === name);
  }

  function optionRange(o) {
    const d = Number(o.default);
    const [x0, y0, x1, y1] = scene.bounds;
    const size = Math.max(x1 - x0, y1 - y0);
    if (o.value === "R") return [0, Math.max(4 * (d || 0), size / 2)];
    if (o.value === "P") return [0.5, Math.max(8, 2 * d)];
    if (o.value === "F" && d >= 0.01) return [0, 4 * d];
    return null;
  }

  function buildOptions() {
    const box = $("options");
    box.textContent = "";
    const doc = solverDoc(state.solver);
    $("solver-note").textContent = fileMode
      ? "Weights precomputed in this file; re-solving with other options needs the server."
      : "";
    if (!doc) return;
    for (const o of doc.options) {
      const row = document.createElement("div");
      row.className = "opt";
      row.title = `${o.key}=${o.value}: ${o.doc} (default ${o.default ?? "unset"})`;
      const name = document.createElement("span");
      name.className = "name";
      name.textContent = o.key;
      const text = document.createElement("input");
      text.type = "text";
      text.id = "opt-" + o.key;
      text.placeholder = o.default ?? "unset";
      text.value = state.options[o.key] ?? "";
      text.disabled = fileMode;
      const range = optionRange(o);
      let slider = null;
      if (range) {
        slider = document.createElement("input");
        slider.type = "range";
        slider.id = "optr-" + o.key;
        slider.min = range[0]; slider.max = range[1]; slider.step = (range[1] - range[0]) / 200;
        slider.value = state.options[o.key] ?? o.default ?? range[0];
        slider.disabled = fileMode;
        slider.addEventListener("input", () => {
          text.value = String(Number(slider.value));
          state.options[o.key] = text.value;
          schedule(3);
        });
      } else row.classList.add("wide");
      text.addEventListener("change", () => {
        state.options[o.key] = text.value.trim();
        if (slider && text.value.trim() !== "") slider.value = text.value;
        schedule(3);
      });
      row.append(name);
      if (slider) row.append(slider);
      row.append(text);
      box.append(row);
    }
  }

  function buildControls() {
    $("scene-name").textContent = `${scene.name}: ${scene.vertices.length / 2} vertices, ${scene.triangles.length / 3} triangles`;
    $("mode").textContent = fileMode ? "(file: weights precomputed)" : "(live: the library solves)";
    const names = fileMode ? embedded.solved.map((s) => s.name) : scene.solvers.map((s) => s.name);
    const sel = $("solver");
    sel.textContent = "";
    for (const n of names) sel.append(new Option(n, n));
    if (!names.includes(state.solver)) sel.append(new Option(state.solver + " (unknown)", state.solver));
    sel.value = state.solver;
    sel.onchange = () => {
      state.solver = sel.value;
      // Options belong to a solver: keep only keys the new one has.
      const keys = (solverDoc(state.solver)?.options || []).map((o) => o.key);
      state.options = fileMode
        ? clone(embedded.solved.find((s) => s.name === state.solver)?.options || {})
        : Object.fromEntries(Object.entries(state.options).filter(([k]) => keys.includes(k)));
      buildOptions();
      schedule(3);
    };
    buildOptions();

    const bones = $("bones");
    bones.textContent = "";
    for (const b of scene.bones) {
      const row = document.createElement("div");
      row.className = "bone-row";
      const name = document.createElement("span");
      name.className = "name";
      name.textContent = b.name;
      const slider = document.createElement("input");
      slider.type = "range"; slider.min = -180; slider.max = 180; slider.step = 1;
      slider.id = "angle-" + b.name;
      const num = document.createElement("input");
      num.type = "number"; num.step = "any";
      num.id = "angle-num-" + b.name;
      const set = (v) => { leaveClip(); state.pose[b.name] = v; schedule(2); };
      slider.addEventListener("input", () => { num.value = slider.value; set(Number(slider.value)); });
      num.addEventListener("change", () => { slider.value = num.value; set(num.value.trim() === "" ? NaN : Number(num.value)); });
      row.append(name, slider, num);
      bones.append(row);
    }
    const probes = $("probes");
    probes.textContent = "";
    for (const p of scene.probes) {
      const btn = document.createElement("button");
      btn.className = "probe";
      btn.type = "button";
      btn.id = "probe-" + p.name;
      btn.textContent = "probe " + p.name;
      btn.title = "pose " + JSON.stringify(p.pose) + "; measure its watched vertices";
      btn.onclick = () => { leaveClip(); state.pose = clone(p.pose); state.probe = p.name; syncControls(); schedule(2); };
      probes.append(btn);
    }
    const boneSel = $("bone");
    boneSel.textContent = "";
    for (const b of scene.bones) boneSel.append(new Option(b.name, b.name));
    boneSel.onchange = () => { state.bone = boneSel.value; schedule(1); };
    $("colour").onchange = () => { state.colour = $("colour").value; syncControls(); schedule(1); };
    $("grid").onchange = () => { state.grid = $("grid").checked; schedule(1); };
    $("skinning").onchange = () => { state.skinning = $("skinning").value; schedule(2); };
    $("reset").onclick = () => {
      state = clone(scene.default_state);
      frameBox = null;
      buildControls();
      schedule(3);
    };
    if (!fileMode) {
      $("scene-box").hidden = false;
      const ss = $("scene-select");
      ss.textContent = "";
      for (const n of [...new Set([scene.default_state.scene, "bar", "arms-down", "arms-touching", "layered-arms", "figure"])]) {
        ss.append(new Option(n, n));
      }
      ss.value = state.scene;
      $("scene-vertices").value = state.vertices ?? "";
      $("scene-open").onclick = () => {
        const v = $("scene-vertices").value.trim();
        location.hash = new URLSearchParams({ scene: ss.value, ...(v ? { vertices: v } : {}) }).toString();
        location.reload();
      };
    }
    syncControls();
  }


  // ---------------------------------------------------------------- clips
  // The server samples the clip (Scene::clip_pose), skins every frame and measures it with
  // the library's metrics; the page only picks the frame to show.
  let clipName = "", clipData = null, clipFrame = 0, clipPlaying = false, clipT0 = 0, clipStart = 0;

  async function fetchClip() {
    const r = await post("/api/clip", { ...request(), clip: clipName, fps: 30 });
    clipData = { ...r, positions: r.positions.map((p) => decodeFloats(p, false)) };
    clipFrame = Math.min(clipFrame, clipData.times.length - 1);
    setClipFrame(clipFrame);
  }

  function setClipFrame(i) {
    const d = clipData;
    clipFrame = i;
    posed = { positions: d.positions[i], bones: d.bones[i], metrics: null, drag: null };
    const scrub = $("clip-scrub");
    scrub.max = d.times.length - 1;
    scrub.value = i;
    // Every number is the library's clip metrics (metrics::clip, as `eval --clip`), sent
    // per frame by the server; the page formats them only.
    const mt = d.metrics, f = mt.flipped[i], a = mt.area_change_pct[i];
    const dmax = mt.deviation_max_px[i], dp95 = mt.deviation_p95_px[i];
    $("clip-time").textContent = `${d.times[i].toFixed(3)} s of ${d.duration} s · frame ${i + 1} of ${d.times.length}`;
    const m = $("clip-metric");
    let text = `flipped ${f} · area change ${fmt(a, 3)} %`;
    if (dmax != null) text += ` · deviation max ${fmt(dmax, 4)} px · p95 ${fmt(dp95, 4)} px`;
    if (state.skinning !== "lbs") text += " (LBS)";
    m.textContent = text;
    m.dataset.flipped = String(f);
    m.dataset.area_change_pct = String(a);
    view.clip = {
      name: d.clip, frame: i, time: d.times[i], frames: d.times.length,
      flipped: f, area_change_pct: a,
      deviation_max_px: dmax, deviation_p95_px: dp95, deviation_mean_px: mt.deviation_mean_px[i],
      summary: d.summary,
    };
    const s = d.summary;
    $("clip-summary").textContent = s.deviation_max_px == null ? "" :
      `clip: deviation max ${fmt(s.deviation_max_px, 4)} px (${fmt(s.deviation_max_pct, 3)} % of height), ` +
      `p95 ${fmt(s.deviation_p95_px, 4)} px, worst frame ${s.worst_frame ? s.worst_frame.frame + 1 : "-"}`;
  }

  function showClipFrame(i) {
    setClipFrame(i);
    draw();
    drawClipPlot();
    view.frame++;
  }

  function drawClipPlot() {
    const c = $("clip-plot"), g = c.getContext("2d");
    g.clearRect(0, 0, c.width, c.height);
    if (!clipData) return;
    const n = clipData.times.length;
    const x = (i) => (n > 1 ? (i / (n - 1)) * (c.width - 4) + 2 : c.width / 2);
    for (const [key, colour] of [["flipped", "#ea4335"], ["area_change_pct", "#4285f4"], ["deviation_max_px", "#fbbc04"]]) {
      const v = clipData.metrics[key];
      if (v.some((t) => t == null)) continue;
      const lo = Math.min(...v), hi = Math.max(...v);
      const y = (t) => c.height - 4 - (hi > lo ? (t - lo) / (hi - lo) : 0.5) * (c.height - 8);
      g.strokeStyle = colour;
      g.lineWidth = 1.5;
      g.beginPath();
      v.forEach((t, i) => (i ? g.lineTo(x(i), y(t)) : g.moveTo(x(i), y(t))));
      g.stroke();
    }
    g.strokeStyle = "#fff";
    g.beginPath(); g.moveTo(x(clipFrame), 0); g.lineTo(x(clipFrame), c.height); g.stroke();
  }

  function tick(now) {
    const d = clipData;
    if (!d || !clipPlaying) return;
    const speed = Number($("clip-speed").value) || 1;
    let t = clipStart + ((now - clipT0) / 1000) * speed;
    if (t > d.duration) {
      if ($("clip-loop").checked && d.duration > 0) t %= d.duration;
      else { t = d.duration; clipPlaying = false; }
    }
    // The last frame at or before t.
    let i = 0;
    while (i + 1 < d.times.length && d.times[i + 1] <= t + 1e-9) i++;
    if (i !== clipFrame) showClipFrame(i);
    if (clipPlaying) requestAnimationFrame(tick);
    $("clip-play").textContent = clipPlaying ? "pause" : "play";
  }

  function playClip(on) {
    clipPlaying = on && !!clipData;
    if (clipPlaying) {
      if (clipFrame >= clipData.times.length - 1) clipFrame = 0;
      clipStart = clipData.times[clipFrame];
      clipT0 = performance.now();
      requestAnimationFrame(tick);
    }
    $("clip-play").textContent = clipPlaying ? "pause" : "play";
  }

  function selectClip(name) {
    clipName = name;
    clipData = null;
    clipFrame = 0;
    view.clip = null;
    $("clip").value = name;
    $("clip-time").textContent = "";
    $("clip-metric").textContent = "";
    $("clip-summary").textContent = "";
  }

  // A pose control (a bone's angle, a probe) shows that pose: a clip playing would hide it.
  function leaveClip() {
    if (!clipName) return;
    playClip(false);
    selectClip("");
  }

  function buildClipControls() {
    const clips = scene.clips || [];
    $("clip-box").hidden = clips.length === 0 || fileMode;
    const sel = $("clip");
    sel.length = 1;
    for (const c of clips) sel.append(new Option(`${c.name} (${c.duration} s)`, c.name));
    sel.value = clipName;
    sel.onchange = () => {
      playClip(false);
      if (fileMode && sel.value) {
        sel.value = "";
        showError("playing clips needs the server: skinweights view SCENE");
        return;
      }
      selectClip(sel.value);
      schedule(2);
    };
    $("clip-play").onclick = () => playClip(!clipPlaying);
    $("clip-scrub").oninput = () => {
      playClip(false);
      if (clipData) showClipFrame(Number($("clip-scrub").value));
    };
    $("clip-speed").onchange = () => playClip(clipPlaying);
  }

  function syncControls() {
    for (const b of scene.bones) {
      const d = state.pose[b.name] ?? 0;
      $("angle-" + b.name).value = Number.isFinite(d) ? d : 0;
      $("angle-num-" + b.name).value = Number.isFinite(d) ? d : "";
    }
    $("skinning").value = state.skinning;
    $("colour").value = state.colour;
    $("bone").value = state.bone ?? scene.bones[0].name;
    $("bone-label").hidden = state.colour === "blend" || state.colour === "art";
    $("grid").checked = !!state.grid;
    $("solver").value = state.solver;
  }

  // ---------------------------------------------------------------- update loop
  // Levels: 1 redraw, 2 re-pose, 3 re-solve. Changes while a request runs are merged into one
  // follow-up request (the latest state wins), so a slider drag never queues a backlog.
  let pending = 0, running = false;
  function schedule(level) {
    pending = Math.max(pending, level);
    view.idle = false;
    if (!running) run();
  }

  async function run() {
    running = true;
    while (pending) {
      const level = pending;
      pending = 0;
      const t0 = performance.now();
      let t1 = t0;
      try {
        if (level >= 3) {
          const s = await backend.solve();
          weights = s.weights;
          solvedInfo = { seconds: s.seconds, warnings: s.warnings };
        }
        if (level >= 2 && clipName && !fileMode) await fetchClip();
        else if (level >= 2) posed = await backend.pose();
        showError(null);
      } catch (e) {
        showError(e.message || String(e));
      }
      t1 = performance.now();
      writeUrl();
      draw();
      showMetrics();
      drawClipPlot();
      // Where the time of the last update went, in ms: solve/pose requests (or posing in
      // the page), then drawing.
      view.timing = { level, compute_ms: t1 - t0, draw_ms: performance.now() - t1 };
      view.frame++;
    }
    running = false;
    view.idle = true;
  }

  async function start() {
    try {
      const hashed = decodeState(location.hash, { scene: null, vertices: null, solver: "", options: {}, pose: {}, skinning: "lbs", colour: "blend", grid: false });
      scene = await backend.scene(hashed.scene, hashed.vertices);
      const artNotes = await loadArt();
      if (scene.art) $("colour").append(new Option("textured art", "art"));
      $("solver-note").dataset.art = artNotes.join("; ");
      state = decodeState(location.hash, scene.default_state);
      if (!state.bone) state.bone = scene.bones[0].name;
      // A rig with the artist's weights and no probe opens on a clip and its deviation from
      // them (the server's default state names the clip).
      if (scene.default_state.clip && !fileMode && !/(^|[#&])p\./.test(location.hash)) clipName = scene.default_state.clip;
      delete state.clip;
      buildControls();
      buildClipControls();
      window.addEventListener("resize", () => schedule(1));
      schedule(3);
    } catch (e) {
      showError(e.message || String(e));
      view.idle = true;
      view.frame++;
    }
  }
  start();
})();

// A warning's kind: its text with quoted names and numbers blanked (as the command line
// groups them), so 60 "part ... sees no bone" lines are one kind with a count.
function warningKind(w) {
  return w.replace(/"[^"]*"/g, '"…"').replace(/\d+(\.\d+)?/g, "#");
}

// The warnings grouped by kind, collapsed: a summary line with the counts, then per kind
// the first three and how many more.
function showWarnings(list) {
  const box = document.getElementById("warnings");
  box.replaceChildren();
  if (list.length === 0) return;
  const kinds = new Map();
  for (const w of list) {
    const k = warningKind(w);
    if (!kinds.has(k)) kinds.set(k, []);
    kinds.get(k).push(w);
  }
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = list.length + " warning" + (list.length === 1 ? "" : "s") + " of " + kinds.size + " kind" + (kinds.size === 1 ? "" : "s");
  details.appendChild(summary);
  for (const ws of kinds.values()) {
    const p = document.createElement("p");
    p.textContent = ws.slice(0, 3).map((w) => "warning: " + w).join("\n") +
      (ws.length > 3 ? "\n... and " + (ws.length - 3) + " more of this kind" : "");
    details.appendChild(p);
  }
  box.appendChild(details);
}
