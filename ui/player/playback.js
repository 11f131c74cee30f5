/* The player: the browser's own frame clock, keyboard shortcuts (needs FE); layout.js builds its
 * parts, speak.js makes them speak. */
const VIEW_DELAY_MS = 400;  // quiet time before the shown step and options go to the server
const NARR_LINES = 4, NARR_PX = 20;  // presentation mode's narration box: lines, type size
class FEPlayer {
  constructor(root, hooks) {
    this.hooks = hooks || {};
    this.store = null; this.cur = 0; this.playing = false; this.waitStep = false;
    this.opt = {speed: 20, colour: "cosine", smooth: 0, theme: "light", present: false};
    this.draws = 0; FEPlayer.made = (FEPlayer.made || 0) + 1;
    this.build(root);
    this.resize = new ResizeObserver(() => this.draw());
    this.resize.observe(this.root);
    FEPlayer.active = this;
    FEPlayer.keys();
  }

  setOptions(o) {
    Object.assign(this.opt, o);
    this.speed.value = this.opt.speed; this.colour.value = this.opt.colour;
    this.smoothSel.value = this.opt.smooth;
    this.root.dataset.theme = this.opt.theme;
    this.root.classList.toggle("fe-present", !!this.opt.present);
    this.fit();
    this.draw();
  }

  /* Presentation mode: the charts take the screen's height left above a narration box of
   * NARR_LINES lines. Re-fitted when anything above the player changes height (a theme switch,
   * a message) and when the window is resized. */
  fit() {
    if (!this.opt.present) {
      for (const v of ["--fe-h", "--fe-narr-h"]) this.root.style.removeProperty(v);
      return;
    }
    this.watchLayout();
    const grid = this.root.querySelector(".fe-grid");
    const top = grid.getBoundingClientRect().top + window.scrollY;
    const narr = Math.round(NARR_LINES * NARR_PX * 1.45 + 22);  // lines + padding
    const h = Math.max(240, Math.min(900, window.innerHeight - top - narr - 24));
    this.root.style.setProperty("--fe-h", h + "px");
    this.root.style.setProperty("--fe-narr-h", narr + "px");
  }

  watchLayout() {
    if (this.layoutWatch) return;
    const page = this.root.closest('[data-testid="stMainBlockContainer"]') || document.body;
    this.layoutWatch = new ResizeObserver(() => this.opt.present && this.fit());
    this.layoutWatch.observe(page);
    window.addEventListener("resize", () => FEPlayer.active === this && this.fit());
  }

  /* The whole narration stays in its box: a long one is set in smaller type. */
  fitNarration() {
    const n = this.narr;
    n.style.removeProperty("font-size");
    if (!this.opt.present) return;
    for (let px = NARR_PX; n.scrollHeight > n.clientHeight + 1 && px > 12; px--) {
      n.style.fontSize = (px - 1) + "px";
    }
  }

  setStore(store, startAt) {
    this.pause(false); this.store = store; this.cur = 0; this.wantStep = startAt || 0;
    this.root.dataset.run = store.run;
    this.setCharts(store.meta);  // the record's charts, each with its canvas and table
    this.update();
  }

  /* New frames arrived (or the run's status changed). */
  update() {
    const st = this.store;
    if (!st) return;
    // the range first: a seek beyond the old max would be clamped by the browser (a link's
    // step=5 showed "step 5" with the scrubber's thumb at 0)
    this.scrub.max = Math.max(0, st.n - 1);
    const over = st.done || st.error;  // no more frames will come (a link's step may be past T)
    if (this.wantStep && st.n && (st.n > this.wantStep || over)) {
      this.seek(Math.min(this.wantStep, st.n - 1)); this.wantStep = 0;
    }
    if (this.waitStep && st.n - 1 > this.cur) { this.waitStep = false; this.seek(this.cur + 1); this.announce(true); }
    if (this.waitStep && over) this.waitStep = false;
    this.draw();
  }

