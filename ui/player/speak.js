/* Charts that speak (needs FE and FEPlayer): each canvas's accessible name states what it shows
 * and the shown step's values, its description the subtitle and notes; "Show as table" gives
 * the numbers as an HTML table; a polite live region says the step and the narration, at most
 * once per ANNOUNCE_MS while playing (20 steps/s would otherwise flood a screen reader). */
const ANNOUNCE_MS = 2000;
Object.assign(FEPlayer.prototype, {
  /* The chart's current values: [[curve name, words], ...] at step index i. */
  chartValues(spec, st, i) {
    return spec.series.filter((se) => se.name).map((se) => {
      const v = se.raw(st)[i];
      return [se.name, v === null || v === undefined || !isFinite(v) ? "not measured" : spec.say(v)];
    });
  },

  /* The map's counted stars at the drawn step: [[group name, neurons on it], ...]. */
  mapValues(cv) {
    return (cv.feStars || []).map((s) => [s.name, String(s.count)]);
  },

  /* Name, description and (when open) table of one canvas for step index i. */
  describe(key, spec, st, i) {
    const cv = this.cv[key], where = " at step " + st.s.step[i] + " of " + st.meta.T;
    let name, desc, rows, head;
    if (key === "map") {
      const mp = st.meta.map || {}, vals = this.mapValues(cv);
      name = (mp.title || "Map of the neuron weights") + where + (vals.length ? ": " +
        vals.map(([n, c]) => c + " neurons on " + n).join(", ") : ": " + st.meta.neurons + " neurons");
      desc = ["Each dot is a neuron, coloured by " + (this.opt.colour === "sign" ? "the sign of a_i"
        : "|cos|, grey 0 to blue 1"), ...(cv.feNotes || [])].join(". ");
      rows = vals; head = ["Star group", "Neurons on it"];
    } else {
      rows = this.chartValues(spec, st, i); head = ["Curve", "Value"];
      name = spec.title + ": " + rows.map(([n, v]) => n + " " + v).join(", ") + where;
      const note = spec.note ? spec.note(st, i) : "";
      desc = [spec.sub, ...(spec.lines || []).map((l) => l.text), note, cv.feOff && cv.feOff.text]
        .filter(Boolean).join(". ");
    }
    if (cv.getAttribute("aria-label") !== name) cv.setAttribute("aria-label", name);
    if (cv.desc.textContent !== desc) cv.desc.textContent = desc;
    cv.feSaid = {name, rows, head, title: key === "map" ? name.split(" at step")[0] : spec.title, where};
    if (cv.feTable && !cv.feTable.hidden) this.fillTable(cv);
  },

  /* The "Show as table" button of one canvas and the table it opens below the charts. */
  tableToggle(key, title) {
    const cv = this.cv[key], box = FE.el("div", "fe-table-box"), b = FE.el("button", "fe-btn fe-show");
    const wrap = FE.el("div", "fe-table"); wrap.hidden = true; wrap.id = cv.desc.id.replace("-desc", "-table");
    b.type = "button"; b.setAttribute("aria-expanded", "false"); b.setAttribute("aria-controls", wrap.id);
    b.dataset.key = key;
    const say = () => { b.textContent = (wrap.hidden ? "Show as table: " : "Hide table: ") + title; };
    b.onclick = () => {
      wrap.hidden = !wrap.hidden; b.setAttribute("aria-expanded", String(!wrap.hidden));
      if (!wrap.hidden) this.fillTable(cv);
      say();
    };
    cv.feTable = wrap; say();
    box.append(b, wrap);
    return box;
  },

  /* The canvas's numbers at the shown step as a table with a caption and header cells. */
  fillTable(cv) {
    const s = cv.feSaid, E = FE.el;
    if (!s) return;
    const t = E("table"), head = E("tr"), body = E("tbody"), thead = E("thead");
    t.append(E("caption", null, s.title + s.where), thead, body);
    for (const h of s.head) { const th = E("th", null, h); th.scope = "col"; head.appendChild(th); }
    thead.appendChild(head);
    for (const [n, v] of s.rows) {
      const tr = E("tr"), th = E("th", null, n);
      th.scope = "row"; tr.append(th, E("td", null, v)); body.appendChild(tr);
    }
    if (!s.rows.length) body.appendChild(E("tr")).appendChild(E("td", null, "nothing counted"));
    cv.feTable.replaceChildren(t);
  },

  /* The live region: the step and the narration. Forced (pause, a step, a seek) it speaks at
   * once; while playing at most once per ANNOUNCE_MS, then the step reached by then. */
  announce(force) {
    const st = this.store;
    if (!st || !st.n || !this.live) return;
    const i = Math.min(this.cur, st.n - 1), key = i + "|" + st.text[i];
    clearTimeout(this.speakTimer);
    if (key === this.spokenKey) return;
    const wait = ANNOUNCE_MS - (performance.now() - (this.spokenAt || -Infinity));
    if (!force && wait > 0) { this.speakTimer = setTimeout(() => this.announce(true), wait); return; }
    const text = this.narr.textContent.trim(), first = text.split(/(?<=[.!?])\s/)[0];
    this.spokenKey = key; this.spokenAt = performance.now();
    this.live.textContent = "Step " + st.s.step[i] + " of " + st.meta.T + ". " +
      (this.playing ? first : text);
    this.root.dataset.spoken = +(this.root.dataset.spoken || 0) + 1;  // tests count them
  },

  /* The Play button's word and state: Play ⇄ Pause, for the eye and the screen reader alike. */
  showPlaying(on) {
    const b = this.btn.play;
    b.querySelector(".fe-sym").textContent = on ? "❚❚ " : "▶ ";
    b.querySelector(".fe-word").textContent = on ? "Pause" : "Play";
    this.root.dataset.playing = on ? "1" : "0";
  },
});
