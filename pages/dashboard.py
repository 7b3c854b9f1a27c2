"""Researcher dashboard: the funnel, the live study, results, statistics and exports.

Reachable at /dashboard; refuses anyone not signed in (a reload keeps the sign-in:
infact/access/session.py). Every number comes from plain core functions —
infact.results.quality.funnel (the figures), dashboard_data (incremental tables and per-version
caching), live_study (Prolific lists, duration check, comments), charts — so this page
only lays them out. The live part reruns every 5 seconds and reads only new records;
only the section the researcher looks at is computed.
"""

from datetime import UTC, datetime

import streamlit as st
from streamlit_extras.metric_cards import style_metric_cards

from infact import ui
from infact.errors import InfactError
from infact.participation import visits as visits_module
from infact.participation.assignment import coverage
from infact.results.analyze import Options, analyze_table, render
from infact.results.dashboard import live_study, offer
from infact.results.dashboard.data import DashboardData
from infact.results.quality import exclusion as quality
from infact.results.quality import funnel
from infact.results.reports import charts
from infact.results.tables.export import describe, export_bytes
from infact.storage import TinyDBStorage
from infact.stores.config import on_community_cloud
from infact.stores.live import LiveFeed
from infact.ui import prolific_section
from infact.ui.downloads import researcher_download

# Normally decided by streamlit_app.py before anything is drawn; a fresh server serves this file
# directly (legacy pages/ routing) until a session has run the entry point.
st.set_page_config(page_title="INFACT dashboard", page_icon="📊", layout="wide")

if not ui.is_researcher():
    st.error("Please sign in first.")
    st.markdown("[Researcher sign-in](/researcher)")  # a plain link works in every routing mode
    st.stop()

try:
    study = ui.get_study()
except InfactError as exc:
    ui.show_problems(exc, "The study configuration has problems:")
    st.stop()

storage = ui.get_storage(study)
target, source = ui.store_target(study)
cfg = study.config
# Only sections the study's protocols give something to show (ratings, votes, best–worst, chats).
SECTIONS = offer.sections(cfg, has_judges=(study.folder / "judges").is_dir())
KINDS = offer.collected(cfg)


@st.cache_resource(show_spinner=False)
def live_feed(target: str, study_id: str, dataset_version: str) -> LiveFeed:
    """One incremental feed per store and study version, shared by every researcher session."""
    return LiveFeed(ui.get_storage(study), DashboardData(study))


st.title(f"Dashboard · {cfg.study.title}")
if on_community_cloud() and isinstance(storage, TinyDBStorage):
    st.warning(
        "This app runs on Streamlit Community Cloud with the embedded TinyDB store. Its disk is wiped on "
        "every reboot or redeploy: **answers will be lost**. Configure a PostgreSQL database in the app's "
        "secrets (`[connections.infact]`, see the README) before collecting real data.",
        icon="⚠️",
    )
st.caption(
    f"Study `{study.id}` · dataset version `{study.dataset_version}` · {len(study.situations)} situations · "
    f"systems {', '.join(study.systems)} · store: {source}"
)
for note in study.notes:
    st.info(str(note))

top = st.columns([2, 2, 1])
include_flagged = top[0].toggle(
    "Include flagged participants",
    value=False,
    key="include_flagged",
    help="Off: results use only participants whose decision is 'include'.",
)
criteria = [c.id for c in cfg.criteria]
criterion = top[1].selectbox("Criterion", criteria, key="criterion") if len(criteria) > 1 else criteria[0]
if top[2].button("Preview study", key="preview", help="Walk through the study; your answers never count."):
    st.switch_page("pages/participant.py", query_params={"preview": "1"})
section = st.segmented_control("Section", SECTIONS, default="Progress", key="section", label_visibility="collapsed")


