"""The analysis, library first: `analyze` (infact/cli/analyze.py) and the dashboard call it with objects.

- `analysis_of(table, options, source, kind)`: a table in memory, analysed as its declared kind (`kind`, else
  the kind its file name declares; infact/results/kinds.py), with every automatic judge compared with the humans;
- `analyze_file(path, options, kind)`: an exported table read back through its declaration (ratings.csv,
  pairwise.csv, best_worst.csv, annotations.csv, a new kind's), or live-chat transcripts (transcripts.jsonl);
- `analyze_study(study, storage, options, kind=...)`: a loaded study's table read from its store, once
  (`analyze_results` takes the results already read), with its live chats and simulated participants.

Each returns an `Analysis(kind, result, table)`: `result` is the JSON-ready dict (`analyze --json`);
`render(fmt)` is the report its kind writes (the kind's `report` hook, infact/results/reports/analyses.py) and
`report(fmt)` the written report (with the methods paragraph and, for a study, its datasheet). An option the
analysis cannot use raises `OptionError` naming the option (`n_boot`); the CLI names its flag (`--n-boot`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import pandas as pd

from infact.errors import InfactError, OptionError, Problem
from infact.results import kinds
from infact.results.tables.comparisons import STYLE_COVARIATES
from infact.stats import N_BOOT
from infact.values import bool_column, json_ready

if TYPE_CHECKING:
    from infact.results.study_results import StudyResults
    from infact.storage import Storage
    from infact.study.loader import Study


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
            raise OptionError(
                "n_boot", f"{self.n_boot} replicates give no stable interval; use 100 or more (default {N_BOOT})."
            )
        if not 0.5 <= self.confidence < 1:
            raise OptionError("confidence", f"{self.confidence} is not a confidence level; use e.g. 0.95.")
        if not 0.5 <= self.anomaly_quantile < 1:
            raise OptionError(
                "anomaly_quantile", f"{self.anomaly_quantile} is not a quantile to flag above; use e.g. 0.99."
            )
        if self.repeat_cap < 1:
            raise OptionError("repeat_cap", f"{self.repeat_cap} would flag every vote; give 1 or more.")
        if self.min_votes is not None and self.min_votes < 0:
            raise OptionError("min_votes", f"{self.min_votes} is negative; give 0 (nothing provisional) or more.")
        unknown = [c for c in self.covariates if c not in STYLE_COVARIATES]
        if unknown:
            raise OptionError(
                "covariates",
                f"unknown covariate {unknown[0]!r}; choose from "
                f"{', '.join(STYLE_COVARIATES)}, e.g. {{covariates}} length,items.",
            )


@dataclass(frozen=True, eq=False)
class Analysis:
    """One analysis: its result, the kind whose analysis made it (and whose `report` writes it), the analysed
    table (bot participants left out unless asked: the HTML report's charts) and, for a study, its results as
    read (the written report's datasheet)."""

    kind: Any  # kinds.KindResults, or anything with a `report` hook (TRANSCRIPTS)
    result: dict
    table: pd.DataFrame | None = None
    results: StudyResults | None = None

    @classmethod
    def of(cls, kind: str, result: dict, table: pd.DataFrame | None = None) -> Analysis:
        """A result already computed (the dashboard's), reported as the kind named `kind` reports it."""
        return cls(kinds.for_table(kind), result, table)

    def render(self, fmt: str = "md") -> str:
        """The report: Markdown (`md`) or a standalone HTML page (`html`), as the kind writes it; a study's
        live chats (Markdown); how many bot participants were left out."""
        from infact.results.reports import analyses

        text = (self.kind.report or analyses.table_report)(self.result, fmt, self.table)
        if fmt == "md" and self.results is not None and "live" in self.result:
            text += _live_section(self.result["live"])
        return analyses.with_bots_note(text, self.result, fmt)

    def report(self, fmt: str = "md") -> str:
        """The written report (`analyze --report`): `render(fmt)`, the methods paragraph and a study's datasheet."""
        from infact.results.reports import analyses
        from infact.results.reports.datasheet import datasheet

        sheet = datasheet(self.results) if self.results is not None else None
        return analyses.with_methods(self.render(fmt), self.result, sheet, fmt)


def _live_section(live: dict) -> str:
    from infact.results.live.analysis import render_markdown as live_markdown

    text = "\n" + live_markdown(live)
    if live.get("simulated_vs_human"):  # simulated participants, apart (docs/llm.md)
        from infact.results.live.simulated import render_markdown as simulated_markdown

        text += "\n" + simulated_markdown(live["simulated_vs_human"])
    return text


def _transcripts_report(result: dict, fmt: str = "md", table: pd.DataFrame | None = None) -> str:
    from infact.results.live.analysis import render_markdown

    return render_markdown(result["live"])


# Live-chat transcripts are no table kind: what reports their analysis (`analyze transcripts.jsonl`).
TRANSCRIPTS = SimpleNamespace(name="transcripts", report=_transcripts_report)


def analysis_of(
    table: pd.DataFrame,
    options: Options = Options(),
    source: str = "ratings.csv",
    kind: str | None = None,
    *,
    study: Study | None = None,
) -> Analysis:
    """The analysis of one exported table, as its declared kind: `kind` (a table's name, `analyze --kind`),
    else the kind the file's name `source` declares (infact/results/kinds.py). `study`: the study the table is
    from (its situations give the judges' features)."""
    options.check()
    table_kind = kinds.for_file(source, kind)
    _check_kind_options(table_kind, options)
    df, bots = without_bot_rows(table, options.include_bots, source)
    result = table_kind.analysis(df, options, source)
    if bots:
        result["bots_left_out"] = bots
    if options.extra.get("label_models") and "label_models" not in result:  # only a kind of ratings fits them
        raise OptionError("label_models", "the label models take a ratings table (ratings.csv).")
    if options.judges and "judges" not in result:  # a kind's analysis may compare its own judges (annotations)
        result.update(judged(df, table_kind.name, options, study))
    return Analysis(table_kind, result, df)


def analyze_table(
    df: pd.DataFrame, options: Options = Options(), source: str = "ratings.csv", kind: str | None = None
) -> dict:
    """`analysis_of(...).result`: the result alone (the dashboard's figures)."""
    return analysis_of(df, options, source, kind).result


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
        raise OptionError(
            "include_bots",
            f"every participant here is a bot ({bots}, played by `infact bots`): their answers show only the "
            "quality the bots were told to plant, not what people think. Pass {include_bots} to analyse "
            "them anyway (e.g. to try the analysis out before the study starts).",
            key="bot",
            file=source,
        )
    return df[~is_bot], bots


# The options a kind's analysis takes on its own (its `options`, infact/hookspecs.py): what each is.
KIND_OPTIONS = {"covariates": "style control", "reweight": "reweighting pairs"}


def _check_kind_options(table_kind, options: Options) -> None:
    """An option only some kinds' analyses take, given for a table of another kind: say which tables take it."""
    for name, what in KIND_OPTIONS.items():
        if getattr(options, name) and name not in table_kind.options:
            takers = [k.schema.file for k in kinds.kinds() if name in k.options]
            raise OptionError(name, f"{what} needs a table of a kind that takes it ({', '.join(takers)}).")


def judged(df: pd.DataFrame, kind: str, options: Options, study: Study | None = None) -> dict:
    """The judges' agreement with the humans and their alignment report (`analyze --judge`)."""
    from infact.results.judges.agreement import parse_judge_option
    from infact.results.judges.alignment_report import judge_coverage

    named = [parse_judge_option(v) for v in options.judges]
    features, situation_features = _judge_inputs(options.responses, study)
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
            situation_features=situation_features,
            alt_epsilon=options.extra.get("alt_epsilon"),
        ),
        "judge_coverage": {name: judge_coverage(path) for name, path in named},
    }


