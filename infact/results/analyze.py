"""The one analysis entry point: `analyze` (the CLI) and the dashboard both call these functions.

`analyze_table` takes any table a study exports — ratings.csv, pairwise.csv, best_worst.csv — and
returns the statistics a reviewer expects for it (ratings: bootstrap intervals, Friedman, Wilcoxon,
mixed model, agreement; preferences: Bradley–Terry–Davidson ranking, win rates, fragility where
available), with every automatic judge compared with the humans. `analyze_study` reads the same
table straight from a study's store and adds the live chats. `render` turns a result into the
Markdown or HTML report. The CLI (infact/cli/analyze.py) only parses arguments into `Options`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from infact.errors import InfactError, Problem
from infact.results.ranking import analysis as preference_analysis
from infact.results.ratings import analysis as ratings_analysis
from infact.results.tables.comparisons import STYLE_COVARIATES, prepare_pairwise, table_kind
from infact.stats import N_BOOT
from infact.values import json_ready


@dataclass(frozen=True)
class Options:
    """How to analyse; the defaults are `analyze`'s (docs/analysis.md, docs/ranking.md)."""

    criterion: str | None = None
    include_flagged: bool = False
    mixed_model: bool = True
    n_boot: int = N_BOOT
    seed: int = 0
    as_pairwise: bool = False
    covariates: tuple[str, ...] = ()
    confidence: float = 0.95
    judges: tuple[str, ...] = ()  # NAME=FILE: a judge's CSV, or a FACE run file for annotations
    responses: str | None = None  # texts for the judges' length bias
    group_by: str | None = None  # annotations: the judges' figures also per value of this column
    min_votes: int | None = None  # preferences: fewer decisive votes = provisional (None: default)
    reweight: bool = False  # pairwise: also fit with pairs weighted by 1 / their frequency
    repeat_cap: int = 1  # pairwise: votes per participant on one pair and situation (or live opening) that count
    min_vote_seconds: float | None = None  # pairwise: faster votes are flagged (None: the study's, else 3 s)
    anomaly_quantile: float = 0.99  # pairwise: flag a participant whose votes are this unlikely under the others' fit
    extra: dict = field(default_factory=dict, hash=False)  # options of analyses added by later steps

    def check(self) -> None:
        if self.n_boot < 100:
            raise InfactError(
                Problem(
                    "--n-boot", f"{self.n_boot} replicates give no stable interval; use 100 or more (default {N_BOOT})."
                )
            )
        if not 0.5 <= self.confidence < 1:
            raise InfactError(Problem("--confidence", f"{self.confidence} is not a confidence level; use e.g. 0.95."))
        if not 0.5 <= self.anomaly_quantile < 1:
            raise InfactError(
                Problem(
                    "--anomaly-quantile", f"{self.anomaly_quantile} is not a quantile to flag above; use e.g. 0.99."
                )
            )
        if self.repeat_cap < 1:
            raise InfactError(Problem("--repeat-cap", f"{self.repeat_cap} would flag every vote; give 1 or more."))
        if self.min_votes is not None and self.min_votes < 0:
            raise InfactError(
                Problem("--min-votes", f"{self.min_votes} is negative; give 0 (nothing provisional) or more.")
            )
        unknown = [c for c in self.covariates if c not in STYLE_COVARIATES]
        if unknown:
            raise InfactError(
                Problem(
                    "--covariates",
                    f"unknown covariate {unknown[0]!r}; choose from "
                    f"{', '.join(STYLE_COVARIATES)}, e.g. --covariates length,items.",
                )
            )


