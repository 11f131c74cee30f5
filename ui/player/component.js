/* Streamlit component (st.components.v2): one player per mount; frames arrive in batches. */
const FE_STORES = (globalThis.FE_STORES = globalThis.FE_STORES || new Map());
const FE_PLAYERS = (globalThis.FE_PLAYERS = globalThis.FE_PLAYERS || new WeakMap());

export default function (component) {
  const {data, parentElement, setStateValue} = component;
  let p = FE_PLAYERS.get(parentElement);
  if (!p) {
    p = new FEPlayer(parentElement, {});
    FE_PLAYERS.set(parentElement, p);
  }
  p.hooks = {
    want: (run, n) => setStateValue("want", {run: run, n: n}),
    view: (v) => setStateValue("view", v),
  };
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
  } else if (data.frames) {
    st.append(data.frames, data.start);
  }
  st.done = !!data.done; st.error = data.error || "";
  p.update();
}
