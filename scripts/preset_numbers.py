"""Every preset's first steps, recorded and compared: the check that a refactor of the engine
leaves every preset's numbers unchanged.

Each preset runs as it is (no size override) for steps 0..STEPS with every default method on the
CPU; the snapshot scalars of each step (timing fields dropped) and the preset's full setting go
to a JSON file. Run it on the old code, then on the new one with --compare:

    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=/old/checkout python scripts/preset_numbers.py \\
        --out old.json                                  # from /old/checkout
    .venv/bin/python -m scripts.preset_numbers --out new.json --compare old.json

A preset whose data this machine cannot load (a torchvision download) is recorded as skipped,
with the reason, in both runs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

import torch

from engine.config import SPECS, ConfigError
from engine.methods import make_run
from engine.presets import PRESETS, preset_config
from engine.procedures import RECORDS, procedure_of
from engine.worlds import build_world

STEPS = 3
UNTIMED = ("elapsed",)  # wall-clock fields differ between any two runs
# a method's older name → its name now (engine/procedures: the AZL world's network is resnet3)
RENAMED = {old: new for r in RECORDS.values() for old, new in r.aliases.items()}


def preset_numbers(name: str) -> dict:
    """The setting and steps 0..STEPS of every default method of one preset."""
    cfg = preset_config(name)
    try:
        world = build_world(cfg, "cpu")
        world_ns = build_world(cfg.replace(structure=False), "cpu")
    except ConfigError as err:
        return {"config": cfg.to_dict(), "skipped": str(err)}
    history = {}
    for method in procedure_of(cfg).defaults:  # the paper's six, or e.g. gfl's four
        run = make_run(method, world, world_ns, embed=False)
        while len(run.history) <= STEPS and not run.done:
            run.step()
        history[method] = [{k: v for k, v in snap.scalars().items() if k not in UNTIMED}
                           for snap in run.history[:STEPS + 1]]
    return {"config": cfg.to_dict(), "history": history}


def same(a, b) -> bool:
    """Equal values, NaN equal to NaN (a JSON round trip keeps both)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


NEW = object()


def added(key: str, a: dict, b: dict) -> bool:
    """A setting new since the old record, at its declared default (it changes no old run)."""
    return key not in a["config"] and key in SPECS and b["config"][key] == SPECS[key].default


def differences(old: dict, new: dict) -> list[str]:
    """Every preset, method, step and field where the two records differ."""
    out = [f"{name}: only in the old record" for name in old if name not in new]
    out += [f"{name}: only in the new record" for name in new if name not in old]
    for name in (n for n in old if n in new):
        a, b = old[name], new[name]
        keys = sorted(k for k in a["config"].keys() | b["config"].keys()
                      if a["config"].get(k, NEW) != b["config"].get(k, NEW) and not added(k, a, b))
        if keys:
            out.append(f"{name}: settings differ in {', '.join(keys)}")
        if a.get("skipped") != b.get("skipped"):
            out.append(f"{name}: skipped {a.get('skipped')!r} vs {b.get('skipped')!r}")
        for method, rows in a.get("history", {}).items():
            now = b.get("history", {})
            now = now.get(method, now.get(RENAMED.get(method, method)))
            if now is None:
                out.append(f"{name} {method}: not in the new record")
                continue
            if len(rows) != len(now):
                out.append(f"{name} {method}: {len(rows)} steps vs {len(now)}")
            for i, (ra, rb) in enumerate(zip(rows, now, strict=False)):
                bad = [k for k in ra.keys() | rb.keys() if not same(ra.get(k), rb.get(k))]
                if bad:
                    out.append(f"{name} {method} step {i}: {', '.join(sorted(bad))}")
    return out


def main(argv=None) -> int:
    """Record every preset (or --only some) into --out; with --compare, report differences."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--compare", help="an earlier record to compare with")
    parser.add_argument("--only", nargs="*", help="preset names (default: every preset)")
    args = parser.parse_args(argv)
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    record = {}
    for name in args.only or list(PRESETS):
        record[name] = preset_numbers(name)
        print(name, "skipped" if "skipped" in record[name] else "ok", flush=True)
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=1, sort_keys=True)
    if not args.compare:
        return 0
    with open(args.compare, encoding="utf-8") as fh:
        old = json.load(fh)
    new = json.loads(json.dumps(record))
    diffs = differences({k: v for k, v in old.items() if k in new or not args.only}, new)
    print("\n".join(diffs) if diffs else f"identical: {len(new)} presets, steps 0..{STEPS}")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