def cards(counts: dict) -> None:
    figures = list(funnel.FIGURES.items())
    for start in (0, 5):  # two rows, so every label is readable
        for col, (name, (label, meaning)) in zip(st.columns(5), figures[start : start + 5]):
            col.metric(label, counts.get(name, "…"), help=meaning)
    style_metric_cards(border_left_color="#1a56c4")


def duration_note(progress) -> None:
    check = live_study.duration_check(progress, cfg.study.expected_minutes)
    if check["warning"]:
        st.warning(check["warning"], icon="⏱️")
    elif check["n"]:
        st.caption(
            f"Median completion time {check['median_minutes']:.1f} min (n = {check['n']}); "
            f"stated estimate {check['expected_minutes']:g} min."
        )


def show_progress(data: DashboardData, overview, now) -> None:
    left, right = st.columns(2)
    with left:
        st.subheader("Completions over time")
        st.altair_chart(
            charts.completions_chart(live_study.completions_over_time(data.progress())), key="chart_completions"
        )
    with right:
        st.subheader("Completion time")
        done = data.participants()
        st.altair_chart(
            charts.completion_time_chart(
                done[done["status"] == "completed"], expected_minutes=cfg.study.expected_minutes
            ),
            key="chart_time",
        )
    reasons = funnel.exclusion_reasons(overview)
    if len(reasons):
        st.subheader("Why completed participants were excluded")
        st.caption("One participant can have several reasons, so the rows can add up to more than the Excluded card.")
        st.dataframe(reasons, hide_index=True, key="reasons_table")
    st.subheader("Coverage per situation")
    cov = data.memo("coverage", lambda: coverage(study, data.records(), now), now.replace(second=0, microsecond=0))
    k = cfg.assignment.ratings_per_situation
    done_n = sum(1 for c in cov if c["ratings"] >= k)
    st.progress(done_n / max(1, len(cov)), text=f"{done_n} of {len(cov)} situations have ≥ {k} ratings")
    st.dataframe(cov, hide_index=True, height=260, key="coverage_table")


def show_participants(overview) -> None:
    stages = st.multiselect("Show stages", list(funnel.STAGES), default=list(funnel.STAGES), key="stage_filter")
    st.caption(
        "Visits that left before consenting are counted in *Visited* (and `visits.csv`) but not listed: "
        "nothing about them is stored except when they came."
    )
    st.dataframe(
        live_study.participants_view(overview, stages),
        hide_index=True,
        key="participants_table",
        column_config={
            "last_activity": st.column_config.DatetimeColumn("Last activity", format="YYYY-MM-DD HH:mm:ss"),
            "active_now": st.column_config.CheckboxColumn("Active now"),
            "platform_warnings": st.column_config.TextColumn(
                "Platform ID warnings",
                help="The platform ID does not look like one the "
                "platform issues (e.g. a Prolific ID that is not 24 hex characters): "
                "accepted, but check it before approving or paying.",
            ),
        },
    )
    exclude_picker(overview)


def exclude_picker(overview) -> None:
    st.subheader("Exclude or re-include participants")
    labels = live_study.exclusion_choices(overview)
    with st.form("manual_decision"):
        who = st.multiselect(
            "Participants (platform ID · stage · decision · flags)",
            list(labels),
            format_func=labels.get,
            key="manual_participants",
        )
        action = st.radio("Decision", ["exclude", "include"], horizontal=True, key="manual_action")
        note = st.text_input("Note (why)", key="manual_note")
        if st.form_submit_button("Save decision", key="manual_save"):
            try:
                events = [
                    quality.manual_event(p, action, note, study=study.id, dataset_version=study.dataset_version)
                    for p in who
                ]
            except ValueError as exc:
                st.error(str(exc))
            else:
                for event in events:
                    storage.append(event)
                st.success(
                    f"Saved: {action} {len(events)} participant(s). Nothing is deleted; each decision is an "
                    "event in the log."
                )


