"""The one analysis entry point: `analyze` (the CLI) and the dashboard both call these functions.

`analyze_table` takes any table a study exports — ratings.csv, pairwise.csv, best_worst.csv,
annotations.csv, a new kind's — and runs its kind's analysis (infact/results/kinds.py: ratings:
bootstrap intervals, Friedman, Wilcoxon, mixed model, agreement; preferences: Bradley–Terry–Davidson
ranking, win rates, fragility where available), with every automatic judge compared with the humans.
The kind is the table's declared one (its file name, or `kind`), never guessed from its columns.
`analyze_study` reads the same table straight from a study's store and adds the live chats. `render`
turns a result into the Markdown or HTML report. The CLI (infact/cli/analyze.py) only parses arguments into `Options`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from infact.errors import InfactError, Problem
from infact.results import kinds
from infact.results.tables.comparisons import STYLE_COVARIATES
from infact.stats import N_BOOT
from infact.values import bool_column, json_ready


@dataclass(frozen=True)
class Options:
    """How to analyse; the defaults are `analyze`'s (docs/analysis.md, docs/ranking.md)."""

    criterion: str | None = None
    include_flagged: bool = False
    include_bots: bool = False  # bot participants (`infact bots`, the `bot` column) are left out unless asked
    mixed_model: bool = True
    ordinal_model: bool | None = None  # ratings' ordinal model (None: fitted with the mixed model)
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
    anomaly_max_participants: int | None = 500  # pairwise: above this, the anomaly score is skipped (0/None: never)
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


def analyze_table(
    df: pd.DataFrame, options: Options = Options(), source: str = "ratings.csv", kind: str | None = None
) -> dict:
    """The full result for one exported table, analysed as its declared kind: `kind` (a table's name,
    `analyze --kind`), else the kind the file's name declares (infact/results/kinds.py)."""
    options.check()
    table_kind = kinds.for_file(source, kind)
    _check_kind_options(table_kind, options)
    df, bots = without_bot_rows(df, options.include_bots, source)
    result = table_kind.analysis(df, options, source)
    if bots:
        result["bots_left_out"] = bots
    if options.extra.get("label_models") and "label_models" not in result:  # only a kind of ratings fits them
        raise InfactError(Problem("--label-models", "the label models take a ratings table (ratings.csv)."))
    if options.judges and "judges" not in result:  # a kind's analysis may compare its own judges (annotations)
        result.update(judged(df, table_kind.name, options))
    return result


def without_bot_rows(df: pd.DataFrame, include_bots: bool, source: str) -> tuple[pd.DataFrame, int]:
    """(the table without the bot participants' rows unless `include_bots`, how many bots were left out); a
    table of bots only is refused with what to do: bots are not people, their numbers are what was planted."""
    if include_bots or "bot" not in df.columns or df.empty:
        return df, 0
    is_bot = bool_column(df["bot"])
    if not is_bot.any():
        return df, 0
    bots = int(df.loc[is_bot, "participant"].nunique()) if "participant" in df.columns else int(is_bot.sum())
    if is_bot.all():
        raise InfactError(
            Problem(
                source,
                f"every participant here is a bot ({bots}, played by `infact bots`): their answers show only the "
                "quality the bots were told to plant, not what people think. Pass --include-bots to analyse "
                "them anyway (e.g. to try the analysis out before the study starts).",
                key="bot",
            )
        )
    return df[~is_bot], bots


# The options a kind's analysis takes on its own (its `options`, infact/hookspecs.py): what each is.
KIND_OPTIONS = {"covariates": "style control", "reweight": "reweighting pairs"}


def _check_kind_options(table_kind, options: Options) -> None:
    """An option only some kinds' analyses take, given for a table of another kind: say which tables take it."""
    for name, what in KIND_OPTIONS.items():
        if getattr(options, name) and name not in table_kind.options:
            takers = [k.schema.file for k in kinds.kinds() if name in k.options]
            flag = "--" + name.replace("_", "-")
            raise InfactError(Problem(flag, f"{what} needs a table of a kind that takes it ({', '.join(takers)})."))


def judged(df: pd.DataFrame, kind: str, options: Options) -> dict:
    """The judges' agreement with the humans and their alignment report (`analyze --judge`)."""
    from infact.results.judges.agreement import parse_judge_option
    from infact.results.judges.alignment_report import judge_coverage, situation_features_from_path

    named = [parse_judge_option(v) for v in options.judges]
    features = _features(options.responses)
    where = options.responses or options.extra.get("study")
    humans = judge_humans(df, kind, options.criterion, options.include_flagged)
    return {
        "judges": compare_judges(humans, kind, named, options.criterion, features=features),
        "judge_alignment": align_judges(
            humans,
            kind,
            named,
            options.criterion,
            features=features,
            n_boot=min(options.n_boot, 500),
            seed=options.seed,
            situation_features=situation_features_from_path(where) if where else None,
            alt_epsilon=options.extra.get("alt_epsilon"),
        ),
        "judge_coverage": {name: judge_coverage(path) for name, path in named},
    }


