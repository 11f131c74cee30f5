/* Converged limits on the player's charts (engine/frames/limits.py sends them once the run is
 * done): dashed levels in each method's colour with stacked labels. Extends FE (player.js)
 * with drawLevels and limitLevels, which charts.js draws. */
Object.assign(FE, (() => {
  const {fitFont, ink} = FE;

  /* Converged limits (engine/frames/limits.py, once the run is done): a dashed level in the
   * method's colour, labelled at the right of the whole-run panel, labels stacked upwards. */
  function drawLevels(ctx, lvs, Y, panels, th) {
    const [a, b] = panels[panels.length - 1];
    let top = Infinity;
    ctx.lineWidth = 1.5; ctx.setLineDash([4, 3]);
    for (const lv of lvs.filter((l) => !l.off)) for (const [p, q] of panels) {
      ctx.strokeStyle = ink(lv.colour, th); ctx.beginPath(); ctx.moveTo(p, Y(lv.y)); ctx.lineTo(q, Y(lv.y)); ctx.stroke();
    }
    ctx.setLineDash([]); ctx.textBaseline = "bottom";
    for (const lv of [...lvs].sort((u, v) => Y(v.y) - Y(u.y))) {  // the lowest label first
      const colour = ink(lv.colour, th); ctx.textAlign = "right";
      const size = fitFont(ctx, lv.text, "italic", 11, b - a - 12) * FE.textScale();
      // one off the top sits just inside the plot, below its edge (the legend is above it)
      const at = lv.off === "up" ? Y(lv.y) + size + 3 : Y(lv.y) - 2;
      const y = Math.min(at, top - 1), tw = ctx.measureText(lv.text).width;
      ctx.fillStyle = th.bg; ctx.globalAlpha = 0.85; ctx.fillRect(b - tw - 7, y - size - 1, tw + 6, size + 2);
      ctx.globalAlpha = 1; ctx.fillStyle = colour; ctx.fillText(lv.text, b - 4, y); ctx.textAlign = "left";
      lv.box = {y0: y - size - 1, y1: y + 1}; top = lv.box.y0;  // tests: the labels do not overlap
    }
  }

  const limitLevels = (st) => (st.limits ? st.limits.lines : []).filter((ln) => ln.value !== null)
    .map((ln) => ({y: ln.value, colour: ln.colour, text: ln.name + " converged limit"}));

  /* A level off the chart's scale is labelled at its edge with its value and an arrow, with no
   * line (a regression's λ → 0 fit far above curves below 1, say), never dropped. */
  const onScale = (lv, spec) => (lv.y > spec.hi || lv.y < spec.lo
    ? {...lv, off: lv.y > spec.hi ? "up" : "down", y: lv.y > spec.hi ? spec.hi : spec.lo,
       text: `${lv.text} ${spec.say(lv.y)} ${lv.y > spec.hi ? "↑" : "↓"}`}
    : lv);

  return {drawLevels, limitLevels, onScale};
})());
