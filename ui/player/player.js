/* Feature-emergence player: keeps a run's frames in the browser and animates them on canvases.
 * This file is the core (themes, colours, the frame Store, canvas helpers); map.js adds the MDS
 * map and charts.js the time-series charts to FE. Shared by the Streamlit component
 * (ui/player/component.js) and the standalone export (ui/export.py). Canvas, not Plotly: measured
 * in headless Chromium on the 2-core machine, Plotly.react of 602 SVG points took ~100 ms per
 * frame, a canvas redraw ~1 ms. */
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
  const textScale = () => scale;

  /* The largest type (≤ px) at which text fits maxW: a label is never cut at the canvas edge. */
  function fitFont(ctx, text, style, px, maxW) {
    let size = px;
    ctx.font = F(style, size);
    while (size > 8 && ctx.measureText(text).width > maxW) ctx.font = F(style, --size);
    return size;
  }

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
        zero: [], plus: [], minus: [], counts: [], cover: [], rel: [], errs: [], cf: [], cg: [],
        purity: [], vsup: [], own: []};
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
        for (const key in this.s) this.s[key].push(fr[key] ? fr[key][j] : null);
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

  /* A colour as drawn on this theme: black (the eighth group colour) would vanish on the dark
   * background, so it is drawn in the foreground colour there, on the map and the charts alike. */
  function ink(c, th) {
    if (!c || th !== THEMES.dark || !/^#[0-9a-f]{6}$/i.test(c)) return c;
    const [r, g, b] = [1, 3, 5].map((k) => parseInt(c.slice(k, k + 2), 16) / 255);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.2 ? th.fg : c;
  }

  return {setScale, textScale, Store, el, SPEEDS, THEMES, smooth, C, F, fitCanvas, fitFont,
    niceTicks, ink, cosColour, star};
})();
