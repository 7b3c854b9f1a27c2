"""Markdown for preference results (rankings, win rates, sign tests) and for judges."""

from __future__ import annotations

from infact.results.reports.ledger_report import ledger_lines


def _f(x, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _p(p) -> str:
    return "–" if p is None else ("< 0.001" if p < 0.001 else f"{p:.3f}")


def _table(ranking: list[dict]) -> list[str]:
    rows = ["| rank | system | strength (log) | 95% CI | rank range | decisive votes |", "|---|---|---|---|---|---|"]
    for r in ranking:
        lo, hi = r["ci95"]
        rows.append(
            f"| {r['rank']} | {r['system']} | {_f(r['strength'])} | [{_f(lo)}, {_f(hi)}] | "
            f"{r['rank_range'][0]}–{r['rank_range'][1]} | {r.get('n_decisive', '–')} |"
        )
    return rows


def ranking_rows(ranking: list[dict], min_votes: int | None = None) -> list[str]:
    """The ranking table of established systems, then the provisional ones apart (ranks are of the joint fit)."""
    later = [r for r in ranking if r.get("provisional")]
    if len(later) == len(ranking):
        return [
            f"Every system is provisional (fewer than {min_votes} decisive votes each): read this order as "
            "preliminary.",
            "",
        ] + _table(ranking)
    rows = _table([r for r in ranking if not r.get("provisional")])
    if later:
        rows += [
            "",
            f"Provisional (fewer than {min_votes} decisive votes; their votes are counted in the fit, "
            "but they are left out of 'settled' and of the fragility of the top):",
            "",
        ] + _table(later)
    return rows


def balance_lines(b: dict | None) -> list[str]:
    if not b:
        return []
    parts = [
        f"{name}: largest / smallest count {b[name]['largest']} / {b[name]['smallest']}"
        + (f" = {b[name]['ratio']:.1f}" if b[name]["ratio"] else "")
        for name in ("pairs", "situations", "systems")
        if b.get(name) and b[name]["n"]
    ]
    never = b.get("pairs_never_compared") or []
    return [
        f"Sampling balance — {'; '.join(parts)}" + (f"; {len(never)} pair(s) never compared" if never else "") + ".",
        "",
    ]


def both_bad_lines(rates: list[dict] | None) -> list[str]:
    """Per system, the share of its votes found "both bad" (ties in the fit, counted apart; docs/ranking.md)."""
    if not rates:
        return []
    lines = ["", "Both bad (counted as ties in the fit): share of each system's votes, Wilson interval", ""]
    lines += ["| system | both bad | votes | rate | interval |", "|---|---|---|---|---|"]
    return lines + [
        f"| {r['system']} | {r['n_both_bad']} | {r['n_votes']} | {r['rate']:.0%} | "
        f"[{r['ci'][0]:.0%}, {r['ci'][1]:.0%}] |"
        for r in rates
    ]


def integrity_lines(check: dict | None, min_votes: int | None = None) -> list[str]:
    """Votes flagged by the integrity checks, by reason, and the ranking without them (docs/ranking.md)."""
    if not check or not check["n_flagged"]:
        return []
    reasons = ", ".join(f"{n} {r}" for r, n in check["reasons"].items() if n)
    lines = ["", f"Vote integrity: {check['n_flagged']} vote(s) flagged ({reasons}; repeat cap {check['repeat_cap']}"]
    lines[-1] += f", minimum {check['min_seconds']} s)." if check.get("min_seconds") else ")."
    without = check.get("without_flagged")
    if without:
        moved = "the order changes" if check["order_changed"] else "the order is the same"
        lines += ["", f"Without them ({without['n_votes']} votes; {moved}):", ""]
        lines += ranking_rows(without["ranking"], min_votes)
    return lines


def _best_worst_lines(res: dict) -> list[str]:
    """A best–worst ranking: counting scores, the implied pairs' ranking and the ledger of the systems shown."""
    lines = [
        f"{res['n_choices']} best–worst choices by {res['n_participants']} participants.",
        "",
        "| system | best − worst per showing | 95% CI | shown | best | worst |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {s['system']} | {_f(s['score'])} | [{_f(s['ci95'][0])}, {_f(s['ci95'][1])}] | {s['n_shown']} | "
        f"{s['n_best']} | {s['n_worst']} |"
        for s in res["scores"]
    ]
    lines += ["", "Bradley–Terry on the pairs the choices imply:", ""] + ranking_rows(
        res["ranking"], res.get("min_votes")
    )
    lines += ledger_lines(res.get("ledger"))  # one place per system a choice showed
    return lines


def _one(res: dict) -> list[str]:
    title = f"## Criterion: {res['criterion']}" if res.get("criterion") else "## Ranking"
    lines = [title, ""]
    if res["kind"] == "best_worst":
        lines += _best_worst_lines(res)
    else:
        lines += [
            f"{res['n_votes']} votes by {res['n_participants']} participants, {res['n_ties']} ties"
            + (f", {res['n_both_bad']} both bad" if res.get("n_both_bad") else "")
            + "; "
            f"Davidson tie parameter ν = {_f(res['tie_parameter'])}.",
            "",
        ] + balance_lines(res.get("balance"))
        lines += ranking_rows(res["ranking"], res.get("min_votes"))
        lines += both_bad_lines(res.get("both_bad")) + integrity_lines(res.get("integrity"), res.get("min_votes"))
        lines += ledger_lines(res.get("ledger"))
        if res.get("style_controlled"):
            sc = res["style_controlled"]
            coefs = ", ".join(
                f"{k} {_f(v['coefficient'])} [{_f(v['ci95'][0])}, {_f(v['ci95'][1])}]"
                for k, v in sc["covariates"].items()
            )
            lines += ["", f"Style-controlled (coefficients per SD: {coefs}):", ""] + ranking_rows(
                sc["ranking"], res.get("min_votes")
            )
        if res.get("reweighted"):
            lines += [
                "",
                "Pairs reweighted inversely to how often they were compared (each compared pair weighs "
                "the same; LMArena's reweighting):",
                "",
            ] + ranking_rows(res["reweighted"]["ranking"], res.get("min_votes"))
        lines += ["", "| a | b | a preferred | b preferred | p (sign) | p (Holm) |", "|---|---|---|---|---|---|"]
        lines += [
            f"| {t['a']} | {t['b']} | {t['prefer_a']} | {t['prefer_b']} | {_p(t['p'])} | {_p(t['p_holm'])} |"
            for t in res["pairwise"]
        ]
    settled = res["settled"]["settled"]
    scope = " (provisional systems left out)" if res["settled"].get("provisional") else ""
    lines += [
        "",
        f"At this sample size the ranking is settled{scope}: every two adjacent ranks' intervals are separated "
        "(fixed-sample intervals: valid for a number of votes fixed in advance)."
        if settled
        else f"At this sample size the ranking is not settled{scope}: some adjacent ranks' intervals overlap "
        "(fixed-sample intervals: valid for a number of votes fixed in advance).",
        *monitoring_lines(res.get("monitoring")),
        "",
    ]
    return lines + fragility_lines(res.get("fragility")) + condition_lines(res.get("conditions"))


def condition_lines(c: dict | None) -> list[str]:
    """A between-subjects study: each condition's ranking and the condition × system test (ranking/conditions.py)."""
    if not c:
        return []
    lines = ["### Per condition", ""]
    for name, v in c["conditions"].items():
        lines += [f"Condition **{name}**: {v['n_votes']} votes by {v['n_participants']} participants.", ""]
        lines += _table(v["ranking"]) + [""]
    test = c["interaction_test"]
    systems = ", ".join(c["systems"])
    if "error" in test:
        lines += [f"Condition × system: not tested ({test['error']}).", ""]
    else:
        lines += [
            f"Condition × system (do the conditions change the systems' differences? {systems}; reference "
            f"{c['reference_system']}): Wald F = {_f(test['F'])} on {test['df']} and {test['df_denominator']} df, "
            f"p = {_p(test['p'])}.",
            "",
        ]
    return lines


def monitoring_lines(mon: dict | None) -> list[str]:
    """The anytime-valid verdict (results/monitoring/): what a study watched while it ran may rely on."""
    if not mon:
        return []
    unit = "participants" if "settled_at_participants" in mon else "votes"
    at = mon.get(f"settled_at_{unit}")
    verdict = (
        f"settled: {' > '.join(mon['order'])}"
        if mon["settled"]
        else ("not settled" + (f" (it was at {at} {unit}, then reopened)" if at else ""))
    )
    first = f"; first settled at {at} of {mon[f'n_{unit}']} {unit}" if mon["settled"] and at else ""
    return [
        "",
        f"Watched as it ran (anytime-valid confidence sequences, {mon['confidence']:.0%}): {verdict}{first}. "
        "These stay valid however often the dashboard was looked at, so a study stopped when they settled may rely "
        "on them.",
    ]


def _names(xs, most: int = 12) -> str:
    if xs is None:
        return "none found"
    shown = ", ".join(str(x) for x in xs[:most])
    return shown + (f", … ({len(xs)} in all)" if len(xs) > most else "")


def fragility_lines(frag: dict | None) -> list[str]:
    """The fragility section: the top in words, the named votes and participants, then every adjacent order."""
    if not frag:
        return []
    from infact.results.ranking.fragility import in_words

    t = frag["top"]
    lines = [
        "### Fragility: how few votes or participants decide the order",
        "",
        in_words(frag),
        "",
        f"- votes (line numbers in the input file): {_names(t['votes'])} — {t['method']['votes']['description']}",
        f"- participants: {_names(t['participants'])} — {t['method']['participants']['description']}",
        "",
        "| higher | lower | votes whose removal swaps them | participants | search (votes / participants) |",
        "|---|---|---|---|---|",
    ]
    for a in frag["adjacent"]:
        nv = "–" if a["n_votes"] is None else f"{a['n_votes']} ({a['share_votes']:.1%})"
        npp = "–" if a["n_participants"] is None else f"{a['n_participants']} ({a['share_participants']:.1%})"
        lines.append(
            f"| {a['higher']} | {a['lower']} | {nv} | {npp} | "
            f"{a['method']['votes']['search']} / {a['method']['participants']['search']} |"
        )
    return lines + [""]


def render_markdown(result: dict) -> str:
    lines = [
        "# Preference analysis" + (" (ratings read as pairwise preferences)" if result.get("as_pairwise") else ""),
        "",
    ]
    for res in result["criteria"].values() if "criteria" in result else [result]:
        lines += _one(res)
    text = "\n".join(lines)
    return text + ("\n" + render_judges(result["judges"]) if result.get("judges") else "")


def render_judges(judges: dict) -> str:
    lines = [
        "## Automatic judges beside the humans",
        "",
        "| judge | items | Kendall τ (systems) | Spearman (items) | α with humans | α humans only "
        "| position bias | length bias |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, j in judges.items():
        lines.append(
            f"| {name} | {j['n_items']} | {_f(j['kendall_tau_systems'])} | {_f(j['spearman_items'])} | "
            f"{_f(j['krippendorff_alpha_with_humans'])} | {_f(j['krippendorff_alpha_humans'])} | "
            f"{_f(j['position_bias'])} | {_f(j['length_bias'])} |"
        )
    return "\n".join(lines) + "\n"