def show_prolific(overview) -> None:
    lists = live_study.prolific_lists(overview)
    st.caption(
        "Platform IDs of finished participants, by the recommended action (docs/quality.md). Copy a list "
        "with the icon at its top right and paste it into Prolific's bulk approve / reject / message tools."
    )
    for name, title in (
        ("approve", "Approve"),
        ("reject", "Reject (eligible under Prolific's rules)"),
        ("return", "Ask to return the submission"),
    ):
        ids = lists[name]
        st.markdown(f"**{title}** · {len(ids)}")
        if len(ids):
            st.code("\n".join(ids["platform_id"]), language=None)
            if name != "approve":
                st.dataframe(ids, hide_index=True, key=f"prolific_{name}")


def show_situations(tables, include_flagged: bool, criterion: str) -> None:
    """Each situation's texts beside its ratings or votes, the most disputed first."""
    from infact.results.dashboard import situations as cs
    from infact.study.protocol_config import vote_table

    def kept(df):
        return df if include_flagged or df is None or "excluded" not in df.columns else df[~df["excluded"]]

    kind = vote_table(cfg.protocol.kind) or cfg.protocol.kind
    if kind == "pairwise":
        shown = (  # a dialog-level (ACUTE) study compares whole conversations, not one turn's responses
            "Each dialog and pair of systems beside the votes on their whole conversations (response_a and response_b: "
            "each system's chatbot turns)"
            if cfg.protocol.kind == "pairwise_dialog"
            else "Each situation's last user turn and the two responses beside the votes"
        )
        st.caption(
            f"{shown}; the most disputed first "
            "(majority share: the share of votes for the most chosen answer; 0.5 is an even split)."
        )
        table = cs.pairwise_overview(kept(tables.compare.get("pairwise.csv")), study, criterion)
    elif kind == "best_worst":
        st.caption(
            "Each situation's last user turn and each response beside how often it was shown, chosen best "
            "and chosen worst; the most disputed (best − worst share nearest 0) first."
        )
        table = cs.best_worst_overview(kept(tables.compare.get("best_worst.csv")), study, criterion)
    else:
        ratings = tables.ratings[tables.ratings["criterion"] == criterion] if len(tables.ratings) else tables.ratings
        st.caption(
            "Each situation's last user turn and each system's response beside its ratings; the most "
            "disputed first (sd: standard deviation between raters, range: highest minus lowest rating)."
        )
        table = live_study.situation_overview(kept(ratings), study, criterion)
    st.dataframe(table, hide_index=True, key="situations_table")


def show_results(data: DashboardData, tables, ratings, shown) -> None:
    """A part per kind of answer the study collects: ratings, votes, best–worst choices, arena votes."""
    from infact.results.dashboard.comparisons import kept
    from infact.ui import comparison_results as comparison

    if offer.RATINGS in KINDS:
        show_rating_results(data, ratings, shown)
    if offer.VOTES in KINDS:
        comparison.show_votes(
            kept(tables.compare.get("pairwise.csv"), criterion, include_flagged),
            "Votes per system" + (f" · {criterion}" if len(criteria) > 1 else ""),
            "votes",
        )
    if offer.BEST_WORST in KINDS:
        comparison.show_best_worst(kept(tables.compare.get("best_worst.csv"), criterion, include_flagged))
    if offer.ARENA in KINDS:
        comparison.show_votes(kept(tables.votes, None, include_flagged), "Arena votes after the live chats", "arena")
    show_questionnaire(tables)


def show_rating_results(data: DashboardData, ratings, shown) -> None:
    if shown.empty:
        st.subheader("Ratings")
        st.info(
            "No ratings yet."
            if ratings.empty
            else "All rated participants are flagged: switch on 'Include flagged participants'."
        )
        return
    st.subheader("Mean rating per system (95% CI, participant bootstrap)")
    result = statistics(data, ratings)
    if isinstance(result, InfactError):
        st.info("Means and intervals are not available yet: " + "; ".join(p.message for p in result.problems))
    else:
        st.altair_chart(charts.mean_ratings_chart(shown, result), key="chart_means")
    st.subheader("Distribution of the scale points")
    st.altair_chart(charts.distribution_chart(shown, cfg.scale.labels), key="chart_dist")
    st.subheader("Position (order) effect")
    st.altair_chart(charts.position_chart(shown), key="chart_position")


