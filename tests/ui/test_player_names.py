"""The browser player draws what the record sends (issue 35): ui/player/*.js and player.css name
no procedure, world, method or frame maker of the registries and branch on no meta.<name>."""

from __future__ import annotations

import re
from pathlib import Path

from engine import scenarios
from engine.frames.stream import MAKERS
from engine.procedures import RECORDS
from ui import playback

PLAYER = Path(playback.__file__).resolve().parent / "player"
# the engine's own frame maker is named after the package: a word every comment may use
GENERIC = {"engine"}


def registry_names() -> set[str]:
    """Every procedure, world, method (aliases included) and frame-maker name."""
    names = set(RECORDS) | set(scenarios.WORLDS) | set(MAKERS)
    for record in RECORDS.values():
        names |= {m.name for m in record.methods} | set(record.aliases) | {record.frame}
    return {n.lower() for n in names} - GENERIC


def words(path: Path) -> str:
    """The file's text, lower case (comments included: they must not promise a branch)."""
    return path.read_text().lower()


def test_the_player_names_no_procedure_world_or_method() -> None:
    names = registry_names()
    assert {"shi2022", "gfl", "azl", "resnet3", "ntk"} <= names  # the registries were read
    files = [*PLAYER.glob("*.js"), PLAYER / "player.css"]
    hits = {f"{p.name}: {n}" for p in files for n in names
            if re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", words(p))}
    assert hits == set(), sorted(hits)


def test_the_player_reads_no_meta_field_named_after_a_procedure() -> None:
    names = registry_names()
    for p in PLAYER.glob("*.js"):
        fields = set(re.findall(r"\bmeta\??\.(\w+)", p.read_text())) | set(
            re.findall(r"\bm\.(\w+)", p.read_text()))
        assert not {f.lower() for f in fields} & names, (p.name, fields & names)
