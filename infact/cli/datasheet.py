"""`python -m infact datasheet`: the study's Human Evaluation Datasheet (HEDS 3.0) as datasheet.json and datasheet.md."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from infact.cli.args import add_db, add_study, command, open_store, study_folder


def register(sub: argparse._SubParsersAction) -> None:
    p = command(sub, "datasheet",
                "Write the Human Evaluation Datasheet (HEDS 3.0: resources, evaluated systems, sample, evaluators, "
                "design, quality criteria, ethics) filled from study.toml and the collected answers, as "
                "datasheet.json and datasheet.md. Fields the study cannot fill are listed as missing. "
                "See docs/analysis.md.")
    add_study(p, required=True)
    add_db(p)
    p.add_argument("--out", metavar="DIR", required=True, help="folder for datasheet.json and datasheet.md")
    p.set_defaults(func=run)


def build(args: argparse.Namespace) -> dict:
    """The datasheet of --study on its store (also used by `analyze --report --study`)."""
    from infact.results.reports.datasheet import datasheet
    from infact.results.tables.export import collect
    from infact.study.loader import load_study

    study = load_study(study_folder(args))
    storage = open_store(args, study.id)
    try:
        tables = collect(study, storage.records(study=study.id))
    finally:
        storage.close()
    return datasheet(study, tables)


def run(args: argparse.Namespace) -> int:
    from infact.fileio import atomic_write_text
    from infact.results.reports.datasheet import render_markdown

    sheet = build(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "datasheet.json", json.dumps(sheet, indent=2, ensure_ascii=False) + "\n")
    atomic_write_text(out / "datasheet.md", render_markdown(sheet))
    print(f"{out / 'datasheet.json'}  — HEDS {sheet['heds_version']}, {len(sheet['missing'])} field(s) missing")
    print(f"{out / 'datasheet.md'}")
    return 0


def report_extras(args: argparse.Namespace, result: dict, *, html: bool) -> str:
    """For `analyze --report`: the quotable methods paragraph and, with --study, the embedded datasheet."""
    from infact.results.reports.methods import report_section

    text = report_section(result, build(args) if getattr(args, "study", None) else None)
    if not html:
        return text
    import html as h

    return f"<pre style=\"font-family:ui-monospace,monospace;white-space:pre-wrap\">{h.escape(text)}</pre>\n"
