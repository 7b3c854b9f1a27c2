"""A methods paragraph a paper can quote, written from the same facts as the datasheet and the analysis.

`methods_paragraph(result, sheet)` reads only what INFACT computed: N and exclusions from the
datasheet's evaluator counts (participants.csv and the funnel), the design from study.toml,
and the statistics from the analysis result (its bootstrap size, confidence, model). Without a
study (a CSV analysed on its own) the design sentence says so rather than guessing.
"""

from __future__ import annotations


def _field(sheet: dict, sec: str, fid: str):
    return next((f.get("value") for f in sheet["sections"][sec]["fields"] if f["id"] == fid), None)


def _people(sheet: dict | None, result: dict) -> str:
    if not sheet:
        return f"The analysis covers {result.get('n_participants')} participants."
    c = _field(sheet, "3.2", "3.2.1") or {}
    reasons = c.get("exclusion_reasons") or {}
    why = (
        f" (flags: {', '.join(f'{k} {v}' for k, v in reasons.items())}; a participant can carry several)"
        if reasons
        else ""
    )

    def were(n: int) -> str:
        return f"{n} {'was' if n == 1 else 'were'}"

    out = (
        f"{c.get('consented', 0)} participants consented and {c.get('completed', 0)} completed the study"
        f"{'; ' + were(c['screened_out']) + ' screened out' if c.get('screened_out') else ''}"
        f"{'; ' + str(c['withdrawn']) + ' withdrew' if c.get('withdrawn') else ''}. "
    )
    if "excluded" in c:
        out += (
            f"{c['excluded']} completed participants were excluded by the pre-set quality checks{why}, "
            f"leaving {c['included']}."
        )
    return out


def _design(sheet: dict | None) -> str:
    if not sheet:
        return "The study design is not recorded with this table (run analyze with --study for it)."
    design = _field(sheet, "3.3", "3.3.1") or {}
    per = _field(sheet, "3.3", "3.3.2") or {}
    systems = [s["name"] for s in (_field(sheet, "2", "2.5") or [])]
    crits = sheet["sections"]["4"]["criteria"]
    crit_text = "; ".join(
        f'"{c.get("question")}"'
        + (
            f" on a {len(c['scale'])}-point labelled scale ({' / '.join(c['scale'])})"
            if c.get("scale")
            else f" ({' / '.join(c.get('options', []))})"
        )
        for c in crits
    )
    checks = (_field(sheet, "3.3", "3.3.4") or {}).get("attention_check")
    pool = _field(sheet, "3.1", "3.1.1")
    return (
        f"Participants judged {len(systems)} systems ({', '.join(systems)}) by {design.get('description')}, "
        f"on {per.get('situations_per_participant')} situations each drawn from a pool of {pool} by a balanced "
        f"assignment (least-evaluated first, target {per.get('ratings_per_situation')} per situation), in "
        f"random order with the responses' order randomised. Question(s): {crit_text}."
        + (" One situation was an instructed-response attention check." if checks else "")
    )


def _statistics(result: dict) -> str:
    res = next(iter(result["criteria"].values())) if "criteria" in result else result
    boot = res.get("bootstrap") or {}
    n_boot, conf = boot.get("n_boot"), boot.get("confidence", 0.95)
    if res.get("kind") in ("pairwise", "best_worst"):
        text = (
            f"Systems were ranked by a Bradley–Terry model with Davidson ties, fitted by maximum likelihood; "
            f"{conf:.0%} intervals come from a participant-cluster bootstrap ({n_boot} replicates; valid for a sample "
            "size fixed in advance), and the ranking counts as settled when every two adjacent systems' intervals are "
            "separated."
        )
        if res.get("min_votes") is not None:
            text += (
                f" Systems with fewer than {res['min_votes']} decisive votes are reported as provisional and "
                "left out of that judgement."
            )
        if res.get("fragility"):
            text += (
                " Fragility is the smallest set of votes, and of participants, whose removal (refitted) changes "
                "the top system or an adjacent order."
            )
        return text
    return (
        f"Per-system mean ratings carry {conf:.0%} participant-cluster bootstrap intervals ({n_boot} replicates); "
        "systems were compared by a Friedman test on per-participant means and pairwise Wilcoxon signed-rank "
        "tests with Holm's correction"
        + (
            ", and a linear mixed model with crossed random intercepts for participant and situation"
            if res.get("mixed_model")
            else ""
        )
        + (
            "; ratings were also modelled as ordinal by a cumulative-link (logit) mixed model with the same random "
            "intercepts, fitted by the Laplace approximation as R's ordinal::clmm"
            if "effects" in (res.get("ordinal_model") or {})
            else ""
        )
        + "."
        + _conditions(res.get("conditions"))
    )


def _conditions(c: dict | None) -> str:
    """A between-subjects study's sentence (infact/results/ratings/conditions.py)."""
    if not c:
        return ""
    names = ", ".join(f"{n} ({v['n_participants']} participants)" for n, v in c["conditions"].items())
    return (
        f" Participants were randomly assigned at consent to one of {len(c['conditions'])} between-subjects "
        f"conditions, balanced by completed participants: {names}; condition and its interaction with system entered "
        "both models as fixed effects, tested by joint Wald tests."
    )


def _stopping(sheet: dict | None) -> str:
    """The stopping rule as declared in advance (datasheet 3.3.8), or that none was."""
    if not sheet:
        return ""
    rule = _field(sheet, "3.3", "3.3.8")
    if not rule:
        return "No stopping rule was declared in advance; the fixed-sample intervals above assume the sample size was."
    when = {
        True: "declared before the first participant started (study.toml unchanged since)",
        False: f"written in study.toml, which last changed on {rule['study_toml_last_changed']}, after the first "
        "participant started: it may not have been declared in advance",
        None: "declared in study.toml",
    }[rule["declared_in_advance"]]
    maximum = (rule.get("settings") or {}).get("max_participants")
    watched = (
        f"a finite-horizon boundary for the declared maximum of {maximum} participants (O'Brien–Fleming type for "
        "continuous monitoring, with participant-cluster variance), which stays valid however often it is looked at "
        "up to that maximum; answers beyond it settle nothing anew"
        if maximum
        else "anytime-valid confidence sequences (a linear boundary intersected with a normal mixture, Howard et al. "
        "2021, with participant-cluster variance), which stay valid however often they are looked at"
    )
    return f"The stopping rule was {when}: {rule['rule']}. The order was watched with {watched}."


def methods_paragraph(result: dict, sheet: dict | None = None) -> str:
    return " ".join(
        part
        for part in [
            _people(sheet, result),
            _design(sheet),
            _statistics(result),
            _stopping(sheet),
            "Analyses were run with INFACT (python -m infact analyze).",
        ]
        if part
    )


def report_section(result: dict, sheet: dict | None) -> str:
    """Markdown to append to a report: the methods paragraph and, with a study, the whole datasheet."""
    from infact.results.reports.datasheet import render_markdown

    text = "\n## Methods paragraph (quotable)\n\n" + methods_paragraph(result, sheet) + "\n"
    if sheet:
        text += (
            "\n"
            + "\n".join("#" + line if line.startswith("#") else line for line in render_markdown(sheet).splitlines())
            + "\n"
        )
    else:
        text += "\nNo datasheet: analyse with `--study DIR` to embed the study's HEDS 3.0 datasheet.\n"
    return text