def analyze_table(df: pd.DataFrame, options: Options = Options(), source: str = "RATINGS.csv") -> dict:
    """The full result for one exported table (its kind is read from its columns)."""
    options.check()
    from infact.results.conversations import analysis as annotations

    if annotations.is_annotations(df):  # a conversation study's annotations.csv
        return _annotations(df, options, source)
    kind = table_kind(df)
    if options.covariates and kind != "pairwise":
        raise InfactError(Problem("--covariates", "style control needs a pairwise table (pairwise.csv)."))
    if options.reweight and kind != "pairwise":
        raise InfactError(Problem("--reweight", "reweighting pairs needs a pairwise table (pairwise.csv)."))
    from infact.results.ranking.provisional import MIN_VOTES

    prefs = dict(
        criterion=options.criterion,
        include_flagged=options.include_flagged,
        n_boot=options.n_boot,
        seed=options.seed,
        confidence=options.confidence,
        source=source,
        min_votes=MIN_VOTES if options.min_votes is None else options.min_votes,
    )
    if kind == "pairwise":
        from infact.results.ranking.integrity import DEFAULT_MIN_SECONDS

        seconds = options.min_vote_seconds
        result = preference_analysis.analyze_votes(
            df,
            covariates=options.covariates,
            reweight=options.reweight,
            repeat_cap=options.repeat_cap,
            min_seconds=options.extra.get("min_vote_seconds", DEFAULT_MIN_SECONDS) if seconds is None else seconds,
            openings=options.extra.get("openings"),
            anomaly_quantile=options.anomaly_quantile,
            **prefs,
        )
    elif kind == "best_worst":
        result = preference_analysis.analyze_best_worst(df, **prefs)
    elif options.as_pairwise:
        result = preference_analysis.analyze_ratings_as_pairwise(df, **prefs)
    else:
        result = ratings_analysis.analyze(
            df,
            criterion=options.criterion,
            include_flagged=options.include_flagged,
            mixed_model=options.mixed_model,
            n_boot=options.n_boot,
            seed=options.seed,
            source=source,
        )
    if options.judges:
        from infact.results.judges.agreement import parse_judge_option
        from infact.results.judges.alignment_report import judge_coverage, situation_features_from_path

        named = [parse_judge_option(v) for v in options.judges]
        features = _features(options.responses)
        result["judges"] = compare_judges(
            df, kind, named, options.criterion, options.include_flagged, features=features
        )
        where = options.responses or options.extra.get("study")
        result["judge_alignment"] = align_judges(
            df,
            kind,
            named,
            options.criterion,
            options.include_flagged,
            features=features,
            n_boot=min(options.n_boot, 500),
            seed=options.seed,
            situation_features=situation_features_from_path(where) if where else None,
        )
        result["judge_coverage"] = {name: judge_coverage(path) for name, path in named}
    return result


def _annotations(df: pd.DataFrame, options: Options, source: str) -> dict:
    """A conversation study: per aspect and system, α, halo, rankings; FACE run files as judges."""
    from infact.results.conversations import analysis as aa

    result = aa.analyze_annotations(
        df, include_flagged=options.include_flagged, n_boot=options.n_boot, seed=options.seed, source=source
    )
    if options.judges:
        named = [aa.parse_run_option(v) for v in options.judges]
        result["judges"] = aa.compare_judges(
            df, named, group_by=options.group_by, include_flagged=options.include_flagged, source=source
        )
    return result


def _humans(humans: pd.DataFrame, kind: str, criterion: str | None, include_flagged: bool) -> pd.DataFrame:
    """The human answers a judge is compared with: prepared as the analysis prepares them, one criterion."""
    if kind == "best_worst":
        raise InfactError(
            Problem("--judge", "judges are compared with ratings or pairwise votes, not best–worst choices.")
        )
    if kind == "pairwise":
        data = prepare_pairwise(humans, include_flagged=include_flagged)
    else:
        data = ratings_analysis.prepare_ratings(humans, include_flagged)[0]
    if criterion and "criterion" in data.columns:
        data = data[data["criterion"].astype(str) == criterion]
    return data


def compare_judges(
    humans: pd.DataFrame,
    kind: str,
    judges: Sequence[tuple[str, Path]],
    criterion: str | None,
    include_flagged: bool,
    *,
    features: pd.DataFrame | None = None,
) -> dict:
    """{judge name: its agreement with the humans} for ratings or pairwise votes (`analyze --judge`)."""
    from infact.results.judges import agreement

    data = _humans(humans, kind, criterion, include_flagged)
    if features is None and kind == "pairwise":
        features = agreement.features_from_votes(data)
    return json_ready(agreement.compare_files(data, kind, list(judges), criterion, features))


def align_judges(
    humans: pd.DataFrame,
    kind: str,
    judges: Sequence[tuple[str, Path]],
    criterion: str | None,
    include_flagged: bool,
    *,
    features: pd.DataFrame | None = None,
    n_boot: int = 500,
    seed: int = 0,
    situation_features: pd.DataFrame | None = None,
    scale_points: int | None = None,
) -> dict:
    """{judge name: {criterion: alignment}}: may the judge stand in for the humans (docs/llm.md)."""
    from infact.results.judges import agreement
    from infact.results.judges.alignment_report import align_files

    data = _humans(humans, kind, criterion, include_flagged)
    if features is None and kind == "pairwise":
        features = agreement.features_from_votes(data)
    extra = {"scale_points": scale_points} if scale_points else {}
    return json_ready(
        align_files(
            data,
            kind,
            list(judges),
            criterion,
            features=features,
            n_boot=n_boot,
            seed=seed,
            situation_features=situation_features,
            **extra,
        )
    )


def _features(responses: str | None) -> pd.DataFrame | None:
    if not responses:
        return None
    from infact.results.ranking.features import features_from_path

    return features_from_path(responses)


def text_columns() -> dict[str, type]:
    """Columns every declared table keeps as text: participant tokens like "007", situation ids like "1e3"."""
    from infact.results.tables.schemas import all_schemas

    return {
        c.name: str for schema in all_schemas().values() for c in schema.columns if c.type in ("string", "datetime")
    }


