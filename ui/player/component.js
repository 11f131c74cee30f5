/* Streamlit component (st.components.v2): one player per mount; frames arrive in batches. */
const FE_STORES = (globalThis.FE_STORES = globalThis.FE_STORES || new Map());

export default function (component) {
  const {data, parentElement, setStateValue} = component;
  // One player per page. When Streamlit remounts the component (a script run interrupted by
  // the next one can do that), the same player (its canvases as drawn, its clock, Play) moves
  // into the new container: no blank frame, no lost position.
  let p = globalThis.FE_PLAYER;
  if (!p) p = globalThis.FE_PLAYER = new FEPlayer(parentElement, {});
  else if (p.root.parentElement !== parentElement) {
    parentElement.appendChild(p.root);
    p.root.dataset.moves = +(p.root.dataset.moves || 0) + 1;  // remounts seen (bench.ui reads it)
  }
  p.hooks = {
    want: (run, n, have) => setStateValue("want", {run: run, n: n, have: have, t: Date.now()}),
    view: (v) => setStateValue("view", v),
  };
  watchEmpty(p, setStateValue);
  if (!data) return;
  let st = p.store;
  if (!st || st.run !== data.meta.run) {
    st = FE_STORES.get(data.meta.run);
    if (!st) {
      st = new FE.Store(data.meta);
      FE_STORES.clear();  // one run per page: the previous run's frames go
      FE_STORES.set(data.meta.run, st);
    }
    p.setStore(st, data.view ? data.view.step : 0);
  }
  if (data.view && p.viewRun !== data.meta.run) {
    p.viewRun = data.meta.run;
    p.setOptions({speed: data.view.speed, colour: data.view.colour, smooth: data.view.smooth});
  }
  p.setOptions({theme: data.theme || "light", present: !!data.present});
  if (data.start > st.n) {  // a batch went missing: ask for the frames from what we hold
    setStateValue("have", {run: st.run, n: st.n, t: Date.now()});
  } else {  // "done" only counts with every frame in hand, else Play would stop at the gap
    if (data.frames) st.append(data.frames, data.start);
    st.done = !!data.done; st.error = data.error || "";
  }
  p.update();
}

/* A player with no frame yet asks for frame 0 until it has one, first after 0.6 s (the first
 * batch normally lands within 0.45 s), then every 1.5 s: once in a while a fresh page's first
 * batch never arrived (the server had counted it as sent), and with the timer off nothing would
 * ever send it again. An ask that crosses a late batch only makes the server send frame 0 twice,
 * which the store ignores. */
function watchEmpty(p, setStateValue) {
  clearTimeout(p.emptyTimer);
  const ask = () => {
    if (p.store && p.store.n) return;
    setStateValue("have", {run: p.store ? p.store.run : "", n: 0, t: Date.now()});
    p.emptyTimer = setTimeout(ask, 1500);
  };
  if (!p.store || !p.store.n) p.emptyTimer = setTimeout(ask, 600);
}