def show_questionnaire(tables) -> None:
    if len(tables.questionnaire):
        st.subheader("Questionnaire")
        q = tables.questionnaire
        if not include_flagged:
            q = q[~q["participant"].isin(tables.participants.loc[tables.participants["excluded"], "participant"])]
        items = {i.id: i.text for i in cfg.questionnaire.items if i.expected is None}  # not the check item
        st.altair_chart(
            charts.questionnaire_chart(q[q["item"].isin(list(items))], cfg.questionnaire.scale, items),
            key="chart_questionnaire",
        )


def statistics(data: DashboardData, ratings):
    def build(_tables):
        try:
            # the same entry as `analyze` (no mixed model: it takes seconds on every refresh)
            return analyze_table(ratings, Options(mixed_model=False, include_flagged=include_flagged))
        except InfactError as exc:
            return exc

    return data.derived("statistics", build, criterion, include_flagged)


def show_statistics(data: DashboardData, tables, ratings, shown) -> None:
    """The analysis a reviewer expects, per kind of answer: ratings (means, tests, reliability), votes and
    best–worst choices (ranking with intervals, win rates, sign tests), the live arena's votes."""
    from infact.ui.comparison_results import show_annotation_statistics, show_preferences

    if offer.RATINGS in KINDS:
        show_rating_statistics(data, ratings, shown)
    if offer.VOTES in KINDS or offer.BEST_WORST in KINDS:
        show_preferences(
            ranking(data),
            "Preferences" + (f" · {criterion}" if len(criteria) > 1 else ""),
            "votes" if offer.VOTES in KINDS else "best–worst choices",
        )
    if offer.ANNOTATIONS in KINDS:
        show_annotation_statistics(data, include_flagged)
    if offer.ARENA in KINDS:
        show_preferences(arena(data), "Arena votes after the live chats")


def ranking(data: DashboardData):
    """The protocol's ranking of the systems for this criterion (results/ranking_dashboard.py)."""
    from infact.results.dashboard.ranking import ranking_view

    proto = cfg.protocol
    return data.derived(
        "ranking",
        lambda t: ranking_view(t, proto.kind, criterion, include_flagged, proto.confidence),
        criterion,
        include_flagged,
    )


def arena(data: DashboardData):
    """The live arena votes' ranking; None while there are none."""
    from infact.results.dashboard.comparisons import kept
    from infact.results.live.overview import arena_ranking

    def build(t):
        votes = kept(t.votes, None, include_flagged)
        return arena_ranking(votes) if len(votes) else None

    return data.derived("arena", build, include_flagged)


def show_rating_statistics(data: DashboardData, ratings, shown) -> None:
    if shown.empty or shown["participant"].nunique() < 2:
        st.subheader("Ratings")
        st.info("Statistics need ratings from at least two participants.")
        return
    result = statistics(data, ratings)
    if isinstance(result, InfactError):
        ui.show_problems(result, "The ratings could not be analysed:")
        return
    st.markdown(render(result, "md"))
    # Aggregate statistics, no personal data: a plain button (a deferred one inside this 5-second fragment
    # would get a new id under the click), made once per result.
    report = data.derived("report_html", lambda _t: render(result, "html", shown), criterion, include_flagged)
    st.download_button("report.html (with charts)", report, file_name="report.html", key="dl-report")