def judge_humans(humans: pd.DataFrame, kind: str, criterion: str | None, include_flagged: bool) -> pd.DataFrame:
    """The human answers a judge is compared with: prepared as their kind prepares them for a comparison (its
    `prepare` hook, infact/hookspecs.py), one criterion."""
    data = _judged_kind(kind).aligned(humans, include_flagged)[0][0]
    if criterion and "criterion" in data.columns:
        data = data[data["criterion"].astype(str) == criterion]
    return data


def _judged_kind(kind: str) -> kinds.KindResults:
    """The kind of table `kind` names, when a judge file is compared with it (its `judged` hook); else an error
    naming the tables that are."""
    found = next((k for k in kinds.kinds() if k.name == kind.removesuffix(".csv")), None)
    if found is None or not (found.judged and found.compared):
        judged = " or ".join(k.schema.file for k in kinds.kinds() if k.judged and k.compared)
        raise InfactError(Problem("--judge", f"judges are compared with {judged}, not a {kind} table."))
    return found


def _judge_features(data: pd.DataFrame, kind: str, features: pd.DataFrame | None) -> pd.DataFrame | None:
    """The responses' features given, else those the kind's own table carries (pairwise.csv's lengths)."""
    own = _judged_kind(kind).judge_features
    return own(data) if features is None and own is not None else features


def compare_judges(
    data: pd.DataFrame,
    kind: str,
    judges: Sequence[tuple[str, Path]],
    criterion: str | None,
    *,
    features: pd.DataFrame | None = None,
) -> dict:
    """{judge name: its agreement with the humans} for the humans' answers prepared by `judge_humans` from a
    table of kind `kind` (ratings, pairwise: `analyze --judge`)."""
    from infact.results.judges import agreement

    features = _judge_features(data, kind, features)
    shape = _judged_kind(kind).compared_as
    return json_ready(agreement.compare_files(data, shape, list(judges), criterion, features))


def align_judges(
    data: pd.DataFrame,
    kind: str,
    judges: Sequence[tuple[str, Path]],
    criterion: str | None,
    *,
    features: pd.DataFrame | None = None,
    scale_points: int | None = None,
    **kw,
) -> dict:
    """{judge name: {criterion: alignment}}: may the judge stand in for the humans (docs/llm.md)."""
    from infact.results.judges.alignment_report import align_files

    extra = {"scale_points": scale_points} if scale_points else {}
    features = _judge_features(data, kind, features)
    shape = _judged_kind(kind).compared_as
    return json_ready(align_files(data, shape, list(judges), criterion, features=features, **kw, **extra))


def _features(responses: str | None) -> pd.DataFrame | None:
    if not responses:
        return None
    from infact.results.ranking.features import features_from_path

    return features_from_path(responses)


