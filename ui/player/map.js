/* The player's MDS map: neurons, the stars and their counts, the labels placed where they cover
 * no marker, the legend. Extends FE (player.js) with drawMap. */
Object.assign(FE, (() => {
  const {C, F, cosColour, fitCanvas, fitFont, ink, star} = FE;

  /* The MDS map: neurons, the stars ±Σ_A M (or data centres) and how many neurons sit on each.
   * Neurons that share a point (at step 2 every neuron sits on a star) are fanned out around it
   * for display, so that the class sees them instead of a bare marker; the legend says so. */
  function drawMap(cv, st, i, opt, th) {
    const scale = FE.textScale();  // larger type in presentation mode
    const [ctx, w, h] = fitCanvas(cv);
    // a canvas with no room yet (hidden, or being laid out after a theme switch or a resize)
    // is drawn when the resize observer sees its size: a plot of negative size gave the
    // plane's circle a negative radius (issue 37)
    if (w < 40 || h < 40) return false;
    ctx.fillStyle = th.bg; ctx.fillRect(0, 0, w, h);
    const m = st.meta, nn = m.neurons, pos = st.pos[i], sc = st.scale[i] / 32767, mp = m.map || {};
    // neurons without a single output weight a_i (mp.sign false): cosine colours only
    const bySign = opt.colour === "sign" && mp.sign !== false;
    const notes = m.count_note ? [m.count_note] : [];  // the engine's rule (engine/frames)
    // room for the fan note at every step: the map must not jump when it appears
    const legendRows = legendLayout(ctx, w, bySign, [...notes, FAN_NOTE]);
    const top = 34 * scale, bottom = (12 + 18 * legendRows.length) * scale, side = 12;
    // at least a few px of plot: a tall legend on a short map must not turn the scale negative
    const R = st.extent * 1.08, pw = Math.max(8, w - 2 * side), ph = Math.max(8, h - top - bottom);
    const fanMax = Math.min(60, 0.1 * Math.min(pw, ph));  // a fan stays inside the canvas
    const k = Math.max(0, Math.min(pw, ph) - 2 * fanMax) / (2 * R), cx = side + pw / 2, cy = top + ph / 2;
    const X = (j) => cx + pos[2 * j] * sc * k, Y = (j) => cy - pos[2 * j + 1] * sc * k;
    const title = (mp.title || "Map of the neuron weights") + " — step " + st.s.step[i];
    ctx.fillStyle = th.fg; ctx.textBaseline = "top"; fitFont(ctx, title, "600", 15, w - 2 * side);
    ctx.fillText(title, side, 8);
    if (mp.axes) drawPlaneAxes(ctx, mp.axes, cx, cy, k, side, top, pw, ph, th);
    const spots = [];
    let row = nn;
    for (const mk of m.marks) {
      for (let r = 0; r < mk.rows; r++, row++) spots.push({x: X(row), y: Y(row), r: MARK_R[mk.style] || 5});
    }
    const fan = fanOut(nn, X, Y, spots.length <= 64 ? spots : [], fanMax);
    drawNeurons(ctx, fan.xy, st, i, bySign);
    cv.feDrawn = fan.xy;  // where each neuron was drawn (tests count the marks around a star)
    cv.feStars = []; cv.feMarks = spots;
    // every label box must stay off every marker and every label placed before it
    const room = {w, lo: top, hi: h - bottom, spots, placed: [], clash: 0};
    row = nn;
    for (const mk of m.marks) {
      for (let r = 0; r < mk.rows; r++, row++) drawMark(ctx, X(row), Y(row), mk, th);
    }
    row = nn;
    for (const mk of m.marks) {
      row += mk.rows;
      const perDir = mk.slot !== undefined && st.s.counts[i];
      if (!mk.count && !perDir) continue;
      const count = perDir ? st.s.counts[i][mk.slot] : mk.count > 0 ? st.s.plus[i] : st.s.minus[i];
      const x = X(row - 1), y = Y(row - 1), r = MARK_R[mk.style] || 5;
      cv.feStars.push({x, y, r, count, name: mk.name});
      label(ctx, {x, y, r, at: fan.labelAt[row - 1 - nn]}, count + " on " + mk.name, th, room,
        mk.colour);
    }
    cv.feLabels = room.placed; cv.feClash = room.clash;
    const shown = fan.moved ? [...notes, FAN_NOTE] : notes;
    drawMapLegend(ctx, h, bySign, th, legendLayout(ctx, w, bySign, shown));
    cv.feNotes = shown;  // the legend's notes (the map's accessible description reads them)
    return true;
  }

  /* The relevant plane's axes through the centre, their names, and the unit circle: a neuron's
   * distance from the centre is its relevant share, 1 on the circle (all weight in the plane). */
  function drawPlaneAxes(ctx, axes, cx, cy, k, side, top, pw, ph, th) {
    ctx.strokeStyle = th.grid; ctx.lineWidth = 1; ctx.beginPath();
    ctx.moveTo(side, cy); ctx.lineTo(side + pw, cy); ctx.moveTo(cx, top); ctx.lineTo(cx, top + ph);
    ctx.stroke();
    ctx.setLineDash([4, 4]); ctx.beginPath(); ctx.arc(cx, cy, k, 0, 2 * Math.PI); ctx.stroke();
    ctx.setLineDash([]);
    ctx.fillStyle = th.muted; ctx.font = F("", 12);
    // below the axis and clear of the +u₁ star (a 12 px marker) at its right end
    ctx.textAlign = "right"; ctx.textBaseline = "top"; ctx.fillText(axes.x, side + pw, cy + 16);
    ctx.textAlign = "left"; ctx.textBaseline = "top"; ctx.fillText(axes.y, cx + 4, top);
  }

  function drawNeurons(ctx, xy, st, i, bySign) {
    const cos = st.cos[i], sgn = st.sgn[i];
    ctx.globalAlpha = 0.85;
    for (let j = 0; j < st.meta.neurons; j++) {
      const x = xy[2 * j], y = xy[2 * j + 1];
      if (bySign && sgn[j] < 0) {
        ctx.fillStyle = C.purple; ctx.beginPath();
        ctx.moveTo(x, y - 4.5); ctx.lineTo(x + 4, y + 3); ctx.lineTo(x - 4, y + 3); ctx.fill();
      } else {
        ctx.fillStyle = bySign ? C.blue : cosColour(cos[j] / 127);
        ctx.beginPath(); ctx.arc(x, y, 3.5, 0, 2 * Math.PI); ctx.fill();
      }
    }
    ctx.globalAlpha = 1;
  }

  const MARK_R = {star: 12, diamond: 10, dot: 5};  // marker radii in px (drawMark)
  const FAN_GAP = 5.6;  // px between fanned-out neurons (dots have a 3.5 px radius)
  const FAN_NOTE = "neurons on one point are fanned out around it (display only)";

  const CELL = 2, CROWD = 4;  // CROWD or more neurons on one CELL px spot coincide on screen
  /* Display positions: neurons hidden under a marker, or CROWD or more on one CELL px spot, are
   * laid out on a sunflower spiral around that point (the marker's radius kept free); a large
   * group packs its dots closer so as to stay within maxR. */
  function fanOut(nn, X, Y, spots, maxR) {
    const xy = new Float64Array(2 * nn), groups = spots.map((s) => ({...s, r0: s.r + 3, members: []}));
    const cells = new Map();
    for (let j = 0; j < nn; j++) {
      const x = X(j), y = Y(j);
      xy[2 * j] = x; xy[2 * j + 1] = y;
      const g = groups.find((s) => Math.hypot(x - s.x, y - s.y) <= s.r + 1);
      if (g) { g.members.push(j); continue; }
      const key = Math.round(x / CELL) + "," + Math.round(y / CELL);
      if (!cells.has(key)) cells.set(key, []);
      cells.get(key).push(j);
    }
    for (const members of cells.values()) {
      if (members.length < CROWD) continue;
      const mx = members.reduce((a, j) => a + xy[2 * j], 0) / members.length;
      const my = members.reduce((a, j) => a + xy[2 * j + 1], 0) / members.length;
      groups.push({x: mx, y: my, r0: 0, members});
    }
    let moved = 0;
    groups.forEach((g, gi) => {
      const room = Math.PI * (maxR * maxR - g.r0 * g.r0) / g.members.length;
      const area = Math.min(FAN_GAP * FAN_GAP, Math.max(4, room));
      g.members.forEach((j, q) => {
        const r = Math.sqrt(g.r0 * g.r0 + ((q + 0.5) * area) / Math.PI), a = q * 2.39996323;
        xy[2 * j] = g.x + r * Math.cos(a); xy[2 * j + 1] = g.y + r * Math.sin(a);
      });
      moved += g.members.length;
    });
    return {xy, moved, labelAt: spots.map((s) => labelSide(xy, nn, s, maxR))};
  }

  /* Where a marker's count label goes: above or below it, on the side with fewer neurons in
   * the label's column, past the last neuron drawn there (at step 1 they lean in from one side). */
  function labelSide(xy, nn, s, maxR) {
    const far = {[-1]: s.r, [1]: s.r}, count = {[-1]: 0, [1]: 0};
    for (let j = 0; j < nn; j++) {
      const dy = xy[2 * j + 1] - s.y, side = dy < 0 ? -1 : 1;
      if (Math.abs(xy[2 * j] - s.x) > 40 || Math.abs(dy) > 1.5 * maxR) continue;
      count[side]++; far[side] = Math.max(far[side], Math.abs(dy) + 3.5);
    }
    const side = count[1] < count[-1] ? 1 : -1;
    return s.y + side * (far[side] + 12);
  }

  function drawMark(ctx, x, y, mk, th) {
    ctx.lineWidth = 1.5; ctx.strokeStyle = th.edge;
    if (mk.style === "star") { ctx.fillStyle = ink(mk.colour || C.verm, th); star(ctx, x, y, 12, 5, 0.45); }
    else if (mk.style === "diamond") { ctx.fillStyle = C.orange; star(ctx, x, y, 10, 2, 0.6); }
    else { ctx.fillStyle = C.green; ctx.beginPath(); ctx.arc(x, y, 5, 0, 2 * Math.PI); }
    ctx.fill(); ctx.stroke();
  }

  /* A count label in the free spot nearest its star (see freeSpot); one moved off its first
   * spot (past the neurons fanned around the star) gets a thin leader line, and its colour chip (outlined, so that it shows on either
   * background) says which star it counts. */
  function label(ctx, s, text, th, room, chip) {
    const scale = FE.textScale();  // larger type in presentation mode
    ctx.font = F("600", 13);
    const pad = chip ? 14 * scale : 0, bw = ctx.measureText(text).width + pad + 8, bh = 18 * scale;
    const b = freeSpot(s, bw, bh, room);
    room.placed.push({...b, name: text});
    const cx = Math.max(b.x0, Math.min(b.x1, s.x)), cy = Math.max(b.y0, Math.min(b.y1, s.y));
    if (b.moved && Math.hypot(cx - s.x, cy - s.y) > s.r + 16) {
      const d = Math.hypot(cx - s.x, cy - s.y);
      ctx.strokeStyle = th.muted; ctx.lineWidth = 1; ctx.beginPath();
      ctx.moveTo(s.x + (cx - s.x) * (s.r + 2) / d, s.y + (cy - s.y) * (s.r + 2) / d);
      ctx.lineTo(cx, cy); ctx.stroke();
    }
    ctx.fillStyle = th.bg; ctx.globalAlpha = 0.85; ctx.fillRect(b.x0, b.y0, bw, bh);
    ctx.globalAlpha = 1;
    const y = b.y0 + bh / 2;
    if (chip) {
      ctx.fillStyle = ink(chip, th); ctx.fillRect(b.x0 + 4, y - 5 * scale, 10 * scale, 10 * scale);
      ctx.strokeStyle = th.muted; ctx.lineWidth = 1;
      ctx.strokeRect(b.x0 + 4, y - 5 * scale, 10 * scale, 10 * scale);
    }
    ctx.fillStyle = th.fg; ctx.textBaseline = "middle";
    ctx.fillText(text, b.x0 + 4 + pad, y);
  }

  const DIRS = [...Array(16).keys()].map((q) => [Math.sin(q * Math.PI / 8), Math.cos(q * Math.PI / 8)]);
  /* The label box nearest its star that covers no marker and no label placed before it, inside
   * the plot: first the spot past the neurons fanned around the star (s.at), then rings of 16
   * directions at growing distance. Where none is free (never seen) the first spot is kept and
   * counted in room.clash, which the tests read. */
  function freeSpot(s, bw, bh, room) {
    const box = (x0, y0) => ({x0, y0, x1: x0 + bw, y1: y0 + bh});
    const inside = (b) => b.x0 >= 2 && b.x1 <= room.w - 2 && b.y0 >= room.lo && b.y1 <= room.hi;
    const free = (b) => inside(b) && !room.spots.some((p) => nearRect(b, p.x, p.y) < p.r + 2)
      && !room.placed.some((q) => b.x0 < q.x1 + 2 && q.x0 < b.x1 + 2 && b.y0 < q.y1 + 2 && q.y0 < b.y1 + 2);
    const first = box(Math.max(2, Math.min(room.w - bw - 2, s.x - bw / 2)),
      Math.max(room.lo, Math.min(room.hi - bh, s.at - bh / 2)));
    if (free(first)) return first;
    const up = s.at < s.y ? -1 : 1, reach = Math.max(room.w, room.hi);
    for (let d = s.r + 3; d < reach; d += 6) {
      for (const [dx, dy] of DIRS) {
        const b = box(s.x + dx * (d + bw / 2) - bw / 2, s.y + up * dy * (d + bh / 2) - bh / 2);
        if (free(b)) return {...b, moved: true};
      }
    }
    room.clash++;
    return first;
  }

  /* Distance from (x, y) to the nearest point of box b (0 inside it). */
  function nearRect(b, x, y) {
    return Math.hypot(x - Math.max(b.x0, Math.min(b.x1, x)), y - Math.max(b.y0, Math.min(b.y1, y)));
  }

  /* Legend rows: the colour key, then each note where it fits, else on a new row. */
  function legendLayout(ctx, w, bySign, notes) {
    ctx.font = F("", 12);
    const rows = [[]];
    let x = (bySign ? 96 + ctx.measureText("a_i < 0").width : 118 + ctx.measureText("|cos| 0 → 1").width) + 24;
    for (const t of notes) {
      const size = fitFont(ctx, t, "", 12, w - 24), tw = ctx.measureText(t).width;
      if (x + tw > w - 12) { rows.push([]); x = 12; }
      rows[rows.length - 1].push([t, x, size]); x += tw + 24;
      ctx.font = F("", 12);
    }
    return rows;
  }

  function drawMapLegend(ctx, h, bySign, th, rows) {
    const scale = FE.textScale();  // larger type in presentation mode
    ctx.font = F("", 12); ctx.textBaseline = "middle";
    const lineH = 18 * scale, y = h - 14 * scale - lineH * (rows.length - 1);
    if (bySign) {
      ctx.fillStyle = C.blue; ctx.beginPath(); ctx.arc(16, y, 4, 0, 7); ctx.fill();
      ctx.fillStyle = th.fg; ctx.fillText("a_i > 0", 24, y);
      ctx.fillStyle = C.purple; ctx.beginPath(); ctx.moveTo(86, y - 5); ctx.lineTo(90, y + 3);
      ctx.lineTo(82, y + 3); ctx.fill(); ctx.fillStyle = th.fg; ctx.fillText("a_i < 0", 96, y);
    } else {
      for (let x = 0; x < 100; x++) { ctx.fillStyle = cosColour(x / 99); ctx.fillRect(12 + x, y - 5, 1, 10); }
      ctx.fillStyle = th.fg; ctx.fillText("|cos| 0 → 1", 118, y);
    }
    ctx.fillStyle = th.muted;
    rows.forEach((items, r) => {
      for (const [t, x, size] of items) { ctx.font = F("", size); ctx.fillText(t, x, y + r * lineH); }
    });
  }

  return {drawMap};
})());
