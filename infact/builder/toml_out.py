"""A small TOML writer for the builder's study.toml: tables, arrays of tables, strings, numbers, booleans, lists."""

from __future__ import annotations

import json
from typing import Any


def value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        if "\n" in v:
            return '"""\n' + v.replace("\\", "\\\\").replace('"""', '\\"\\"\\"') + '"""'
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x) for x in v) + "]"
    raise TypeError(f"no TOML form for {type(v).__name__}")


def _key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() and k.isascii() else json.dumps(k)


def _table(name: str, values: dict, *, array: bool = False) -> list[str]:
    lines = [f"[[{name}]]" if array else f"[{name}]"]
    later: list[str] = []
    for k, v in values.items():
        if v is None:
            continue
        if isinstance(v, dict):
            later += ["", *_table(f"{name}.{_key(k)}", v)]
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for row in v:
                later += ["", *_table(f"{name}.{_key(k)}", row, array=True)]
        else:
            lines.append(f"{_key(k)} = {value(v)}")
    return lines + later


def dumps(data: dict[str, Any]) -> str:
    """`data` (top-level tables and arrays of tables) as TOML text; None values are left out."""
    lines: list[str] = []
    for name, v in data.items():
        if isinstance(v, dict):
            lines += ["", *_table(_key(name), v)]
        elif isinstance(v, list) and all(isinstance(x, dict) for x in v):
            for row in v:
                lines += ["", *_table(_key(name), row, array=True)]
        elif v is not None:
            raise ValueError(f"{name}: only tables at the top of study.toml")
    return "\n".join(lines).lstrip("\n") + "\n"
