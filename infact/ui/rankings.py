"""Researcher views of rankings and automatic judges (issue 13), drawn on the dashboard."""

from __future__ import annotations

import streamlit as st

# A Davidson tie parameter this large says nearly every vote is a tie; a log-strength this far from 0 says a system
# won (or lost) every decisive vote, and the fit runs off towards infinity (separation). Healthy fits of the demos
# stay well inside both.
TIES_LIMIT = 10.0
STRENGTH_LIMIT = 4.0


def fit_problem(result: dict) -> str | None:
    """What is wrong with a degenerate fit, in words (None when the fit is usable): too few decisive votes,
    or separation. Read from the fit itself, so numbers that mean nothing are never shown as a result."""
    rows = result.get("ranking") or []
    n_votes, n_ties = result.get("n_votes"), result.get("n_ties")
    if result.get("tie_parameter", 0.0) > TIES_LIMIT and n_votes is not None:
        return (
            f"Too few decisive votes to rank the systems: {n_votes - (n_ties or 0)} of {n_votes} votes are not "
            "ties, so the fit cannot tell the systems apart. Strengths are shown once more votes pick a side."
        )
    won = [r["system"] for r in rows if r["strength"] > STRENGTH_LIMIT]
    lost = [r["system"] for r in rows if r["strength"] < -STRENGTH_LIMIT]
    if won or lost:
        parts = [f"{', '.join(won)} won every decisive vote against some system"] if won else []
        parts += [f"{', '.join(lost)} lost every decisive vote against some system"] if lost else []
        return (
            "The votes separate the systems completely (" + "; ".join(parts) + "), so their strengths have no "
            "finite estimate. Strengths are shown once the votes overlap: more votes, or votes between other pairs."
        )
    return None


def _show_degenerate(problem: str, result: dict, key: str) -> None:
    st.warning(problem, icon="⚠️")
    st.dataframe(
        [{"system": r["system"], "decisive votes": r.get("n_decisive")} for r in result["ranking"]],
        hide_index=True,
        key=f"{key}degenerate_table",
    )
    if result.get("n_votes") is not None:
        st.caption(f"{result['n_votes']} votes by {result.get('n_participants')} participants.")
    from infact.results.dashboard.ranking import win_rate_matrix

    matrix = win_rate_matrix(result)  # counted from the votes, not from the fit: still true when the fit is not
    if matrix is not None:
        st.caption("Win rates as voted (row beats column; ties count ½): no model estimate behind them.")
        st.dataframe(matrix.style.format("{:.0%}", na_rep="–"), key=f"{key}degenerate_win_rates")


def show_ranking(result: dict | None, confidence: float, key: str = "") -> None:
    """Dashboard: is the ranking settled, strengths with intervals, the win-rate matrix
    (infact/results/dashboard/ranking.py)."""
    from infact.results.dashboard.ranking import strength_chart, win_rate_matrix

    if result is None:
        st.info("No votes yet.")
        return
    if "error" in result:
        st.error(result["error"])
        return
    if (problem := fit_problem(result)) is not None:
        _show_degenerate(problem, result, key)
        return
    show_settled(result, confidence)
    st.altair_chart(strength_chart(result), use_container_width=True, key=f"{key}strength_chart")
    table = _ranking_rows(result)
    st.dataframe([r for r in table if not r["provisional"]], hide_index=True, key=f"{key}ranking_table")
    later = [r for r in table if r["provisional"]]
    if later:
        st.caption(
            f"Provisional: fewer than {result.get('min_votes')} decisive votes (docs/ranking.md). Their votes "
            "count in the fit, but 'settled' and the fragility of the top leave them out."
        )
        st.dataframe(later, hide_index=True, key=f"{key}provisional_table")
    _show_both_bad(result.get("both_bad"), key)
    _show_integrity(result, key)
    matrix = win_rate_matrix(result)
    if matrix is not None:
        st.caption(
            f"Win rates (row beats column; ties count ½) from {result['n_votes']} votes by "
            f"{result['n_participants']} participants; Davidson tie parameter {result['tie_parameter']:.2f}."
        )
        st.dataframe(matrix.style.format("{:.0%}", na_rep="–"), key=f"{key}win_rate_matrix")
        from infact.results.reports.preferences import balance_lines

        st.caption(" ".join(balance_lines(result.get("balance"))))
    else:
        st.dataframe(result["scores"], hide_index=True, key=f"{key}best_worst_scores")
    _show_fragility(result.get("fragility"), key)
    _show_ledger(result.get("ledger"), key)


