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
  if (!data) return watchPending(p, setStateValue);
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
  p.root.dataset.resends = data.resends || 0;  // batches the server sent again (tests read it)
  if (data.start > st.n) {  // a batch went missing: ask for the frames from what we hold
    p.root.dataset.gaps = +(p.root.dataset.gaps || 0) + 1;  // batches lost (bench.ui reads it)
    askFromHeld(p, setStateValue);
  } else {  // "done" only counts with every frame in hand, else Play would stop at the gap
    if (data.frames) st.append(data.frames, data.start);
    st.done = !!data.done; st.error = data.error || "";
    if (data.limits) st.limits = data.limits;  // the converged limits, once the run is done
    if (data.ack) acknowledge(p, st, setStateValue);
  }
  p.update();
  watchPending(p, setStateValue);
}

/* A player waiting for frames (none yet, the step a link asked for, Step pressed at the edge)
 * asks again when none came for a while, saying how many it holds; the server sends from there.
 * A batch can be lost on the way (a newer script run's message replaces it before the browser
 * sees it) while the server counts it as sent: with no later batch to show the gap, a paused
 * player waited for ever (CI: a link with step=5 stuck at step 0). Playing re-asks on its own
 * (FEPlayer.tick). The first ask comes after 0.6 s with no frame at all (the first batch
 * normally lands within 0.45 s), else after 1.5 s without a new frame; a batch that crosses an
 * ask only comes twice, and the store skips frames it has. */
function watchPending(p, setStateValue) {
  const n = p.store ? p.store.n : 0;
  if (p.pendingTimer && p.pendingN === n) return;  // nothing new: the running timer stands
  clearTimeout(p.pendingTimer);
  p.pendingTimer = null; p.pendingN = n;
  const ask = () => {
    p.pendingTimer = null;
    if (!p.waiting()) return;
    askFromHeld(p, setStateValue);
    p.root.dataset.reasks = +(p.root.dataset.reasks || 0) + 1;  // tests and bench.load read it
    p.pendingTimer = setTimeout(ask, 1500);
  };
  if (p.waiting()) p.pendingTimer = setTimeout(ask, n ? 1500 : 600);
}

/* Tell the server how many frames the player holds; it sends the rest ("": no run's frames). */
function askFromHeld(p, setStateValue) {
  setStateValue("have", {run: p.store ? p.store.run : "", n: p.store ? p.store.n : 0,
    t: Date.now()});
}

/* The server sends a large batch again until the player says it holds it ("held"), and sends
 * nothing after it before: no later batch can overtake a lost or skipped one. Once per count. */
function acknowledge(p, st, setStateValue) {
  const key = st.run + ":" + st.n;
  if (p.acked === key) return;
  p.acked = key;
  setStateValue("held", {run: st.run, n: st.n});
}
