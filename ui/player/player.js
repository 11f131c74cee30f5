/* Feature-emergence player: keeps a run's frames in the browser and animates them on canvases.
 * Shared by the Streamlit component (ui/player/component.js) and the standalone export
 * (ui/export.py). Canvas, not Plotly: measured in headless Chromium on the 2-core machine,
 * Plotly.react of 602 SVG points took ~100 ms per frame, a canvas redraw ~1 ms. */
const FE = (() => {
  const THEMES = {
    light: {bg: "#ffffff", fg: "#262730", muted: "#6b6f7b", grid: "#e4e6eb", edge: "#222222"},
    dark: {bg: "#0e1117", fg: "#fafafa", muted: "#a3a8b4", grid: "#313742", edge: "#ffffff"},
  };
  const C = {blue: "#0072B2", verm: "#D55E00", orange: "#E69F00", sky: "#56B4E9",
    green: "#009E73", purple: "#CC79A7", grey: "#999999"};
  const SPEEDS = [1, 2, 5, 10, 20, 50, 100];
  let scale = 1;  // canvas type size: larger in presentation mode
  const F = (style, px) => (style ? style + " " : "") + Math.round(px * scale) + "px sans-serif";
  const setScale = (k) => { scale = k; };
  const ALIGNED = 0.9;

  function bytes(b64) {
    const s = atob(b64), u = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i);
    return u;
  }

  /* All frames of one run: scalars as arrays, positions int16 (per-frame scale), cos int8. */
  class Store {
    constructor(meta) {
      this.meta = meta; this.run = meta.run; this.n = 0; this.done = false; this.error = "";
      this.pos = []; this.scale = []; this.cos = []; this.sgn = []; this.text = [];
      this.s = {step: [], stage: [], train: [], test: [], cosmax: [], frac: [], share: [],
        zero: []};
      this.extent = 1e-9;
    }
    append(fr, start) {
      const k = fr.step.length, skip = this.n - start;
      if (skip < 0 || skip >= k) return 0;
      const np = this.meta.points, nn = this.meta.neurons;
      const pos = new Int16Array(bytes(fr.pos).buffer), cos = new Int8Array(bytes(fr.cos).buffer);
      const sgn = new Int8Array(bytes(fr.sign).buffer);
      for (let j = skip; j < k; j++) {
        this.pos.push(pos.subarray(2 * np * j, 2 * np * (j + 1)));
        this.cos.push(cos.subarray(nn * j, nn * (j + 1)));
        this.sgn.push(sgn.subarray(nn * j, nn * (j + 1)));
        this.scale.push(fr.scale[j]);
        this.extent = Math.max(this.extent, fr.scale[j]);
        this.text.push(fr.text[j]);
        for (const key in this.s) this.s[key].push(fr[key][j]);
      }
      this.n += k - skip;
      return k - skip;
    }
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function smooth(y, w) {
    if (!(w > 0)) return y;
    const out = []; let last = 0, norm = 0;
    for (const v of y) { last = w * last + (1 - w) * v; norm = w * norm + (1 - w); out.push(last / norm); }
    return out;
  }

  function mix(a, b, t) {
    const p = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
    const x = p(a), y = p(b);
    return "rgb(" + x.map((v, i) => Math.round(v + (y[i] - v) * t)).join(",") + ")";
  }

  function cosColour(c) {  // |cos| 0 grey -> 0.5 sky -> 1 blue (the old Plotly colour scale)
    const a = Math.min(1, Math.abs(c));
    return a < 0.5 ? mix("#BBBBBB", C.sky, a / 0.5) : mix(C.sky, C.blue, (a - 0.5) / 0.5);
  }

  function niceTicks(lo, hi, n) {
    const span = hi - lo || 1, raw = span / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map((f) => f * mag).find((s) => span / s <= n) || 10 * mag;
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(+v.toFixed(10));
    return out;
  }

  function fitCanvas(cv) {
    const dpr = window.devicePixelRatio || 1, w = cv.clientWidth, h = cv.clientHeight;
    if (cv.width !== Math.round(w * dpr) || cv.height !== Math.round(h * dpr)) {
      cv.width = Math.round(w * dpr); cv.height = Math.round(h * dpr);
    }
    const ctx = cv.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    return [ctx, w, h];
  }

  function star(ctx, x, y, r, n, inner) {
    ctx.beginPath();
    for (let i = 0; i < 2 * n; i++) {
      const a = -Math.PI / 2 + (i * Math.PI) / n, rr = i % 2 ? r * inner : r;
      ctx.lineTo(x + rr * Math.cos(a), y + rr * Math.sin(a));
    }
    ctx.closePath();
  }

  /* The MDS map: neurons, the stars ±Σ_A M (or data centres) and how many neurons sit on each. */
  function drawMap(cv, st, i, opt, th) {
    const [ctx, w, h] = fitCanvas(cv);
    ctx.fillStyle = th.bg; ctx.fillRect(0, 0, w, h);
    const m = st.meta, np = m.points, nn = m.neurons, pos = st.pos[i], sc = st.scale[i] / 32767;
    const top = 34 * scale, bottom = 30 * scale, side = 12;
    const R = st.extent * 1.08, pw = w - 2 * side, ph = h - top - bottom;
    const k = Math.min(pw, ph) / (2 * R), cx = side + pw / 2, cy = top + ph / 2;
    const X = (j) => cx + pos[2 * j] * sc * k, Y = (j) => cy - pos[2 * j + 1] * sc * k;
    ctx.fillStyle = th.fg; ctx.font = F("600", 15); ctx.textBaseline = "top";
    ctx.fillText("MDS map of the neuron weights (cosine) — step " + st.s.step[i], side, 8);
    const cos = st.cos[i], sgn = st.sgn[i], bySign = opt.colour === "sign";
    ctx.globalAlpha = 0.85;
    for (let j = 0; j < nn; j++) {
      const x = X(j), y = Y(j);
      if (bySign && sgn[j] < 0) {
        ctx.fillStyle = C.purple; ctx.beginPath();
        ctx.moveTo(x, y - 4.5); ctx.lineTo(x + 4, y + 3); ctx.lineTo(x - 4, y + 3); ctx.fill();
      } else {
        ctx.fillStyle = bySign ? C.blue : cosColour(cos[j] / 127);
        ctx.beginPath(); ctx.arc(x, y, 3.5, 0, 2 * Math.PI); ctx.fill();
      }
    }
    ctx.globalAlpha = 1;
    let row = nn;
    for (const mk of m.marks) {
      for (let r = 0; r < mk.rows; r++, row++) drawMark(ctx, X(row), Y(row), mk, th);
      if (mk.count) {
        const count = countOn(cos, nn, mk.count), x = X(row - 1), y = Y(row - 1);
        label(ctx, x, y - 18, count + " on " + mk.name, th, w);
      }
    }
    drawMapLegend(ctx, w, h, bySign, th, m);
  }

  function countOn(cos, nn, sign) {
    let c = 0;
    const lim = ALIGNED * 127;
    for (let j = 0; j < nn; j++) if (sign * cos[j] > lim) c++;
    return c;
  }

  function drawMark(ctx, x, y, mk, th) {
    ctx.lineWidth = 1.5; ctx.strokeStyle = th.edge;
    if (mk.style === "star") { ctx.fillStyle = C.verm; star(ctx, x, y, 12, 5, 0.45); }
    else if (mk.style === "diamond") { ctx.fillStyle = C.orange; star(ctx, x, y, 10, 2, 0.6); }
    else { ctx.fillStyle = C.green; ctx.beginPath(); ctx.arc(x, y, 5, 0, 2 * Math.PI); }
    ctx.fill(); ctx.stroke();
  }

  function label(ctx, x, y, text, th, w) {
    ctx.font = F("600", 13);
    const tw = ctx.measureText(text).width, x0 = Math.max(4, Math.min(w - tw - 10, x - tw / 2 - 4));
    ctx.fillStyle = th.bg; ctx.globalAlpha = 0.85; ctx.fillRect(x0, y - 9, tw + 8, 18);
    ctx.globalAlpha = 1; ctx.fillStyle = th.fg; ctx.textBaseline = "middle";
    ctx.fillText(text, x0 + 4, y);
  }

  function drawMapLegend(ctx, w, h, bySign, th, m) {
    ctx.font = F("", 12); ctx.textBaseline = "middle"; ctx.fillStyle = th.muted;
    const y = h - 14;
    if (bySign) {
      ctx.fillStyle = C.blue; ctx.beginPath(); ctx.arc(16, y, 4, 0, 7); ctx.fill();
      ctx.fillStyle = th.fg; ctx.fillText("a_i > 0", 24, y);
      ctx.fillStyle = C.purple; ctx.beginPath(); ctx.moveTo(86, y - 5); ctx.lineTo(90, y + 3);
      ctx.lineTo(82, y + 3); ctx.fill(); ctx.fillStyle = th.fg; ctx.fillText("a_i < 0", 96, y);
    } else {
      for (let x = 0; x < 100; x++) { ctx.fillStyle = cosColour(x / 99); ctx.fillRect(12 + x, y - 5, 1, 10); }
      ctx.fillStyle = th.fg; ctx.fillText("|cos| 0 → 1", 118, y);
    }
    if (m.marks.some((mk) => mk.count)) {
      ctx.fillStyle = th.muted;
      const t = "counts: neurons with |cos(w_i, Σ_A M)| > 0.9", tw = ctx.measureText(t).width;
      ctx.fillText(t, Math.max(210, w - tw - 12), y);
    }
  }

  /* A time-series chart with a split x axis: steps 0–4 wide on the left, every step on the right. */
  function drawSeries(cv, st, i, spec, th) {
    const [ctx, w, h] = fitCanvas(cv);
    ctx.fillStyle = th.bg; ctx.fillRect(0, 0, w, h);
    ctx.fillStyle = th.fg; ctx.font = F("600", 14); ctx.textBaseline = "top";
    ctx.fillText(spec.title, 8, 6);
    if (spec.sub) { ctx.font = F("", 12); ctx.fillStyle = th.muted; ctx.fillText(spec.sub, 8, 24 * scale); }
    const top = (spec.sub ? 44 : 30) * scale, bottom = 38 * scale, left = 42 * scale, right = 14;
    const T = st.meta.T, split = T >= 8, gap = 14;
    const lw = split ? Math.round((w - left - right) * 0.26) : 0;
    const panels = split ? [[left, left + lw, -0.3, 4.3], [left + lw + gap, w - right, 0, T]]
      : [[left, w - right, 0, Math.max(1, T)]];
    const y0 = h - bottom, y1 = top, Y = (v) => y0 - ((v - spec.lo) / (spec.hi - spec.lo)) * (y0 - y1);
    ctx.font = F("", 11); ctx.textBaseline = "middle";
    for (const v of spec.ticks) {
      ctx.strokeStyle = th.grid; ctx.lineWidth = 1; ctx.beginPath();
      ctx.moveTo(left, Y(v)); ctx.lineTo(w - right, Y(v)); ctx.stroke();
      ctx.fillStyle = th.muted; ctx.fillText(spec.fmt(v), 4, Y(v));
    }
    for (const [a, b, lo, hi] of panels) drawPanel(ctx, st, i, spec, th, a, b, lo, hi, Y, y0, y1);
    ctx.fillStyle = th.muted; ctx.textBaseline = "alphabetic"; ctx.font = F("", 11);
    if (split) ctx.fillText("steps 0–4 (zoom)", left, h - 4);
    ctx.fillText("step", w - right - 26, h - 4);
    legend(ctx, spec.series, w - right, 14 * scale, th);
    if (spec.note) {
      const t = spec.note(st, i);
      if (t) { ctx.fillStyle = th.fg; ctx.font = F("italic", 12); ctx.textBaseline = "top";
        ctx.fillText(t, panels[panels.length - 1][0] + 6, top + 4); }
    }
  }

  function drawPanel(ctx, st, i, spec, th, a, b, lo, hi, Y, y0, y1) {
    const X = (s) => a + ((s - lo) / (hi - lo)) * (b - a);
    ctx.strokeStyle = th.muted; ctx.lineWidth = 1; ctx.strokeRect(a, y1, b - a, y0 - y1);
    ctx.fillStyle = th.muted; ctx.font = F("", 11); ctx.textBaseline = "top";
    const ticks = hi - lo <= 6 ? [0, 1, 2, 3, 4] : niceTicks(0, hi, Math.max(2, Math.floor((b - a) / 60)));
    ctx.textAlign = "center";
    for (const v of ticks) ctx.fillText(String(v), Math.min(X(v), b - 8), y0 + 4);
    ctx.textAlign = "left";
    ctx.save(); ctx.beginPath(); ctx.rect(a, y1, b - a, y0 - y1); ctx.clip();
    for (const sx of [1, 2]) {
      ctx.strokeStyle = th.grid; ctx.setLineDash([2, 3]); ctx.beginPath();
      ctx.moveTo(X(sx), y0); ctx.lineTo(X(sx), y1); ctx.stroke();
    }
    ctx.setLineDash([]);
    const steps = st.s.step;
    for (const se of spec.series) {
      const ys = se.values(st);
      for (const [from, to, alpha] of [[0, i, 1], [i, st.n - 1, 0.25]]) {
        ctx.globalAlpha = alpha * (se.alpha || 1); ctx.strokeStyle = se.colour; ctx.lineWidth = se.width || 2;
        ctx.setLineDash(se.dash ? [6, 4] : []); ctx.beginPath();
        let pen = false;
        for (let j = from; j <= to; j++) {
          const v = ys[j];
          if (v === null || v === undefined || !isFinite(v)) { pen = false; continue; }
          pen ? ctx.lineTo(X(steps[j]), Y(v)) : ctx.moveTo(X(steps[j]), Y(v)); pen = true;
        }
        ctx.stroke();
        if (hi - lo <= 6 && alpha === 1) dots(ctx, ys, steps, from, to, X, Y, se.colour);
      }
    }
    ctx.globalAlpha = 1; ctx.setLineDash([]);
    ctx.strokeStyle = C.green; ctx.lineWidth = 1.5; ctx.beginPath();
    ctx.moveTo(X(steps[i]), y0); ctx.lineTo(X(steps[i]), y1); ctx.stroke();
    ctx.restore();
  }

  function dots(ctx, ys, steps, from, to, X, Y, colour) {
    ctx.fillStyle = colour;
    for (let j = from; j <= Math.min(to, 5); j++) {
      if (ys[j] === null || !isFinite(ys[j])) continue;
      ctx.beginPath(); ctx.arc(X(steps[j]), Y(ys[j]), 3, 0, 7); ctx.fill();
    }
  }

  function legend(ctx, series, right, y, th) {
    ctx.font = F("", 12); ctx.textBaseline = "middle";
    let x = right;
    for (const se of [...series].reverse()) {
      if (!se.name) continue;
      const tw = ctx.measureText(se.name).width;
      x -= tw; ctx.fillStyle = th.fg; ctx.fillText(se.name, x, y);
      x -= 22; ctx.strokeStyle = se.colour; ctx.lineWidth = 2; ctx.setLineDash(se.dash ? [5, 3] : []);
      ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(x + 18, y); ctx.stroke(); ctx.setLineDash([]);
      x -= 14;
    }
  }

  const pct = (v) => v + " %";
  const two = (v) => v.toFixed(2);

  function seriesSpecs(opt) {
    const accSmooth = (key) => (st) => smooth(st.s[key].map((v) => 100 * v), opt.smooth);
    const raw = (key) => (st) => st.s[key].map((v) => 100 * v);
    const acc = [];
    if (opt.smooth > 0) {
      acc.push({values: raw("train"), colour: C.blue, alpha: 0.3, width: 1});
      acc.push({values: raw("test"), colour: C.verm, alpha: 0.3, width: 1, dash: true});
    }
    acc.push({name: "train", values: accSmooth("train"), colour: C.blue});
    acc.push({name: "test", values: accSmooth("test"), colour: C.verm, dash: true});
    return {
      acc: {title: "Accuracy per step", lo: 0, hi: 101, ticks: [0, 25, 50, 75, 100], fmt: pct,
        series: acc},
      align: {title: "Neurons on a star", sub: "max cos(w_i, Σ_A M); share of neurons with |cos| > 0.9",
        lo: 0, hi: 1.02, ticks: [0, 0.25, 0.5, 0.75, 1], fmt: two,
        series: [{name: "max cos", values: (st) => st.s.cosmax, colour: C.blue},
          {name: "share on a star", values: (st) => st.s.frac, colour: C.green, dash: true}]},
      grad: {title: "Relevant share of ∂L/∂w_i",
        sub: "‖rel‖ / (‖rel‖ + ‖bg‖): 1 = all along the patterns in A, 0 = all background",
        lo: 0, hi: 1.02, ticks: [0, 0.25, 0.5, 0.75, 1], fmt: two,
        series: [{name: "relevant share", values: (st) => st.s.share, colour: C.green}],
        note: zeroNote},
    };
  }

  function zeroNote(st, i) {
    const z = st.s.zero;
    let from = -1;
    for (let j = Math.min(i, st.n - 1); j >= 1 && z[j]; j--) from = j;
    if (from > 0) return "gradient exactly zero from step " + st.s.step[from] +
      " to " + st.s.step[i] + " (every margin ≥ 1: the hinge loss is flat)";
    let count = 0;
    for (let j = 1; j <= i; j++) if (z[j]) count++;
    return count ? "gradient exactly zero at " + count + " of the steps so far (gaps)" : "";
  }

  return {setScale, Store, el, drawMap, drawSeries, seriesSpecs, SPEEDS, THEMES, smooth, countOn};
})();