def show_conditions(result: dict | None, key: str = "") -> None:
    """A between-subjects study: each condition's ranking and the condition × system test (infact/results/ranking/
    conditions.py): do the conditions change which system is preferred?"""
    c = (result or {}).get("conditions")
    if not c:
        return
    st.subheader("Ranking per condition")
    test = c["interaction_test"]
    if "error" in test:
        st.caption(f"Condition × system: not tested ({test['error']}).")
    else:
        p = "< 0.001" if test["p"] < 0.001 else f"{test['p']:.3f}"
        st.caption(
            f"Condition × system (do the conditions change the systems' differences? {', '.join(c['systems'])}): "
            f"Wald F = {test['F']:.2f} on {test['df']} and {test['df_denominator']} df, p = {p}. Each condition's "
            "strengths come from its own participants' votes, with participant-bootstrap intervals."
        )
    rows = [
        {
            "condition": name,
            "votes": v["n_votes"],
            "participants": v["n_participants"],
            "rank": r["rank"],
            "system": r["system"],
            "strength": round(r["strength"], 2),
            "interval": f"[{r['ci95'][0]:.2f}, {r['ci95'][1]:.2f}]",
        }
        for name, v in c["conditions"].items()
        for r in v["ranking"]
    ]
    st.dataframe(rows, hide_index=True, key=f"{key}condition_rankings")


def show_settled(result: dict, confidence: float) -> None:
    """Is the order settled? From the anytime-valid sequences (`monitoring`, results/monitoring/): the page is
    watched, so only intervals valid at every look may say "stop". Without them (an old result): the fixed-sample
    check, labelled as such."""
    level = f"{confidence:.0%}"
    mon = result.get("monitoring")
    if mon is None:
        state = "separated" if result["settled"]["settled"] else "not all separated"
        st.info(f"Adjacent ranks {state} at {level} (fixed-sample intervals: valid at a sample size fixed in advance).")
        return
    st.markdown(settled_text(mon, level))
    watched = (
        f"These intervals are made to be watched up to the declared maximum of {mon['maximum']} participants: until "
        f"then they stay valid at {level} however often this page refreshes, and answers beyond it settle nothing anew"
        if mon.get("maximum")
        else f"These intervals are made to be watched: they stay valid at {level} however often this page refreshes"
    )
    st.caption(
        f"{watched}, so stopping the first time it says settled is safe. The strengths' intervals below are "
        "fixed-sample intervals, valid only at a number of votes fixed in advance: do not stop recruiting on them."
    )


def show_stopping(rule, result: dict | None) -> None:
    """The stopping rule declared in study.toml `[monitoring]`, and whether these answers meet it."""
    from infact.results.monitoring.stopping import stopping

    if not rule.declared or not result or "error" in result:
        return
    state = stopping(rule, result, int(result.get("n_participants") or 0))
    if state["met"]:
        st.success(
            f"**The stopping rule is met:** {'; '.join(state['reasons'])}. Stop recruiting now: "
            "`infact prolific pause` pauses the Prolific study (once)."
        )
    else:
        st.caption(f"Stopping rule declared before the study: {state['rule']}. Not met yet.")


