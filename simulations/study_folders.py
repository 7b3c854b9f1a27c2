"""Study folders written from settings, for the tests and the benchmarks (bench/replicas.py, the browser's
`small_study`); tests import them through tests/support/studies.py.

`make_study(tmp_path, ...)` writes a `study.toml` and a `situations.jsonl` into a new
folder and returns it: `n_situations` regular situations (each its own dialog unless
`per_dialog` > 1) plus one attention-check situation `check-t1` in a dialog of its own,
every situation with a response from every system. Settings are overridden per section:

    make_study(tmp_path, systems=("A", "B", "C"), criteria=["fluent", "relevant"],
               quality={"on_attention_fail": "screen_out"}, assignment={"lease_minutes": 5})

`copy_study(source, folder, edits)` copies a real study (e.g. data/demo) and edits its study.toml.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CHECK_ID = "check-t1"
TEXTS = {"welcome": "Welcome.", "instructions": "Rate each response.", "terms": "Terms.", "privacy": "Privacy."}


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {v!r} as TOML")


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)


def to_toml(config: dict) -> str:
    """A TOML document for a config of sections, scalars, lists and arrays of tables."""
    out: list[str] = []

    def table(name: str, body: dict, header: str) -> None:
        out.append(header)
        for k, v in body.items():
            if v is None or isinstance(v, dict) or _is_table_array(v):
                continue
            out.append(f"{k} = {_value(v)}")
        out.append("")
        for k, v in body.items():
            if isinstance(v, dict):
                table(f"{name}.{k}", v, f"[{name}.{k}]")
            elif _is_table_array(v):
                for item in v:
                    table(f"{name}.{k}", item, f"[[{name}.{k}]]")

    for name, body in config.items():
        if isinstance(body, dict):
            table(name, body, f"[{name}]")
        elif _is_table_array(body):
            for item in body:
                table(name, item, f"[[{name}]]")
        else:
            raise TypeError(f"top-level {name!r} must be a table or an array of tables")
    return "\n".join(out)


def situation(sid: str, dialog: str, systems: tuple[str, ...] | list[str]) -> dict:
    return {
        "situation_id": sid,
        "dialog_id": dialog,
        "context": [{"role": "user", "text": f"hi, I want a movie ({sid})"}],
        "responses": {s: f"{s} says something about {sid}" for s in systems},
    }


def study_config(
    *, systems=("Alpha", "Beta"), per_participant: int = 4, criteria=None, study_id: str = "t", **sections: dict
) -> dict:
    """The config as a dict; each keyword (study, assignment, quality, ...) updates a section."""
    cfg: dict[str, Any] = {
        "study": {
            "id": study_id,
            "title": "Test study",
            "systems": list(systems),
            "situations_per_participant": per_participant,
            "expected_minutes": 10,
        },
        "assignment": {"ratings_per_situation": 3, "lease_minutes": 60},
        "attention_check": {
            "enabled": True,
            "situation": CHECK_ID,
            "positions": [2, min(3, per_participant)],
            "expected": ["Meaningless"],
        },
        "texts": dict(TEXTS),
    }
    if criteria is not None:
        cfg["criteria"] = [{"id": c, "question": f"How {c} is it?"} for c in criteria]
    for name, body in sections.items():
        if isinstance(body, dict):
            cfg[name] = {**cfg.get(name, {}), **body}
        else:
            cfg[name] = body
    return cfg


def make_study(
    tmp_path: Path,
    *,
    n_situations: int = 12,
    per_dialog: int = 1,
    name: str = "study",
    situations: list[dict] | None = None,
    **config: Any,
) -> Path:
    """Write a study folder under tmp_path and return it (see the module docstring)."""
    folder = Path(tmp_path) / name
    folder.mkdir(parents=True, exist_ok=True)
    cfg = study_config(**config)
    systems = cfg["study"]["systems"]
    if situations is None:
        situations = [situation(f"s{i:02d}", f"d{i // per_dialog:02d}", systems) for i in range(n_situations)]
        situations.append(situation(CHECK_ID, "check", systems))
    (folder / "study.toml").write_text(to_toml(cfg), encoding="utf-8")
    (folder / "situations.jsonl").write_text("".join(json.dumps(s) + "\n" for s in situations), encoding="utf-8")
    return folder


def write_toml(folder: Path, text: str) -> Path:
    path = Path(folder) / "study.toml"
    path.write_text(text, encoding="utf-8")
    return path


# -- walking a study ------------------------------------------------------------


# -- a real study file, edited ----------------------------------------------------
# For tests about a study the researcher wrote or an importer made (the demos, the starter study.toml):
# make_study writes situation studies from settings; these keep another file's own text.


def edit_toml(folder: Path, edits: dict[str, str]) -> Path:
    """Replace text in `folder`/study.toml; every `old` must be there (so a changed file fails loudly)."""
    path = Path(folder) / "study.toml"
    text = path.read_text(encoding="utf-8")
    for old, new in edits.items():
        assert old in text, f"{old!r} is no longer in {path}"
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return path


def copy_study(source: Path, folder: Path, edits: dict[str, str] | None = None) -> Path:
    """A copy of the study folder `source` (e.g. data/demo) at `folder`, its study.toml edited by `edits`."""
    import shutil

    shutil.copytree(source, folder)
    if edits:
        edit_toml(folder, edits)
    return Path(folder)