def show_exports(data: DashboardData) -> None:
    def files() -> dict[str, bytes]:  # made per data version, served only on click (infact/ui/downloads.py)
        return offered()[0]

    def offered() -> tuple[dict[str, bytes], list[str]]:  # the study's tables that have rows (dashboard/offer.py)
        return data.derived(
            "files", lambda t: offer.offered_files(cfg, export_bytes(t, study.systems, study_id=study.id))
        )

    st.caption(
        "Each file is made when you click and its link stops working within a minute: download again for newer data."
    )
    for name in files():
        researcher_download(
            f"{name} — {describe(name)}", lambda name=name: files()[name], file_name=name, key=f"dl-{name}"
        )
    if offered()[1]:
        st.caption("Offered once they have a row: " + ", ".join(f"`{n}`" for n in offered()[1]) + ".")


def visits_note(visits) -> None:
    """Say when a flood of visits was only counted (infact.participation.visits: per-minute bound)."""
    if visits.aggregated:
        st.caption(
            f"ℹ️ In {len(visits.aggregated_minutes)} busy minute(s) since {visits.first_aggregated[:16]} UTC, "
            f"{visits.aggregated} visits beyond {visits_module.PER_MINUTE} a minute per app process were "
            "counted in aggregate, not recorded one by one: *Visited* includes them, `visits.csv` has them "
            "as one `(aggregated)` row."
        )


def simulated_note(progress) -> None:
    """LLM-played participants are shown apart (Live chats section), never in the figures above."""
    n = sum(1 for p in progress.values() if p.simulated and not p.preview)
    if n:
        st.caption(
            f"🤖 {n} simulated participant(s) (`infact bots --strategy llm`) are not counted in these figures "
            "or tables; the *Live chats* section compares them with the people."
        )


@st.fragment(run_every=5)
def live() -> None:
    feed = live_feed(target, study.id, study.dataset_version)
    now = datetime.now(UTC)
    figures = st.empty()
    if not feed.started:  # the first read of every record takes seconds at scale: the stage figures first
        with figures.container():
            progress, visits = funnel.from_store(storage, study.id)
            cards(funnel.stage_counts(progress, now, visits))
            st.caption("Reading every answer for the quality checks and tables…")
    feed.poll()
    data: DashboardData = feed.consumer
    overview = data.overview(now)
    with figures.container():
        cards(data.counts(now))
    for note in live_study.set_aside_notes(storage.problems()):
        st.error(note, icon="🗂️")
    for path in feed.damaged:  # unreadable and not set aside (e.g. no permission to move it)
        st.error(
            f"A participant file cannot be read and is left out: `{path}`. Check its permissions, or "
            "restore it from a backup."
        )
    duration_note(data.progress())
    visits_note(data.visits())
    simulated_note(data.progress())
    st.caption(f"Updated {now:%H:%M:%S} UTC · {len(data.records())} records")
    if section == "Progress":
        show_progress(data, overview, now)
    elif section == "Participants":
        show_participants(overview)
    elif section == "Prolific":
        prolific_section.show(study, storage, data.counts(now))  # the API's view (issue 26), then the ID lists
        show_prolific(overview)
    elif section == "Comments":
        st.dataframe(live_study.comments(data.progress()), hide_index=True, key="comments_table")
    elif section:
        show_tables_section(data)