def settled_text(mon: dict, level: str) -> str:
    """The settled sentence in plain words (results/monitoring/sequences.py's section of one criterion)."""
    maximum = mon.get("maximum")  # participants declared in advance: the finite-horizon boundary
    if mon["settled"] and maximum:
        return (
            f"**The order is settled within the declared maximum of {maximum} participants: "
            f"{' > '.join(mon['order'])}.** Every two neighbours are separated at {level}, by intervals that allow "
            "watching up to that maximum."
        )
    if mon["settled"]:
        return (
            f"**The order is settled: {' > '.join(mon['order'])}.** Every two neighbours are separated "
            f"at {level}, by intervals that allow watching (anytime-valid)."
        )
    unit = "participants" if "settled_at_participants" in mon else "votes"
    if mon.get("settled_at_" + unit):
        return (
            f"**Not settled now.** It was settled at {mon['settled_at_' + unit]} {unit}, but a pair has "
            "come back together since: keep recruiting."
        )
    open_pairs = [f"{p['higher']} / {p['lower']}" for p in mon["pairs"] if not p["separated"]]
    if not mon["pairs"]:
        reason = "no two established systems have been compared yet (provisional systems are left out)"
    elif open_pairs:
        reason = f"{', '.join(open_pairs[:6])}{' …' if len(open_pairs) > 6 else ''} still overlap"
    else:
        reason = "the separated pairs do not yet link every system into one order"
    if any(p["n_participants"] < mon["min_participants"] for p in mon["pairs"]):
        reason += f"; a pair can separate only once {mon['min_participants']} participants have compared it"
    if maximum and mon.get("beyond_maximum"):
        return (
            f"**Not settled within the declared maximum of {maximum} participants** at {level}: {reason}. "
            "Answers beyond the maximum settle nothing anew."
        )
    scope = f"within the declared maximum of {maximum} participants" if maximum else "anytime-valid"
    return f"**Not settled yet** at {level} ({scope}): {reason}."


def _show_both_bad(rates: list[dict] | None, key: str = "") -> None:
    """Per system, the share of its votes found "both bad" (ties in the fit; docs/ranking.md, "Both bad")."""
    if not rates:
        return
    st.caption(
        "Both bad: the share of each system's votes where the participant found both answers bad "
        "(counted as ties in the fit above), with a 95% Wilson interval."
    )
    st.dataframe(
        [
            {
                "system": r["system"],
                "both bad": r["n_both_bad"],
                "votes": r["n_votes"],
                "rate": f"{r['rate']:.0%}",
                "interval": f"[{r['ci'][0]:.0%}, {r['ci'][1]:.0%}]",
            }
            for r in rates
        ],
        hide_index=True,
        key=f"{key}both_bad_table",
    )


def _show_integrity(result: dict, key: str = "") -> None:
    """The vote-integrity flags, each vote or participant with its reason, and the ranking with and without the
    flagged votes (infact/results/dashboard/integrity.py; docs/ranking.md, "Vote integrity")."""
    from infact.results.dashboard.integrity import integrity_view

    view = integrity_view(result)
    if view is None:
        return
    if view["order_changed"]:
        st.warning(view["summary"] + " Without them the order of the systems changes: see below.", icon="⚠️")
    else:
        st.caption(view["summary"] + (" Without them the order stays the same." if view["comparison"] else ""))
    with st.expander(f"Vote integrity: flagged votes and participants ({len(view['votes'])} votes listed)"):
        for note in view["notes"]:
            st.caption(note)
        if view["votes"]:
            st.dataframe(view["votes"], hide_index=True, key=f"{key}integrity_votes")
        if view["participants"]:
            st.caption("Anomaly score: each participant's votes against simulated participants from the others' fit.")
            st.dataframe(view["participants"], hide_index=True, key=f"{key}integrity_participants")
        if view["comparison"]:
            st.caption("The ranking with every vote and without the flagged ones:")
            st.dataframe(view["comparison"], hide_index=True, key=f"{key}integrity_comparison")


def _show_ledger(ledger: dict | None, key: str = "") -> None:
    """The versions compared, their exposure against the intended share, removed systems (docs/ranking.md)."""
    if not ledger or not ledger.get("rows"):
        return
    warn = [f"removed: {', '.join(ledger['removed'])}"] * bool(ledger.get("removed"))
    warn += [f"more than one version: {', '.join(ledger['changed'])}"] * bool(ledger.get("changed"))
    with st.expander("Ledger: versions compared and their exposure" + (f" ({'; '.join(warn)})" if warn else "")):
        st.caption(f"Intended: {ledger['intended']}. Exported as ledger.csv.")
        keep = ("system", "version", "status", "votes", "first_vote", "last_vote", "share", "intended_share")
        st.dataframe([{k: r[k] for k in keep} for r in ledger["rows"]], hide_index=True, key=f"{key}ledger_table")


