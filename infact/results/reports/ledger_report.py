"""The leaderboard ledger in the reports: its lines in `analyze`'s Markdown, its field in the datasheet.

The ledger itself is infact/results/ranking/ledger.py (docs/ranking.md, "The ledger").
"""

from __future__ import annotations


def _share(x) -> str:
    return "–" if x is None else f"{x:.1%}"


def ledger_lines(ledger: dict | None) -> list[str]:
    """The ranking's ledger as a Markdown table, with what it warns of (removed systems, changed versions)."""
    if not ledger or not ledger.get("rows"):
        return []
    lines = ["", f"Ledger: the versions compared, their exposure and the intended share ({ledger['intended']}).", ""]
    lines += [
        "| system | version | status | votes | first vote | last vote | share | intended |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['system']} | {r['version'] or '–'} | {r['status'] or '–'} | {r['votes']} | {r['first_vote'] or '–'} | "
        f"{r['last_vote'] or '–'} | {_share(r['share'])} | {_share(r['intended_share'])} |"
        for r in ledger["rows"]
    ]
    warn = []
    if ledger.get("removed"):
        warn.append(f"removed from the study since their votes: {', '.join(ledger['removed'])}")
    if ledger.get("changed"):
        warn.append(f"more than one version ranked under one name: {', '.join(ledger['changed'])}")
    if ledger.get("unknown_versions"):
        warn.append(f"{ledger['unknown_versions']} places shown before versions were recorded (version unknown)")
    return lines + (["", "Note: " + "; ".join(warn) + "."] if warn else [])


def _ledger(study, t):
    """ledger.csv's frame of every answer that showed systems (votes, best–worst choices: each kind's places),
    as the export writes it; None when the study has none of those kinds."""
    from infact.results.ranking.ledger import ledger_frames

    placed = t.placed() if hasattr(t, "placed") else []
    if not placed:  # a study without votes or choices has no ranking, so no ledger
        return None
    return ledger_frames(placed, systems=list(study.systems), design=getattr(t, "design", None))


def datasheet_fields(study, t) -> list[dict]:
    """HEDS section 2's addition: which version of each system was compared, how often and when (ledger.csv)."""
    frame = _ledger(study, t)
    if frame is None:
        return []
    value = None
    if frame["votes"].sum() > 0:
        # every criterion of a table shows the same answers: each table's first criterion
        first = frame[frame["criterion"] == frame.groupby("table")["criterion"].transform("first")]
        keep = ("table", "system", "version", "status", "votes", "first_vote", "last_vote", "share", "intended_share")
        value = [
            {k: (None if v != v else round(v, 4) if isinstance(v, float) else v) for k, v in row.items() if k in keep}
            for row in first.to_dict("records")
        ]
    field = {
        "id": "2.5.1",
        "question": "Versions of the systems compared, their exposure, and systems removed (leaderboard ledger)",
        "value": value,
        "source": "the version stamped on each vote or best–worst choice; ledger.csv; docs/ranking.md, 'The ledger'",
    }
    # the datasheet's own field shape (datasheet._field), built here: the datasheet imports this module
    return [field if value else {**field, "missing": "no votes yet: the ledger lists the versions once votes come"}]
