/* The player's time-series charts, drawn from the specs the record sends in meta.charts
 * (engine/frames/charts.py): each has a split x axis, steps 0–4 wide on the left and the whole run on the right. Extends FE
 * (player.js) with drawSeries and seriesSpecs. */
Object.assign(FE, (() => {
  const {C, F, fitCanvas, fitFont, ink, niceTicks, smooth} = FE;

  function drawSeries(cv, st, i, spec, th) {
    const scale = FE.textScale();  // larger type in presentation mode
    const [ctx, w, h] = fitCanvas(cv);
    if (spec.range) spec = {...spec, ...spec.range(st)};  // an axis that follows the data
    spec = {...spec, series: spec.series.map((se) => ({...se, colour: ink(se.colour, th)}))};
    cv.feSpec = spec;  // what was drawn (tests read the series beside the store)
    ctx.fillStyle = th.bg; ctx.fillRect(0, 0, w, h);
    ctx.fillStyle = th.fg; ctx.textBaseline = "top";
    const tsize = fitFont(ctx, spec.title, "600", 14, w - 16);  // a narrow chart: smaller title
    ctx.fillText(spec.title, 8, 6);
    const titleEnd = 8 + ctx.measureText(spec.title).width;
    if (spec.sub) {
      ctx.fillStyle = th.muted; fitFont(ctx, spec.sub, "", 12, w - 16); ctx.fillText(spec.sub, 8, 24 * scale);
    }
    // legend rows: one right-aligned row beside the title, more (many series) below the subtitle
    const rows = legendRows(ctx, spec, w - 16, tsize);
    // a value off the axis is drawn at its edge (▲ / ▼) and a line under the subtitle says so
    const off = offAxis(st, spec);
    cv.feOff = off;
    const extra = (rows.length - 1 + (off ? 1 : 0)) * 16 * scale;
    const top = (spec.sub ? 44 : 30) * scale + extra, bottom = 38 * scale, left = 42 * scale, right = 14;
    if (off) {
      ctx.fillStyle = th.fg; ctx.textBaseline = "top"; fitFont(ctx, off.text, "italic", 12, w - 16);
      ctx.fillText(off.text, 8, top - 18 * scale);
    }
    const T = st.meta.T, split = T >= 8, gap = 14;
    const lw = split ? Math.round((w - left - right) * 0.26) : 0;
    const panels = split ? [[left, left + lw, -0.3, 4.3], [left + lw + gap, w - right, 0, T]]
      : [[left, w - right, 0, Math.max(1, T)]];
    const tr = spec.log ? Math.log10 : (v) => v;  // a log axis: errors from 0.1 to 30
    const y0 = h - bottom, y1 = top, Y = (v) => y0 - ((tr(v) - tr(spec.lo)) / (tr(spec.hi) - tr(spec.lo))) * (y0 - y1);
    ctx.font = F("", 11); ctx.textBaseline = "middle";
    for (const v of spec.ticks) {
      ctx.strokeStyle = th.grid; ctx.lineWidth = 1; ctx.beginPath();
      ctx.moveTo(left, Y(v)); ctx.lineTo(w - right, Y(v)); ctx.stroke();
      ctx.fillStyle = th.muted; ctx.fillText(spec.fmt(v), 4, Y(v));
    }
    for (const [a, b, lo, hi] of panels) drawPanel(ctx, st, i, spec, th, a, b, lo, hi, Y, y0, y1);
    for (const line of spec.lines || []) hline(ctx, line, Y, panels, th);
    cv.feLevels = spec.levels ? spec.levels(st).map((lv) => FE.onScale(lv, spec)) : [];
    FE.drawLevels(ctx, cv.feLevels, Y, panels, th);
    ctx.fillStyle = th.muted; ctx.textBaseline = "alphabetic"; ctx.font = F("", 11);
    if (split) ctx.fillText("steps 0–4 (zoom)", left, h - 4);
    ctx.fillText("step", w - right - 26, h - 4);
    const left0 = legend(ctx, rows, w - right, 14 * scale, th);
    cv.feTitle = {right: titleEnd, legendLeft: left0};  // tests: title and legend stay apart
    if (spec.note) {
      const t = spec.note(st, i), [a, b] = panels[panels.length - 1];
      if (t) { ctx.fillStyle = th.fg; ctx.textBaseline = "top"; noteLines(ctx, t, a + 6, top + 4, b - a - 12); }
    }
  }

  /* A note in the plot, on two lines ("… (why)") where one would not fit the panel. */
  function noteLines(ctx, text, x, y, maxW) {
    ctx.font = F("italic", 12);
    const cut = text.indexOf(" (");
    const lines = ctx.measureText(text).width <= maxW || cut < 0 ? [text]
      : [text.slice(0, cut), text.slice(cut + 1)];
    const size = Math.min(...lines.map((t) => fitFont(ctx, t, "italic", 12, maxW)));
    ctx.font = F("italic", size);
    lines.forEach((t, k) => ctx.fillText(t, x, y + k * (size + 3) * FE.textScale()));
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
    const steps = st.s.step, edge = (v) => (v > spec.hi ? spec.hi : v < spec.lo ? spec.lo : v);
    for (const se of spec.series) {
      const all = se.values(st), ys = all.map((v) => (v === null || v === undefined ? v : edge(v)));
      for (const [from, to, alpha] of [[0, i, 1], [i, st.n - 1, 0.25]]) {
        ctx.globalAlpha = alpha * (se.alpha || 1); ctx.strokeStyle = se.colour; ctx.lineWidth = se.width || 2;
        ctx.setLineDash(dashOf(se.dash, [6, 4])); ctx.beginPath();
        let pen = false;
        for (let j = from; j <= to; j++) {
          const v = ys[j];
          if (v === null || v === undefined || !isFinite(v)) { pen = false; continue; }
          pen ? ctx.lineTo(X(steps[j]), Y(v)) : ctx.moveTo(X(steps[j]), Y(v)); pen = true;
        }
        ctx.stroke();
        if (hi - lo <= 6 && alpha === 1) dots(ctx, ys, steps, from, to, X, Y, se.colour);
        ctx.globalAlpha = alpha;
        offMarks(ctx, all, steps, from, to, X, spec, y0, y1, se.colour);
      }
    }
    ctx.globalAlpha = 1; ctx.setLineDash([]);
    ctx.strokeStyle = C.green; ctx.lineWidth = 1.5; ctx.beginPath();
    ctx.moveTo(X(steps[i]), y0); ctx.lineTo(X(steps[i]), y1); ctx.stroke();
    ctx.restore();
  }

  /* The values outside [spec.lo, spec.hi] of every series so far: the largest above and the
   * smallest below, with their steps, and the line that says where they are drawn (or null). */
  function offAxis(st, spec) {
    let hi = null, lo = null;
    for (const se of spec.series) {
      se.values(st).forEach((v, j) => {
        if (v === null || v === undefined || !isFinite(v)) return;
        if (v > spec.hi && (!hi || v > hi.v)) hi = {v, step: st.s.step[j]};
        if (v < spec.lo && (!lo || v < lo.v)) lo = {v, step: st.s.step[j]};
      });
    }
    if (!hi && !lo) return null;
    const say = (o, dir, lim) => (dir + " values " + (dir === "▲" ? "above " : "below ") +
      spec.fmt(lim) + " drawn at the " + (dir === "▲" ? "top" : "bottom") + " edge (" +
      (dir === "▲" ? "largest " : "smallest ") + (+o.v.toPrecision(4)) + " at step " + o.step + ")");
    const text = [hi && say(hi, "▲", spec.hi), lo && say(lo, "▼", spec.lo)].filter(Boolean).join("; ");
    return {text, max: hi && hi.v, maxStep: hi && hi.step, min: lo && lo.v};
  }

  /* A small ▲ at the top edge (▼ at the bottom) where a series leaves the axis. */
  function offMarks(ctx, ys, steps, from, to, X, spec, y0, y1, colour) {
    ctx.fillStyle = colour;
    for (let j = from; j <= to; j++) {
      const v = ys[j], up = v > spec.hi;
      if (v === null || v === undefined || !isFinite(v) || (!up && v >= spec.lo)) continue;
      const x = X(steps[j]), tip = up ? y1 + 1 : y0 - 1, base = up ? y1 + 8 : y0 - 8;
      ctx.beginPath(); ctx.moveTo(x, tip); ctx.lineTo(x + 4, base); ctx.lineTo(x - 4, base); ctx.fill();
    }
  }

  function dots(ctx, ys, steps, from, to, X, Y, colour) {
    ctx.fillStyle = colour;
    for (let j = from; j <= Math.min(to, 5); j++) {
      if (ys[j] === null || !isFinite(ys[j])) continue;
      ctx.beginPath(); ctx.arc(X(steps[j]), Y(ys[j]), 3, 0, 7); ctx.fill();
    }
  }

  /* The named series in rows, right-aligned: the first row ends where the title ends, the
   * next ones (below the subtitle) use the whole width. */
  function legendRows(ctx, spec, width, tsize) {
    ctx.font = F("600", tsize);
    let room = width - 16 - ctx.measureText(spec.title).width;
    ctx.font = F("", 12);
    const rows = [[]];
    for (const se of [...spec.series].reverse()) {
      if (!se.name) continue;
      const need = ctx.measureText(se.name).width + 36;
      // a name that does not fit beside the title starts the rows below the subtitle
      if (need > room && (rows[rows.length - 1].length || rows.length === 1)) {
        rows.push([]); room = width;
      }
      rows[rows.length - 1].push(se); room -= need;
    }
    return rows;
  }

  /* Draws the legend rows; returns where the first row (beside the title) starts, or null. */
  function legend(ctx, rows, right, y, th) {
    ctx.font = F("", 12); ctx.textBaseline = "middle";
    let left0 = null;  // null: nothing beside the title
    rows.forEach((row, r) => {
      let x = right, at = r ? y + (r + 1.3) * 16 * FE.textScale() : y;
      for (const se of row) {
        const tw = ctx.measureText(se.name).width;
        x -= tw; ctx.fillStyle = th.fg; ctx.fillText(se.name, x, at);
        x -= 22; ctx.strokeStyle = se.colour; ctx.lineWidth = 2; ctx.setLineDash(dashOf(se.dash, [5, 3]));
        ctx.beginPath(); ctx.moveTo(x, at); ctx.lineTo(x + 18, at); ctx.stroke(); ctx.setLineDash([]);
        if (!r) left0 = x;
        x -= 14;
      }
    });
    return left0;
  }

  /* A dashed level across the plot, its words just above it at the left (a record's line). */
  function hline(ctx, line, Y, panels, th) {
    const y = Y(line.y), [a, b] = panels[panels.length - 1];  // the words in the whole-run panel
    ctx.strokeStyle = th.fg; ctx.lineWidth = 1.5; ctx.setLineDash([7, 4]);
    for (const [p, q] of panels) { ctx.beginPath(); ctx.moveTo(p, y); ctx.lineTo(q, y); ctx.stroke(); }
    ctx.setLineDash([]); ctx.fillStyle = th.fg; ctx.textBaseline = "bottom";
    const size = fitFont(ctx, line.text, "italic", 12, b - a - 12), tw = ctx.measureText(line.text).width;
    ctx.fillStyle = th.bg; ctx.globalAlpha = 0.8;  // readable over the curves it crosses
    ctx.fillRect(a + 3, y - 5 - size * FE.textScale(), tw + 6, size * FE.textScale() + 3);
    ctx.globalAlpha = 1; ctx.fillStyle = th.fg; ctx.fillText(line.text, a + 6, y - 3);
  }

  /* A curve's dash pattern: a record's own list, or the plain dash (true), or solid. */
  const dashOf = (d, plain) => (Array.isArray(d) ? d : d ? plain : []);

  /* The y axis's tick words and a value's words (the accessible name, the table). */
  const FMT = {pct: (v) => v + " %", two: (v) => v.toFixed(2), num: String};
  const SAY = {pct: (v) => v.toFixed(1) + " %", two: (v) => v.toFixed(3),
    num: (v) => (Number.isInteger(v) ? String(v) : String(+v.toPrecision(3)))};

  /* One curve of a meta chart: its column (an element of it) × scale, per frame. */
  function column(se) {
    const k = se.scale || 1, one = (v) => (se.index === undefined ? v : v ? v[se.index] : null);
    return (st) => st.s[se.col].map((v) => { const x = one(v); return x === null || x === undefined ? null : k * x; });
  }

  /* The drawing spec of one chart the record sends (engine/frames/charts.py): curves with the
   * Smoothing menu's faint raw copies, its axis, its levels, its note. */
  function specOf(c, opt) {
    const series = [];
    for (const se of c.series) {
      const raw = column(se), base = {colour: se.colour, dash: se.dash, width: se.width};
      if (se.smooth && opt.smooth > 0) {
        series.push({...base, values: raw, alpha: 0.3, width: 1});
        series.push({...base, name: se.name, raw, values: (st) => smooth(raw(st).map((v) => (v === null ? NaN : v)), opt.smooth)});
      } else series.push({...base, name: se.name, raw, values: raw});
    }
    return {key: c.key, title: c.title, sub: c.sub, lo: c.lo, hi: c.hi, ticks: c.ticks, log: c.log,
      fmt: FMT[c.fmt] || String, say: SAY[c.fmt] || String, series, lines: c.lines,
      levels: c.limits ? FE.limitLevels : null,
      range: c.counts ? countAxis : c.own ? ownAxis(c.series.map(column), c.log) : null,
      note: c.note ? (st, i) => noteText(c.note, st, i) : null};
  }

  /* 0 up to a round number above the largest count so far. */
  function countAxis(st) {
    let most = 1;
    for (const c of st.s.counts) if (c) most = Math.max(most, ...c);
    const ticks = niceTicks(0, most * 1.1, 4);
    return {lo: 0, hi: Math.max(most * 1.1, ticks[ticks.length - 1]), ticks};
  }

  /* A record's own chart (engine.frames.charts.own_chart): from its lowest value (0 at most)
   * to a round number above its largest so far; on a log axis, the whole decades around its
   * positive values (a value ≤ 0 is drawn at the bottom edge, ▼, and said so). */
  function ownAxis(cols, log) {
    if (log) return (st) => {
      let lo = Infinity, hi = 0;
      for (const col of cols) for (const v of col(st)) if (v !== null && isFinite(v) && v > 0) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      if (!(hi > 0)) return {lo: 0.1, hi: 10, ticks: [0.1, 1, 10]};
      const a = Math.floor(Math.log10(lo)), b = Math.max(a + 1, Math.ceil(Math.log10(hi)));
      const ticks = [];
      for (let e = a; e <= b; e += Math.max(1, Math.ceil((b - a) / 5))) ticks.push(10 ** e);
      return {lo: 10 ** a, hi: 10 ** b, ticks};
    };
    return (st) => {
      let lo = 0, hi = 1e-9;
      for (const col of cols) for (const v of col(st)) if (v !== null && isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      const ticks = niceTicks(lo, hi * 1.1, 4);
      return {lo: Math.min(lo, ticks[0]), hi: Math.max(hi * 1.1, ticks[ticks.length - 1]), ticks};
    };
  }

  /* Every chart of the run's meta, by its canvas key, in the meta's order. */
  function seriesSpecs(opt, meta) {
    const out = {};
    for (const c of meta.charts || []) out[c.key] = specOf(c, opt);
    return out;
  }

  /* The note's words for the steps where its column is true: the run of them up to step i,
   * else how many so far ("" for none). */
  function noteText(note, st, i) {
    const z = st.s[note.col];
    let from = -1;
    for (let j = Math.min(i, st.n - 1); j >= 1 && z[j]; j--) from = j;
    if (from > 0) return note.run.replace("{from}", st.s.step[from]).replace("{to}", st.s.step[i]);
    let count = 0;
    for (let j = 1; j <= i; j++) if (z[j]) count++;
    return count ? note.some.replace("{count}", count) : "";
  }

  return {drawSeries, seriesSpecs};
})());