  /* Whether frames are owed: none yet, the step a link asked for, a Step pressed at the edge. */
  waiting() {
    const st = this.store;
    if (!st || !st.n) return true;
    if (st.done || st.error) return false;
    return (this.wantStep > 0 && st.n <= this.wantStep) || this.waitStep;
  }

  act(a) {
    if (a === "play") return this.playing ? this.pause() : this.play();
    if (a === "reset") { this.pause(); this.seek(0); this.announce(true); return this.sendView(); }
    if (a === "last") { this.pause(); this.seek(Math.max(0, this.store.n - 1)); this.announce(true); return this.sendView(); }
    if (a === "back") { this.pause(); this.seek(Math.max(0, this.cur - 1)); this.announce(true); return this.sendView(); }
    if (a === "step") { this.pause(); return this.forward(); }
  }

  forward() {
    const st = this.store;
    if (!st) return;
    if (this.cur < st.n - 1) { this.seek(this.cur + 1); this.announce(true); this.sendView(); }
    else if (!st.done) { this.waitStep = true; this.want(st.n + 1); }
  }

  play() {
    const st = this.store;
    if (!st || st.error && this.cur >= st.n - 1) return;
    if (st.done && this.cur >= st.n - 1) this.seek(0);
    this.playing = true; this.last = performance.now(); this.acc = 0;
    this.showPlaying(true);
    this.wanted = 0; this.ahead();
    requestAnimationFrame((t) => this.tick(t));
  }

  /* Ask the server for frames a few seconds of playback ahead, not for the whole run at once:
   * while a replay is far behind the computed edge the server stays idle (its CPU is the
   * browser's on a small machine). Raised in steps, so a request is a rare event. */
  ahead() {
    const st = this.store, lead = Math.max(20, 6 * this.opt.speed);
    if (st.done || st.error) return;
    const need = Math.min(st.meta.T + 1, this.cur + lead);
    if (need > this.wanted && need >= st.n) {
      this.wanted = Math.min(st.meta.T + 1, this.cur + 2 * lead);
      this.want(Math.max(this.wanted, st.n));
    }
  }

  pause(tell = true) {
    const was = this.playing;
    this.playing = false; this.showPlaying(false);
    if (was) this.announce(true);
    if (was && tell) { if (this.store && !this.store.done) this.want(this.store.n); this.sendView(); }
  }

  tick(now) {
    if (!this.playing) return;
    const st = this.store;
    this.acc += ((now - this.last) / 1000) * this.opt.speed; this.last = now;
    const adv = Math.floor(this.acc);
    if (adv > 0) {
      this.acc -= adv;
      const target = Math.min(this.cur + adv, st.n - 1);
      if (target !== this.cur) this.seek(target); else this.acc = 0;
    }
    if (this.cur >= st.n - 1 && (st.done || st.error)) return this.pause();
    this.ahead();
    if (this.cur >= st.n - 1 && now - (this.asked || 0) > 2500) {
      // waiting at the edge for a while: ask again, saying what we hold (a lost batch is resent)
      this.asked = now; this.want(Math.max(this.wanted, st.n + 1));
    }
    this.draw();
    requestAnimationFrame((t) => this.tick(t));
  }

  seek(i) { this.cur = i; this.scrub.value = i; this.draw(); }

  want(n) {
    this.asked = performance.now();
    this.root.dataset.asks = +(this.root.dataset.asks || 0) + 1;  // requests sent (tests read it)
    if (this.hooks.want) this.hooks.want(this.store.run, n, this.store.n);
  }

  /* The view goes to the server (for the address bar) once the user has stopped for a moment:
   * each message reruns the page's fragment, and a burst of scrubs would keep the browser busy
   * redrawing the page around the player while the next press waits. */
  sendView() {
    if (!this.hooks.view || !this.store) return;
    clearTimeout(this.viewTimer);
    this.viewTimer = setTimeout(() => this.hooks.view({speed: this.opt.speed,
      colour: this.opt.colour, smooth: this.opt.smooth, step: this.store.s.step[this.cur] || 0}),
    VIEW_DELAY_MS);
  }