def _judge_inputs(responses: str | None, study: Study | None) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    """(the responses' features, for the judges' length bias; the situations' features, for their alignment):
    from `responses` (a study folder or a situations file) when given, else the analysed study's situations
    (for the alignment only). The study analysed, given again as `responses`, is not read again."""
    from infact.results.judges.alignment_report import situation_features, situation_features_from_path
    from infact.results.ranking.features import features_from_path, response_features

    if responses and study is not None and Path(responses).resolve() == Path(study.folder).resolve():
        attention = [study.attention_situation] if study.attention_situation else []
        return response_features([*study.situations, *attention]), situation_features(study.situations)
    if responses:
        return features_from_path(responses), situation_features_from_path(responses)
    return None, (situation_features(study.situations) if study is not None else None)


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
        raise OptionError("judges", f"judges are compared with {judged}, not a {kind} table.")
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
    compared = agreement.compare_files(data, shape, list(judges), criterion, features)
    return json_ready(compared)


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
    aligned = align_files(data, shape, list(judges), criterion, features=features, **kw, **extra)
    return json_ready(aligned)


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


def analyze_file(path: str | Path, options: Options = Options(), kind: str | None = None) -> Analysis:
    """`analyze FILE`: an exported table analysed as its declared kind (`kind`, else its file's name), or live-chat
    transcripts (a .jsonl file: per-system satisfaction, acceptance, latency, failures; docs/live.md)."""
    if Path(path).suffix.lower() == ".jsonl":
        from infact.chat.transcripts import read_transcripts
        from infact.results.live.analysis import live_summary

        return Analysis(TRANSCRIPTS, {"source": str(path), "live": live_summary(read_transcripts(path))})
    return analysis_of(read_table(path, kind), options, str(path), kind)


def analyze_study(
    study: Study, storage: Storage, options: Options = Options(), *, kind: str | None = None, source: str = ""
) -> Analysis:
    """`analyze --study DIR`: the loaded `study`'s table read from `storage` (an open store), once, and analysed
    by `analyze_results`; `source` names them in the result and its errors (default: the study's folder)."""
    from infact.results.study_results import open_results

    results = open_results(study, storage, include_bots=options.include_bots)
    return analyze_results(results, options, kind=kind, source=source)


def analyze_results(
    results: StudyResults, options: Options = Options(), *, kind: str | None = None, source: str = ""
) -> Analysis:
    """A study's results as read (infact/results/study_results.py): its table analysed as its kind (`kind`, else
    votes, choices or annotations before ratings), with the study's stopping rule, its live chats when it has
    any and its simulated participants beside the humans; bot participants left out unless asked."""
    source = source or f"{results.study.folder} (store)"
    if not options.include_bots:
        results = results.without_bots()
        if results.bots and not any(r.get("participant") not in results.bots for r in _participant_records(results)):
            raise OptionError(
                "include_bots",
                f"every participant in this store is a bot ({len(results.bots)}, played by `infact bots`): "
                "their answers show only the quality the bots were told to plant. Pass {include_bots} to "
                "analyse them anyway (a try-out before the study starts).",
                key="bot",
                file=source,
            )
    table = results.main_table(kind)
    # what only the study knows: its minimum reading time, live openings and design (vote integrity, the ledger)
    options = replace(options, extra={**options.extra, **_integrity_inputs(results)})
    analysis = analysis_of(table.frame, options, source, kind=table.kind.name, study=results.study)
    result = analysis.result
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
    return replace(analysis, table=table.frame, results=results)


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