def show_annotations(data: DashboardData) -> None:
    """Per aspect: the systems ranked by mean with participant-cluster bootstrap intervals, α, the halo check."""
    from infact.results.conversations.analysis import analyze_annotations

    annotations = data.derived("annotations", lambda t: t.compare["annotations.csv"])
    if annotations.empty:
        st.info("No annotations yet.")
        return
    result = data.derived(
        "annotation_analysis",
        lambda t: analyze_annotations(t.compare["annotations.csv"], include_flagged=include_flagged),
        include_flagged,
    )
    st.caption(
        f"{result['n_participants']} annotators · {result['n_conversations']} conversations · "
        f"{result['n_annotations']} answers (gold conversations left out)"
    )
    for aspect, a in result["aspects"].items():
        alpha = a["krippendorff_alpha"]["value"]
        st.markdown(
            f"**{aspect}** ({a['level']} level) · Krippendorff's α (ordinal) {'—' if alpha is None else f'{alpha:.2f}'}"
        )
        st.dataframe(
            [
                {
                    "rank": r["rank"],
                    "system": r["system"],
                    "mean": round(r["mean"], 2),
                    "95% CI": "—"
                    if a["systems"][r["system"]]["ci95"][0] is None
                    else "{:.2f}–{:.2f}".format(*a["systems"][r["system"]]["ci95"]),
                    "n": a["systems"][r["system"]]["n"],
                }
                for r in a["ranking"]
            ],
            hide_index=True,
            key=f"aspect_{aspect}",
        )
    for level, h in result["halo"].items():
        if h["mean_r"] is not None:
            st.caption(
                f"Halo check ({level} level): mean correlation between aspects within annotators "
                f"r = {h['mean_r']:.2f} (high values: annotators rate a conversation alike on every aspect)."
            )


def show_tables_section(data: DashboardData) -> None:
    """Sections built on the full tables, rebuilt at most every 30 s (they read every rating)."""
    tables, behind = data.results(force=st.session_state.pop("refresh_results", False))
    if behind:
        st.caption("New answers arrived since these results were computed; they are recomputed every 30 seconds.")
        st.button(
            "Recompute now",
            key="refresh_results_button",
            on_click=lambda: st.session_state.update(refresh_results=True),
        )
    ratings = tables.ratings[tables.ratings["criterion"] == criterion] if len(tables.ratings) else tables.ratings
    shown = ratings if include_flagged else ratings[~ratings["excluded"]]
    if section == "Results" and "annotations.csv" in tables.compare:  # a conversation study (docs/protocols.md)
        show_annotations(data)
    elif section == "Results":
        show_results(data, tables, ratings, shown)
    elif section == "Situations":
        show_situations(tables, include_flagged, criterion)
    elif section == "Statistics":
        show_statistics(data, tables, ratings, shown)
    elif section == "Exports":
        pass  # drawn below, outside this fragment
    elif section == "Ranking":  # pairwise / best–worst studies and live arenas (docs/ranking.md)
        show_rankings(data)
    elif section == "Judges":  # automatic judges in the study's judges/ folder beside the humans (docs/ranking.md)
        from infact.results.dashboard.ranking import judges_view

        ui.show_judges(
            data.derived(
                "judges", lambda t: judges_view(t, study, criterion, include_flagged), criterion, include_flagged
            )
        )
    elif section == "Live chats":  # docs/live.md: per-system satisfaction, latency, failures; the blind arena ranking
        from infact.results.live.analysis import render_markdown as live_markdown
        from infact.results.live.overview import live_overview

        st.markdown(live_markdown(data.derived("live", live_overview)))
        from infact.results.live.simulated import render_markdown as simulated_markdown
        from infact.results.live.simulated import simulated_vs_human

        simulated = simulated_vs_human(data.records())
        if simulated is not None:  # apart: simulated participants are left out of every figure above
            st.divider()
            st.markdown(simulated_markdown(simulated))


def show_rankings(data: DashboardData) -> None:
    if offer.VOTES in KINDS or offer.BEST_WORST in KINDS:
        if offer.ARENA in KINDS:
            st.subheader("The study's comparisons")
        ui.show_ranking(ranking(data), cfg.protocol.confidence)
    if offer.ARENA in KINDS:
        st.subheader("Arena votes after the live chats")
        result = arena(data)
        if result is not None and "problem" in result:
            st.info(f"Not available yet: {result['problem']}")
        else:
            ui.show_ranking(result, 0.95, key="arena_")


live()
if section == "Exports":
    # Outside the 5-second fragment: each rerun gives a deferred download a new id, and a click
    # holding the old one would fail (infact/ui/downloads.py); the files are made fresh at the click.
    show_exports(live_feed(target, study.id, study.dataset_version).consumer)
