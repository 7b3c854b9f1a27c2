"""The datasheet as Markdown (datasheet.md): the same fields as datasheet.json, missing ones marked."""

from __future__ import annotations


def _value_lines(value, indent: int = 1) -> list[str]:
    pad = "  " * indent
    if isinstance(value, dict) and set(value) == {"sha256", "text"}:
        quote = "\n".join(f"{pad}> {line}" for line in value["text"].strip().splitlines())
        return [f"{pad}- SHA-256 `{value['sha256']}`, verbatim:", "", quote, ""]
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            if isinstance(v, (dict, list)) and v:
                out += [f"{pad}- {k}:"] + _value_lines(v, indent + 1)
            else:
                out.append(f"{pad}- {k}: {'–' if v in (None, [], {}) else v}")
        return out
    if isinstance(value, list):
        out = []
        for v in value:
            out += [f"{pad}-"] + _value_lines(v, indent + 1) if isinstance(v, dict) else [f"{pad}- {v}"]
        return out
    return [f"{pad}- {value}"]


def render_markdown(sheet: dict) -> str:
    lines = [
        f"# Human Evaluation Datasheet (HEDS {sheet['heds_version']}): {sheet['title']}",
        "",
        f"Study `{sheet['study']}`, written {sheet['written_at']} by INFACT from study.toml and the stored "
        "answers. Fields INFACT cannot fill are marked *missing* and listed at the end.",
        "",
    ]
    for key, sec in sheet["sections"].items():
        lines += [f"## {key} {sec['title']}", ""]
        if "criteria" in sec:  # one block per criterion, not fields
            for c in sec["criteria"]:
                lines += (
                    [f"### Criterion `{c['name']}`", ""]
                    + _value_lines({k: v for k, v in c.items() if k != "name"}, 0)
                    + [""]
                )
            continue
        for f in sec["fields"]:
            if "missing" in f:
                lines += [f"- **{f['id']} {f['question']}**: *missing* — {f['missing']}"]
            elif isinstance(f["value"], (dict, list)):
                lines += [f"- **{f['id']} {f['question']}** ({f['source']}):"] + _value_lines(f["value"])
            else:
                lines += [f"- **{f['id']} {f['question']}**: {f['value']} ({f['source']})"]
        lines.append("")
    lines += ["## Missing fields", ""] + [f"- {m}" for m in sheet["missing"]] + [""]
    return "\n".join(lines)