def _ranking_rows(result: dict) -> list[dict]:
    """The ranking as table rows: strength with its interval, rank range, decisive votes, provisional."""
    return [
        {
            "rank": r["rank"],
            "system": r["system"],
            "strength": round(r["strength"], 2),
            "interval": f"[{r['ci95'][0]:.2f}, {r['ci95'][1]:.2f}]",
            "rank range": f"{r['rank_range'][0]}–{r['rank_range'][1]}",
            "decisive votes": r.get("n_decisive"),
            "provisional": bool(r.get("provisional")),
        }
        for r in result["ranking"]
    ]


def _show_fragility(frag: dict | None, key: str = "") -> None:
    """The top's fragility in words, and per adjacent pair how many votes / participants swap it (docs/ranking.md)."""
    from infact.results.ranking.fragility import in_words

    if not frag:
        return
    (st.warning if frag["top"]["fragile"] else st.caption)(in_words(frag))
    with st.expander("Fragility of each adjacent order"):
        st.dataframe(
            [
                {
                    "higher": a["higher"],
                    "lower": a["lower"],
                    "votes to swap": a["n_votes"],
                    "participants to swap": a["n_participants"],
                    "search": f"{a['method']['votes']['search']} / {a['method']['participants']['search']}",
                }
                for a in frag["adjacent"]
            ],
            hide_index=True,
            key=f"{key}fragility_table",
        )
        t = frag["top"]
        st.caption(f"Top: votes at lines {t['votes']} of pairwise.csv; participants {t['participants']}.")


def show_judges(result: dict) -> None:
    """Dashboard: each automatic judge (judges/NAME.csv in the study folder) beside the human raters."""
    if "error" in result:
        st.error(result["error"])
        return
    if not result:
        st.info("No human answers yet to compare the judges with.")
        return
    st.caption(
        "Agreement of each automatic judge with the human raters (docs/ranking.md): Kendall τ of the "
        "system ranking, Spearman of items, Krippendorff's α with the judge as one more coder (and the humans' "
        "own α), position and length bias."
    )
    cols = [
        "n_items",
        "kendall_tau_systems",
        "spearman_items",
        "krippendorff_alpha_with_humans",
        "krippendorff_alpha_humans",
        "position_bias",
        "length_bias",
    ]
    st.dataframe(
        [{"judge": name, "usable answers": _usable(j), **{c: j.get(c) for c in cols}} for name, j in result.items()],
        hide_index=True,
        key="judges_table",
    )
    from infact.results.judges.alignment_report import coverage_lines

    low = [
        line.strip(" -*") for line in coverage_lines({n: j["coverage"] for n, j in result.items() if "coverage" in j})
    ]
    for line in low:
        if line.startswith(("**Warning", "**Error", "Warning", "Error")):
            st.warning(line.replace("**", ""))
    _show_alignment(result)


def _usable(judge: dict) -> str:
    c = judge.get("coverage") or {}
    if not c:
        return ""
    return f"{c['usable']} of {c['total']}" if c.get("total") is not None else str(c["usable"])


def _show_alignment(result: dict) -> None:
    """Per judge: may it stand in for the humans (docs/llm.md), with the figures the rule reads."""
    rows = []
    for name, j in result.items():
        a = j.get("alignment")
        if not a:
            continue
        rows.append(
            {
                "judge": name,
                "stand-in": "yes" if a["stand_in"] else "no",
                "ρ items": a["spearman_items"],
                "ρ 95% CI": a["spearman_items_ci95"],
                "τ systems": a["kendall_tau_systems"],
                "τ 95% CI": a["kendall_tau_systems_ci95"],
                "weighted κ": a["weighted_kappa_majority"],
                "split-half ρ": a["spearman_split_half"],
                "judge–half ρ": a["spearman_judge_vs_half"],
                "position consistency": a["position_consistency"],
            }
        )
    if rows:
        st.markdown("**Alignment** — " + next(j["alignment"]["rule"] for j in result.values() if j.get("alignment")))
        st.dataframe(rows, hide_index=True, key="judges_alignment")
