"""`prolific create | publish | sync | review | bonus | pause | message`: the paid cycle on Prolific (docs/prolific.md).

Thin: each command parses its arguments, opens the study, its store and a client
(infact.prolific.session), calls one operation and prints what it did or would do. Nothing is
published, rejected, returned or paid without an explicit `--yes` / `--apply`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from infact.cli.args import add_db, add_study, command, open_store, study_folder

BASE_URL_HELP = "Prolific API address (default: [prolific] base_url, https://api.prolific.com); e.g. the test stub"


def register(sub: argparse._SubParsersAction) -> None:
    top = command(sub, "prolific", __doc__.split("\n\n")[1])
    cmds = top.add_subparsers(dest="action", required=True, metavar="ACTION")

    def sub_command(name: str, summary: str, description: str, func) -> argparse.ArgumentParser:
        p = command(cmds, name, description, summary=summary)
        add_study(p)
        add_db(p)
        p.add_argument("--base-url", metavar="URL", help=BASE_URL_HELP)
        p.set_defaults(func=func)
        return p

    sub_command(
        "create",
        "create the Prolific study as a draft (once)",
        "Print the draft study made from study.toml (name, description, study URL with PROLIFIC_PID, STUDY_ID "
        "and SESSION_ID, completion codes, places, reward, minutes, devices), then create it on Prolific as a draft "
        "and record its id in the store. A rerun creates no duplicate.",
        run_create,
    ).add_argument("--dry-run", action="store_true", help="only print what would be created")
    p = sub_command("publish", "publish the draft (needs --yes)", "Publish the recorded draft study.", run_publish)
    p.add_argument("--prolific-id", metavar="ID", help="the Prolific study id (default: the one create recorded)")
    p.add_argument("--yes", action="store_true", help="really publish: participants can start and it costs money")
    p = sub_command(
        "sync",
        "read submissions into the store; free returned places",
        "Read every submission (status, times) into the store. RETURNED and TIMED-OUT ones end that participant's "
        "lease at once, so their reserved situations go to the next participant.",
        run_sync,
    )
    p.add_argument("--prolific-id", metavar="ID", help="the Prolific study id (default: the recorded one)")
    p = sub_command(
        "review",
        "show INFACT's decision per submission; --apply makes the calls",
        "Per submission awaiting review: INFACT's decision (approve, reject where Prolific's rules allow, ask to "
        "return) and why. Without --apply nothing changes.",
        run_review,
    )
    p.add_argument("--prolific-id", metavar="ID", help="the Prolific study id (default: the recorded one)")
    p.add_argument("--apply", action="store_true", help="approve, reject and ask to return as shown")
    _add_bonus(sub_command)
    _register_pause(sub_command)
    _message_parser(sub_command)


def _message_parser(sub_command) -> None:
    p = sub_command(
        "message",
        "message chosen participants (each once)",
        "Send one message to Prolific participants. Each recipient gets it once: a rerun, or the same text to a "
        "larger group, skips everyone it reached; one that Prolific did not confirm is not resent until you say "
        "whether it arrived (--confirm-sent / --confirm-unsent).",
        run_message,
    )
    p.add_argument("--to", action="append", required=True, metavar="PID", help="a Prolific participant id (repeat)")
    p.add_argument("--text", required=True, help="the message")
    p.add_argument("--prolific-id", metavar="ID", help="the Prolific study id (default: the recorded one)")
    p.add_argument("--confirm-sent", action="store_true", help="you checked on Prolific: the unconfirmed one arrived")
    p.add_argument("--confirm-unsent", action="store_true", help="you checked: it did not arrive; send it now")


def _add_bonus(sub_command) -> None:
    """`prolific bonus`: its options (docs/prolific.md: the ledger, strict lines, fair pay)."""
    p = sub_command(
        "bonus",
        "pay what the ledger says is owed, once; shows the total first",
        "Pay bonuses owed per participant and reason: from --csv (participant_id,amount lines), "
        "[prolific] bonus_per_completed, or --top-up (approved participants to the target hourly rate). Lines "
        "already paid or in flight for the reason are skipped, saying why; the total is shown before paying; "
        "--apply pays, once (docs/prolific.md).",
        run_bonus,
    )
    p.add_argument("--csv", metavar="FILE", help="participant_id,amount per line (Prolific's bulk bonus format)")
    p.add_argument("--top-up", action="store_true", help="bring approved participants to the target hourly rate")
    p.add_argument(
        "--reason",
        help="what the bonus is for; each participant is paid once per reason "
        "(default: bonus for --csv, completed for the rule, top-up for --top-up)",
    )
    p.add_argument(
        "--name", type=_label, help="a label for this run's batch in the store (who is paid is the ledger's decision)"
    )
    p.add_argument("--prolific-id", metavar="ID", help="the Prolific study id (default: the recorded one)")
    p.add_argument("--apply", action="store_true", help="pay it (each pay call is sent at most once)")
    p.add_argument(
        "--allow-extra",
        action="append",
        default=[],
        metavar="PID",
        help="pay PID although Prolific lists bonuses INFACT did not pay (you checked they were for something else)",
    )
    p.add_argument("--ledger", action="store_true", help="only list the ledger: who was paid what, for which reason")
    p.add_argument("--confirm-paid", metavar="BONUS_ID", help="you checked on Prolific: the unconfirmed pay call paid")
    p.add_argument("--confirm-unpaid", metavar="BONUS_ID", help="you checked on Prolific: it did not pay")


def _label(text: str) -> str:
    import re

    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$", text):
        raise argparse.ArgumentTypeError(f"{text!r}: use letters, digits, '.', '_' or '-' (at most 40)")
    return text


def _register_pause(sub_command) -> None:
    p = sub_command(
        "pause",
        "pause the study once its declared stopping rule is met (once)",
        "Analyse the study's answers, check the stopping rule declared in study.toml [monitoring] (settled by "
        "anytime-valid intervals, a precision, a maximum of participants) and, when it is met, pause the Prolific "
        "study (its PAUSE transition). Sent at most once; nothing is sent while the rule is not met.",
        run_pause,
    )
    p.add_argument("--prolific-id", metavar="ID", help="the Prolific study id (default: the recorded one)")
    p.add_argument("--dry-run", action="store_true", help="only say whether the rule is met")


def _session(args: argparse.Namespace):
    from infact import deployment
    from infact.prolific.session import open_session
    from infact.study.loader import load_study

    study = load_study(study_folder(args))
    return open_session(study, open_store(args, study.id), base_url=args.base_url, secrets=deployment.load_secrets())


def run_create(args: argparse.Namespace) -> int:
    from infact.prolific import setup
    from infact.stores import prolific_records as records

    s = _session(args)
    known = records.study_id(s.records())
    if known:
        print(f"already created: Prolific study {known} (recorded in the store); nothing sent")
        return 0
    payload = setup.study_payload(s.study, "(set when created)")
    print("draft study to create on Prolific:")
    print("\n".join(f"  {line}" for line in setup.describe(payload)))
    if args.dry_run:
        print("dry run: nothing sent")
        return 0
    made = setup.create(s)
    print(
        f"{'created' if made.new else 'found'} draft study {made.prolific_id}; publish with "
        f"`infact prolific publish --yes`"
    )
    return 0


def run_publish(args: argparse.Namespace) -> int:
    from infact.prolific import setup

    s = _session(args)
    status = setup.publish(s, args.prolific_id, yes=args.yes)
    print(f"published: study {s.prolific_id(args.prolific_id)} is {status}")
    return 0


def run_sync(args: argparse.Namespace) -> int:
    from infact.prolific import sync
    from infact.stores import prolific_records as records

    s = _session(args)
    done = sync.sync(s, args.prolific_id)
    print(f"{done.submissions} submission(s); {len(done.changed)} new status(es)")
    for sid, status in done.changed:
        print(f"  {sid}: {status}")
    for token in done.released:
        print(f"  released the reserved situations of participant {token}")
    for pid in done.unmatched:
        print(f"  warning: returned/timed-out Prolific ID {pid} never arrived in INFACT")
    counts = records.status_counts(s.records())
    print("  " + ", ".join(f"{k}: {v}" for k, v in counts.items() if v))
    return 0


def run_review(args: argparse.Namespace) -> int:
    from infact.prolific import review

    s = _session(args)
    plan = review.plan(s, args.prolific_id)
    if not plan.decisions:
        print("no submission is awaiting review")
        return 0
    for d in plan.decisions:
        mark = " (done)" if d.done else ""
        print(f"{d.submission_id}  {d.participant_id}  {d.action}{mark}: {d.reason}")
        if d.rule:
            print(f"    rule: {d.rule}")
    if not args.apply:
        todo = [d for d in plan.decisions if not d.done and d.action != "manual"]
        print(f"dry run: {len(todo)} action(s) would be sent; add --apply")
        return 0
    review.apply(s, plan, args.prolific_id)
    print(f"applied {len(plan.applied)} action(s); {len(plan.by_action('manual'))} left for you on Prolific")
    return 0


def run_bonus(args: argparse.Namespace) -> int:
    from infact.prolific import bonus

    s = _session(args)
    if args.ledger:
        return _print_ledger(s)
    pid = s.prolific_id(args.prolific_id)
    if args.confirm_paid or args.confirm_unpaid:
        b = bonus.confirm(s, args.confirm_paid or args.confirm_unpaid, paid=bool(args.confirm_paid))
        print(f"recorded: batch {b.name} {'paid' if b.paid else 'not paid by its last pay call'}")
        if not args.apply:
            return 0
    lines, reason, source = _bonus_lines(args, s, pid)
    plan = bonus.plan(s, lines, reason, pid, source=source, allow_extra=args.allow_extra)
    _print_plan(plan)
    if not args.apply:
        if plan.to_pay:
            print(f"Prolific's price (created, not paid): {bonus.cost_line(bonus.quote(s, plan.to_pay, pid))}")
        print("not paid: add --apply to pay (each participant once for this reason)")
        return 0
    for b in bonus.apply(s, plan, pid, args.name):
        print(
            f"paid: batch {b.name}, {len(b.lines)} participant(s); {bonus.cost_line(b.created)} "
            "(Prolific pays within minutes)"
        )
    return 0


def _bonus_lines(args: argparse.Namespace, s, pid: str):
    """(lines, reason, source) from --csv, --top-up or the rule; prints what the rule or top-up is based on."""
    from infact.prolific import bonus_input, fair_pay

    if args.csv and args.top_up:
        from infact.errors import InfactError, Problem

        raise InfactError(Problem("--csv/--top-up", "give one of them: a run pays one kind of bonus"))
    if args.csv:
        return bonus_input.read_csv(Path(args.csv)), args.reason or "bonus", args.csv
    if args.top_up:
        lines, fair, owed = fair_pay.top_up(s, pid)
        print(f"fair pay: {fair.line()}")
        print(
            f"top-up: {bonus_input.money(owed)} per approved participant to {bonus_input.money(fair.rates.target)}/hour"
        )
        return lines, args.reason or "top-up", "top-up"
    per = s.study.config.prolific.bonus_per_completed
    if per is None and (args.confirm_paid or args.confirm_unpaid):
        return [], args.reason or "bonus", "--confirm"  # only finish the confirmed batch
    if per is None:
        from infact.errors import InfactError, Problem

        raise InfactError(Problem("study.toml", "give --csv FILE or --top-up, or set [prolific] bonus_per_completed"))
    from infact.prolific.sync import fetch

    submissions: dict[str, set[str]] = {}
    for sub in fetch(s, pid):
        submissions.setdefault(str(sub["participant_id"]).lower(), set()).add(str(sub["id"]).lower())
    lines, notes = fair_pay.rule_lines(per, s.storage, s.study.id, submissions)
    for note in notes:
        print(f"warning: {note}")
    return lines, args.reason or "completed", "bonus_per_completed"


def _print_ledger(s) -> int:
    from infact.prolific import ledger
    from infact.prolific.bonus_input import money

    led = ledger.read(s.records())
    entries = sorted((e for (p, r) in led.claims if (e := led.entry(p, r))), key=lambda e: (e.participant_id, e.reason))
    for e in entries:
        print(f"{e.participant_id}  {e.reason:<16} {money(e.cents):>8}  {e.status:<9}  batch {e.batch}")
    paid = sum(e.cents for e in entries if e.status == "paid")
    print(f"{len(entries)} ledger line(s); paid {money(paid)}, in flight {money(sum(e.cents for e in entries) - paid)}")
    return 0


def _print_plan(plan) -> None:
    from infact.prolific.bonus_input import money

    for b in plan.verified:
        print(f"recorded: batch {b.name} paid (Prolific's list shows the payment its unanswered pay call made)")
    for b in plan.unfinished:
        state = "waits for your check (see below)" if b.uncertain else "not paid yet; --apply finishes it"
        print(f"unfinished: batch {b.name} ({b.reason}), {len(b.lines)} participant(s), {money(b.cents)}: {state}")
        if b.intents and b.created is None:
            print(
                "  an earlier run stopped during its create call, so Prolific may hold a bulk bonus INFACT has no id "
                "for: it stays unpaid (only a pay call pays) and costs nothing"
            )
    for line, why in plan.skipped:
        where = f"{plan.source}:{line.line}: " if line.line else ""
        print(f"{where}skipped {line.participant_id}: {why}")
    print(
        f"reason {plan.reason!r}: {len(plan.to_pay)} participant(s) to pay, {money(plan.cents)} before fees"
        + (f"; {len(plan.skipped)} skipped" if plan.skipped else "")
    )


def run_pause(args: argparse.Namespace) -> int:
    from infact.errors import InfactError, Problem
    from infact.prolific.pause import pause_once
    from infact.results.analyze import Options, analyze_study

    s = _session(args)
    if not s.study.config.monitoring.declared:
        raise InfactError(
            Problem(
                "study.toml",
                "no stopping rule is declared: add [monitoring] stop_when_settled, precision or max_participants "
                "before the study starts (docs/ranking.md, 'Watching a study')",
                key="monitoring",
            )
        )
    result = analyze_study(s.study, s.storage, Options(n_boot=100)).result
    rule = result["stopping_rule"]
    print(f"stopping rule (declared in study.toml): {rule['rule']}")
    if not rule["met"]:
        print(f"not met at {rule['n_participants']} participants; nothing sent")
        return 0
    print("met: " + "; ".join(rule["reasons"]))
    if args.dry_run:
        print("dry run: nothing sent")
        return 0
    print(pause_once(s, args.prolific_id, rule["reasons"]).note)
    return 0


def run_message(args: argparse.Namespace) -> int:
    from infact.prolific import messages

    s = _session(args)
    done = messages.send(
        s, args.to, args.text, args.prolific_id, confirm_sent=args.confirm_sent, confirm_unsent=args.confirm_unsent
    )
    if done.confirmed:
        state = "arrived" if args.confirm_sent else "did not arrive"
        print(f"recorded: the unconfirmed message {state} for {', '.join(done.confirmed)}")
    if done.already:
        print(f"already sent to {', '.join(done.already)}; not sent again")
    print(f"sent to {len(done.sent)} participant(s)" + (f": {', '.join(done.sent)}" if done.sent else ""))
    return 0
