() => {
  // In-page probes for bench/ui.py: blank-chart samples, step changes per animation frame.
  if (window.__feBench) return;
  const player = () => document.querySelector(".fe-player");
  function drawn(cv) {  // more than a few pixels differ from the top-left (background) pixel
    if (!cv.isConnected || !cv.width || !cv.height) return false;
    const d = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4 * 53) {
      if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2]) n++;
      if (n > 50) return true;
    }
    return false;
  }
  const B = (window.__feBench = {
    samples: 0, blank: 0, seen: new Set(), timer: null, log: [], clickAt: null, lastStep: null,
    sample() {
      const p = player();
      B.samples++;
      let blank = !p;
      if (p) for (const cv of p.querySelectorAll("canvas")) {
        if (cv.style.display === "none") continue;
        const ok = drawn(cv), key = cv.className;
        if (ok) B.seen.add(key); else if (B.seen.has(key)) blank = true;
      }
      if (blank) B.blank++;
      B.lastStep = p ? +p.dataset.step : null;
    },
    start(ms) { B.samples = B.blank = 0; B.timer = setInterval(B.sample, ms); },
    stop() { clearInterval(B.timer); return {samples: B.samples, blank: B.blank, last_step: B.lastStep}; },
    watch() {  // record (time, step) at every animation frame; note when the Pause button is pressed
      B.log = []; B.clickAt = null; B.watching = true;
      const rec = (t) => { const p = player(); if (p) B.log.push([t, +p.dataset.step, +p.dataset.drawMs]);
        if (B.watching) requestAnimationFrame(rec); };
      requestAnimationFrame(rec);
      if (!B.listening) {
        B.listening = true;
        document.addEventListener("pointerdown", (e) => {
          const t = e.target.closest ? e.target : null;
          if (t && t.closest(".fe-scrub")) B.scrubDown = performance.now();
          if (t && t.closest(".fe-play") && player().dataset.playing === "1" && B.clickAt === null)
            B.clickAt = performance.now();
        }, {capture: true});
      }
    },
    pauseLatency() {
      B.watching = false;
      let last = B.clickAt;
      for (let i = 1; i < B.log.length; i++)
        if (B.log[i][1] !== B.log[i - 1][1] && B.log[i][0] >= B.clickAt) last = B.log[i][0];
      return B.clickAt === null ? null : last - B.clickAt;
    },
    scrubLatency() {  // from the pointer press on the scrubber to the end of the redraw
      return +player().dataset.drawT - B.scrubDown;
    },
    rate() {
      B.watching = false;
      const ch = [];
      for (let i = 1; i < B.log.length; i++) if (B.log[i][1] !== B.log[i - 1][1]) ch.push(B.log[i]);
      if (ch.length < 2) return {fps: 0, changes: ch.length};
      const span = (ch[ch.length - 1][0] - ch[0][0]) / 1000;
      const ms = ch.map((c) => c[2]).sort((a, b) => a - b);
      return {fps: (ch.length - 1) / span, draw_ms_median: ms[Math.floor(ms.length / 2)], changes: ch.length, from: ch[0][1], to: ch[ch.length - 1][1],
              animation_frames: B.log.length};
    },
  });
}