  draw() {
    const st = this.store;
    if (!st || !st.n) return;
    const i = Math.min(this.cur, st.n - 1), th = FE.THEMES[this.opt.theme] || FE.THEMES.light;
    // Skip a redraw that would paint the same picture (the component is called on every rerun).
    const sig = [i, st.n, st.done, st.error, st.limits ? st.limits.lines.length : 0, this.playing, this.waitStep, JSON.stringify(this.opt),
      this.root.clientWidth, this.root.clientHeight].join("|");
    if (sig === this.sig) return;
    this.sig = sig;
    const t0 = performance.now();
    FE.setScale(this.opt.present ? 1.35 : 1);
    if (FE.drawMap(this.cv.map, st, i, this.opt, th)) this.describe("map", null, st, i);
    const specs = FE.seriesSpecs(this.opt, st.meta);
    for (const k in specs) {
      FE.drawSeries(this.cv[k], st, i, specs[k], th);
      this.describe(k, specs[k], st, i);
    }
    const T = st.meta.T, step = st.s.step[i];
    this.label.textContent = "step " + step + " / " + T;
    this.root.dataset.step = step; this.root.dataset.frames = st.n;
    this.status.textContent = st.error ? "Stopped: " + st.error
      : st.done ? "all " + T + " steps computed; play, scrub and replay run in your browser"
        : "computed " + (st.n - 1) + " of " + T + " steps" + (this.playing || this.waitStep ? " · computing…" : "");
    const narrKey = [st.text[i], this.root.clientWidth, this.opt.present].join("|");
    if (narrKey !== this.narrKey) {  // the text or its box changed: set it and fit its type
      this.narrKey = narrKey; this.narr.innerHTML = st.text[i]; this.fitNarration();
    }
    this.scrub.setAttribute("aria-valuetext", "step " + step + " of " + T);
    this.announce(!this.playing);
    this.draws++; this.root.dataset.draws = this.draws; this.root.dataset.made = FEPlayer.made;
    this.root.dataset.drawMs = (performance.now() - t0).toFixed(1);
    this.root.dataset.drawT = performance.now();
  }

  static keys() {
    if (FEPlayer.keysOn) return;
    FEPlayer.keysOn = true;
    // Capture phase: a focused button (the theme switch, the mode toggle) must not take the
    // space bar as its own click once the player has used it.
    window.addEventListener("keydown", (e) => {
      const p = FEPlayer.active, act = KEYS[e.key];
      FEPlayer.handled = false;
      if (!act || !p || !p.root.isConnected || e.ctrlKey || e.metaKey || e.altKey) return;
      if (!FEPlayer.mine(e.target, p)) return;
      e.preventDefault(); e.stopPropagation(); FEPlayer.handled = true; p.act(act);
    }, true);
    window.addEventListener("keyup", (e) => {
      if (FEPlayer.handled && e.key === " ") { e.preventDefault(); e.stopPropagation(); }
    }, true);
  }

  /* Whether a key pressed with the focus on t is the player's: always, except in a text field;
   * outside presentation mode a control with keys of its own (a slider, a list) keeps them
   * (→ on the p_o slider must not step the run). */
  static mine(t, p) {
    if (!t || !t.closest) return true;
    const role = t.getAttribute("role") || "";
    const text = t.tagName === "TEXTAREA" || t.isContentEditable
      || ["textbox", "searchbox", "combobox", "spinbutton"].includes(role)
      || (t.tagName === "INPUT" && !NOT_TEXT.includes(t.type));
    if (text) return false;
    if (p.opt.present) return true;
    if (p.root.contains(t)) return t.tagName !== "SELECT";
    return !(t.tagName === "SELECT" || t.type === "range"
      || ["slider", "listbox", "option", "radio", "menuitem", "tab"].includes(role));
  }
}
const KEYS = {" ": "play", ArrowRight: "step", ArrowLeft: "back", r: "reset", R: "reset",
  Home: "reset", End: "last"};
const NOT_TEXT = ["range", "checkbox", "radio", "button", "submit", "reset", "color"];