def read_table(path: str | Path) -> pd.DataFrame:
    """An exported table read back with its text columns as text; a clear error for a missing or unreadable file."""
    path = Path(path)
    if not path.is_file():
        raise InfactError(
            Problem(str(path), "file not found; pass the ratings.csv written by `python -m infact export`.")
        )
    try:
        return pd.read_csv(path, dtype=text_columns())
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InfactError(
            Problem(
                str(path),
                f"not a readable CSV ({type(exc).__name__}: {str(exc).strip()}); "
                "save it as UTF-8 comma-separated values with a header row.",
            )
        ) from None


def study_table(study_dir: str, db: str) -> tuple[pd.DataFrame, str]:
    """The table a study's analysis reads from its store: its votes or choices, else its ratings.

    Flagged participants are always loaded; the analysis drops them unless told to keep them."""
    from infact.results.tables.export import tables_from_store

    found = tables_from_store(study_dir, db, include_flagged=True)
    table = next(
        (found[k] for k in ("annotations", "pairwise", "best_worst") if k in found and len(found[k])), found["ratings"]
    )
    return table, f"{study_dir} (store {db})"


def _integrity_inputs(study_dir: str, db: str) -> dict:
    """The study's minimum reading time and, for live chats, each conversation's opening (vote integrity)."""
    from infact.results.ranking.integrity import openings_from_records
    from infact.study.loader import load_study

    study = load_study(study_dir)
    out = {"min_vote_seconds": study.config.quality.min_situation_seconds}
    if study.config.live.enabled:
        from infact.storage import open_storage

        storage = open_storage(db)
        try:
            out["openings"] = openings_from_records(storage.records(study=study.id))
        finally:
            storage.close()
    return out


def analyze_study(study_dir: str, db: str, options: Options = Options()) -> tuple[dict, pd.DataFrame]:
    """`analyze --study DIR`: the study's table analysed, with its live chats when it has any."""
    from infact.results.live.overview import live_from_store

    table, source = study_table(study_dir, db)
    options = Options(**{**options.__dict__, "extra": {**options.extra, **_integrity_inputs(study_dir, db)}})
    if options.judges and not options.responses:  # the study's situations give the judges' features
        options = Options(**{**options.__dict__, "extra": {**options.extra, "study": study_dir}})
    result = analyze_table(table, options, source)
    live = live_from_store(study_dir, db)
    if live is not None:
        result["live"] = live
    return result, table


def is_preferences(result: dict) -> bool:
    """True for a ranking of votes or choices (or of ratings read as preferences), False for rating statistics."""
    parts = [result, *result.get("criteria", {}).values()]
    return bool(result.get("as_pairwise")) or any(p.get("kind") in ("pairwise", "best_worst") for p in parts)


def render(result: dict, fmt: str = "md", table: pd.DataFrame | None = None) -> str:
    """The report of a result: Markdown (`md`) or a standalone HTML page (`html`, with charts for ratings)."""
    from infact.results.reports import preferences, report

    html = fmt != "md"
    if result.get("kind") == "annotations":
        from infact.results.conversations.analysis import render_markdown

        return render_markdown(result)
    if is_preferences(result):
        text = preferences.render_markdown(result) + alignment_section(result)
        if html:
            text = f'<!doctype html><meta charset="utf-8"><title>INFACT preference analysis</title>\n{_pre(text)}'
        return text
    text = report.render_markdown(result) if not html else report.render_html(result, table)
    section = judges_section(result, html=html)
    if html and "</body>" in text:
        text = text.replace("</body>", section + "</body>", 1)
    else:
        text += section
    if "live" in result and not html:
        from infact.results.live.analysis import render_markdown as live_markdown

        text += "\n" + live_markdown(result["live"])
        if result["live"].get("simulated_vs_human"):  # simulated participants, apart (docs/llm.md)
            from infact.results.live.simulated import render_markdown as simulated_markdown

            text += "\n" + simulated_markdown(result["live"]["simulated_vs_human"])
    return text


def judges_section(result: dict, html: bool = False) -> str:
    """The judges' table for a ratings report ('' when no judge was compared)."""
    if not result.get("judges"):
        return ""
    from infact.results.reports.preferences import render_judges

    text = "\n" + render_judges(result["judges"]) + alignment_section(result)
    return _pre(text) if html else text


def alignment_section(result: dict) -> str:
    """The judges' alignment report (docs/llm.md), '' when no judge was compared."""
    if not result.get("judge_alignment"):
        return ""
    from infact.results.judges.alignment_report import render_markdown

    return "\n" + render_markdown(result["judge_alignment"], result.get("judge_coverage"))


def _pre(markdown: str) -> str:
    # Preference reports are tables of numbers; preformatted Markdown keeps every one readable.
    import html

    return f'<pre style="font-family:ui-monospace,monospace">{html.escape(markdown)}</pre>\n'
