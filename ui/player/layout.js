/* The player's page parts (needs FE and FEPlayer): the controls in tab order, the canvases of
 * the charts the record sends (meta.charts), the narration, the live region and the key hint. */
const KEY_HINT = "Keys: Space play / pause · ← → one step back / forward · Home first step · " +
  "End last step computed · R reset";
Object.assign(FEPlayer.prototype, {
  build(root) {
    const E = FE.el, r = (this.root = E("div", "fe-player"));
    r.setAttribute("role", "region"); r.setAttribute("aria-label", "Run player");
    const bar = E("div", "fe-bar");
    bar.setAttribute("role", "group"); bar.setAttribute("aria-label", "Playback controls");
    this.btn = {};
    // the symbol is decoration (aria-hidden); the word is the button's name, Play ⇄ Pause
    for (const [act, sym, word, after, tip] of [["reset", "", "Reset", "", "back to step 0 (R, Home)"],
      ["back", "◀ ", "Back", "", "one step back (←)"], ["play", "▶ ", "Play", "", "play / pause (space)"],
      ["step", "", "Step", " ▶", "one step forward (→)"]]) {
      const b = E("button", "fe-btn fe-" + act);
      b.append(symbol(sym), E("span", "fe-word", word), symbol(after));
      b.title = tip; b.type = "button"; b.onclick = () => this.act(act);
      bar.appendChild(b); this.btn[act] = b;
    }
    this.scrub = E("input", "fe-scrub"); this.scrub.type = "range"; this.scrub.min = 0; this.scrub.value = 0;
    this.scrub.setAttribute("aria-label", "Shown step");
    this.scrub.oninput = () => { this.pause(); this.seek(+this.scrub.value); };
    this.scrub.onchange = () => this.sendView();
    this.label = E("span", "fe-label", "step 0 / 0");
    bar.append(this.scrub, this.label);
    this.speed = this.select(bar, "Speed", FE.SPEEDS.map((s) => [s, s + " steps/s"]), "speed");
    this.colour = this.select(bar, "Colour", [["cosine", "cosine"], ["sign", "sign of a_i"]], "colour");
    this.smoothSel = this.select(bar, "Smoothing", [[0, "off"], [0.6, "0.6"], [0.9, "0.9"]], "smooth");
    this.keyHint = E("p", "fe-keys", KEY_HINT);
    this.keyHint.id = "fe-keys-" + FEPlayer.made;
    for (const b of Object.values(this.btn)) b.setAttribute("aria-describedby", this.keyHint.id);
    this.status = E("div", "fe-status");
    // polite and throttled (FEPlayer.announce): the step and the narration's first sentence
    this.live = E("div", "fe-sr fe-live");
    this.live.setAttribute("aria-live", "polite"); this.live.setAttribute("aria-atomic", "true");
    const grid = E("div", "fe-grid");
    this.side = E("div", "fe-side");
    this.cv = {map: this.canvas("map")};
    grid.append(this.cv.map, this.side);
    this.narr = E("div", "fe-narr");
    this.tables = E("div", "fe-tables");
    r.append(bar, this.keyHint, this.status, this.live, grid, this.narr, this.tables);
    root.appendChild(r);
  },

  select(bar, title, items, key) {
    const lab = FE.el("label", "fe-sel", title + " "), s = FE.el("select", "fe-" + key);
    for (const [v, t] of items) { const o = FE.el("option", null, t); o.value = v; s.appendChild(o); }
    s.onchange = () => {
      this.opt[key] = key === "colour" ? s.value : +s.value;
      this.draw(); this.sendView();
    };
    lab.appendChild(s); bar.appendChild(lab);
    return s;
  },

  /* A canvas that speaks: an image whose name states the current values (FEPlayer.describe),
   * described by the chart's subtitle, with its "Show as table" control below the charts. */
  canvas(key) {
    const cv = FE.el("canvas", "fe-cv fe-" + key), id = "fe-" + key + "-" + FEPlayer.made;
    cv.setAttribute("role", "img");
    // hidden: read as the canvas's description only, not a second time as page text
    cv.desc = FE.el("p", "fe-desc", ""); cv.desc.id = id + "-desc"; cv.desc.hidden = true;
    cv.setAttribute("aria-describedby", cv.desc.id);
    cv.feKey = key;
    return cv;
  },

  /* The canvases of the run's charts (meta.charts), beside the map in the meta's order; the side
   * column's rows and the map's height follow the charts' heights. */
  setCharts(meta) {
    for (const k of Object.keys(this.cv)) if (k !== "map") { this.cv[k].remove(); this.cv[k].desc.remove(); delete this.cv[k]; }
    this.tables.replaceChildren();
    this.cv.map.desc.remove(); this.root.appendChild(this.cv.map.desc);
    const charts = meta.charts || [];
    for (const c of charts) {
      const cv = (this.cv[c.key] = this.canvas(c.key));
      this.side.appendChild(cv); this.root.appendChild(cv.desc);
    }
    const heights = charts.map((c) => c.height || 190);
    this.root.style.setProperty("--fe-rows", heights.map((h) => h + "px").join(" ") || "230px");
    const tall = heights.reduce((a, h) => a + h, 0) + 6 * Math.max(0, heights.length - 1);
    this.root.style.setProperty("--fe-map-h", Math.max(622, tall) + "px");
    this.tables.appendChild(this.tableToggle("map", (meta.map && meta.map.title) || "the map"));
    for (const c of charts) this.tables.appendChild(this.tableToggle(c.key, c.title));
    // no a_i to colour by where the record says its neurons have none
    this.colour.parentElement.style.display = meta.map && meta.map.sign === false ? "none" : "";
  },
});

function symbol(text) {
  const s = FE.el("span", "fe-sym", text);
  s.setAttribute("aria-hidden", "true");
  return s;
}