def read_table(path: str | Path, kind: str | None = None) -> pd.DataFrame:
    """An exported table read back through its declaration (text columns as text, required columns named);
    a clear error for a missing or unreadable file."""
    path = Path(path)
    if not path.is_file():
        raise InfactError(
            Problem(str(path), "file not found; pass the ratings.csv written by `python -m infact export`.")
        )
    try:
        return kinds.for_file(str(path), kind).schema.read(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InfactError(
            Problem(
                str(path),
                f"not a readable CSV ({type(exc).__name__}: {str(exc).strip()}); "
                "save it as UTF-8 comma-separated values with a header row.",
            )
        ) from None


def analyze_study(
    study_dir: str, db: str, options: Options = Options(), *, results=None, kind: str | None = None
) -> tuple[dict, pd.DataFrame]:
    """`analyze --study DIR`: the study's table analysed as its kind (votes, choices or annotations before
    ratings), with its live chats when it has any; the store is read once (infact/results/study_results.py)."""
    from infact.results.study_results import open_results

    results = results or open_results(study_dir, db, include_bots=options.include_bots)
    if not options.include_bots:
        results = results.without_bots()
        if results.bots and not any(r.get("participant") not in results.bots for r in _participant_records(results)):
            raise InfactError(
                Problem(
                    f"{study_dir} (store {db})",
                    f"every participant in this store is a bot ({len(results.bots)}, played by `infact bots`): "
                    "their answers show only the quality the bots were told to plant. Pass --include-bots to "
                    "analyse them anyway (a try-out before the study starts).",
                    key="bot",
                )
            )
    table = results.main_table(kind)
    options = Options(**{**options.__dict__, "extra": {**options.extra, **_integrity_inputs(results)}})
    if options.judges and not options.responses:  # the study's situations give the judges' features
        options = Options(**{**options.__dict__, "extra": {**options.extra, "study": study_dir}})
    result = analyze_table(table.frame, options, f"{study_dir} (store {db})", kind=table.kind.name)
    from infact.results.monitoring.stopping import stopping

    # the stopping rule declared in study.toml's [monitoring], and whether these data meet it
    result["stopping_rule"] = stopping(results.study.config.monitoring, result, int(result.get("n_participants") or 0))
    live = results.live_overview()
    if live is not None:
        result["live"] = live
    if not options.include_bots and results.bots:
        result["bots_left_out"] = len(results.bots)
    simulated = _simulated_alignment(results, options.include_flagged)
    if simulated:
        result["simulated_alignment"] = simulated
    return result, table.frame


def _participant_records(results) -> list[dict]:
    """The study's participants' records (no researcher records `_…`, no previews)."""
    return [
        r
        for r in results.records
        if not str(r.get("participant", "_")).startswith("_") and not r.get("preview") and r.get("kind") == "arrival"
    ]


def _simulated_alignment(results, include_flagged: bool) -> dict | None:
    """Simulated participants against the humans on the same items, as a judge's alignment (docs/llm.md); the
    store's records as read once, with the simulated participants kept in this time."""
    from infact.results.judges.simulators import simulated_participants, simulators_from_tables

    if not simulated_participants(results.records):
        return None
    tables = results.with_simulated().tables
    found = simulators_from_tables(results.study, results.records, tables, include_flagged)
    return json_ready(found) if found else None


def _integrity_inputs(results) -> dict:
    """The study's minimum reading time and, for live chats, each conversation's opening (vote integrity); its
    systems and pair scheduling (the ledger); [monitoring]'s declared maximum of participants (monitoring)."""
    from infact.results.ranking.integrity import openings_from_records
    from infact.results.ranking.ledger import design_of

    cfg = results.study.config
    out = {
        "min_vote_seconds": cfg.quality.min_situation_seconds,
        "design": {"systems": list(results.study.systems), "design": design_of(cfg)},  # the ledger's
        "max_participants": cfg.monitoring.max_participants,
    }
    if cfg.live.enabled:
        out["openings"] = openings_from_records(results.records)
    return out


def is_preferences(result: dict) -> bool:
    """True for a ranking of votes or choices (or of ratings read as preferences), False for rating statistics."""
    parts = [result, *result.get("criteria", {}).values()]
    return bool(result.get("as_pairwise")) or any(p.get("kind") in ("pairwise", "best_worst") for p in parts)


def render(result: dict, fmt: str = "md", table: pd.DataFrame | None = None) -> str:
    """The report of a result: Markdown (`md`) or a standalone HTML page (`html`, with charts for ratings); it
    says how many bot participants were left out."""
    text = _render(result, fmt, table)
    note = bots_note(result)
    if not note:
        return text
    if fmt == "md":
        return f"{text.rstrip()}\n\n{note}\n"
    from html import escape

    note = f"<p>{escape(note)}</p>"
    return text.replace("</body>", note + "</body>", 1) if "</body>" in text else text + note


def bots_note(result: dict) -> str:
    """The line a report gets when bot participants were left out of it."""
    n = result.get("bots_left_out")
    if not n:
        return ""
    return f"{n} bot participant(s) (`infact bots`) are left out of this analysis; --include-bots includes them."


def _render(result: dict, fmt: str = "md", table: pd.DataFrame | None = None) -> str:
    from infact.results.reports import preferences, report

    html = fmt != "md"
    if result.get("kind") == "annotations":
        from infact.results.conversations.analysis import render_markdown

        return render_markdown(result) + simulated_section(result)
    if is_preferences(result):
        text = preferences.render_markdown(result) + alignment_section(result) + simulated_section(result)
        if html:
            text = f'<!doctype html><meta charset="utf-8"><title>INFACT preference analysis</title>\n{_pre(text)}'
        return text
    text = report.render_markdown(result) if not html else report.render_html(result, table)
    section = judges_section(result, html=html)
    if result.get("label_models"):
        from infact.results.crowd.report import render_markdown as label_models_markdown

        section += (
            _pre(label_models_markdown(result["label_models"]))
            if html
            else label_models_markdown(result["label_models"])
        )
    if result.get("simulated_alignment"):
        section += _pre(simulated_section(result)) if html else simulated_section(result)
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


def simulated_section(result: dict) -> str:
    """Simulated participants vs the humans (docs/llm.md), '' when the study has none."""
    if not result.get("simulated_alignment"):
        return ""
    from infact.results.judges.simulators import render_markdown

    return "\n" + render_markdown(result["simulated_alignment"])


def alignment_section(result: dict) -> str:
    """The judges' alignment report (docs/llm.md), '' when no judge was compared."""
    if not result.get("judge_alignment"):
        return ""
    from infact.results.judges.alignment_report import render_markdown
    from infact.results.judges.alt_report import render_verdicts

    return (
        "\n"
        + render_markdown(result["judge_alignment"], result.get("judge_coverage"))
        + render_verdicts(result["judge_alignment"])
    )


def _pre(markdown: str) -> str:
    # Preference reports are tables of numbers; preformatted Markdown keeps every one readable.
    import html

    return f'<pre style="font-family:ui-monospace,monospace">{html.escape(markdown)}</pre>\n'
