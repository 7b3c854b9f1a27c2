"""`prolific create | publish | sync | review | bonus | message`: the paid cycle on Prolific (docs/prolific.md).

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
    p = sub_command(
        "bonus",
        "create a bulk bonus, show its cost; --apply pays it exactly once",
        "Create a bulk bonus from --csv (participant_id,amount lines) or [prolific] bonus_per_completed, print its "
        "total cost, and pay it once with --apply. A rerun never pays twice (docs/prolific.md).",
        run_bonus,
    )
    p.add_argument("--csv", metavar="FILE", help="participant_id,amount per line (Prolific's bulk bonus format)")
    p.add_argument("--name", help="this bonus's name in the store (default: a hash of its lines)")
    p.add_argument("--prolific-id", metavar="ID", help="the Prolific study id (default: the recorded one)")
    p.add_argument("--apply", action="store_true", help="pay it (the pay call is sent at most once)")
    p.add_argument("--confirm-paid", metavar="BONUS_ID", help="you checked on Prolific: the unconfirmed pay call paid")
    p.add_argument("--confirm-unpaid", metavar="BONUS_ID", help="you checked on Prolific: it did not pay")
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
    pid = s.prolific_id(args.prolific_id)
    rows = bonus.read_csv(Path(args.csv)) if args.csv else bonus.rule_rows(s)
    name = args.name or bonus.default_name(rows)
    if args.confirm_paid or args.confirm_unpaid:
        st = bonus.confirm(s, name, args.confirm_paid or args.confirm_unpaid, paid=bool(args.confirm_paid))
        print(f"recorded: bulk bonus {st.bonus_id} {'paid' if st.paid else 'not paid'}")
        if st.paid or not args.apply:
            return 0
    st = bonus.state(s, name)
    for note in st.notes:
        print(f"warning: {note}")
    if st.paid:
        print(f"bonus {name}: bulk bonus {st.bonus_id} is already paid; nothing sent")
        return 0
    print(f"bonus {name}: {len(rows)} participant(s), {sum(a for _, a in rows):.2f} before fees")
    st = bonus.ensure_created(s, rows, name, pid)
    print(bonus.cost_line(st))
    if not args.apply:
        if st.uncertain:
            print(f"warning: {bonus.uncertain_problem(st).message}")
        print("not paid: add --apply to pay it (once)")
        return 0
    st = bonus.pay(s, st)
    print(f"paid: bulk bonus {st.bonus_id} (Prolific pays within minutes)")
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
