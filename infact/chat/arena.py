"""One participant's live evaluation: chat with A (then B), rubric after each chat, then the vote.

    assignment → chat A → rubric A → [chat B → rubric B → vote] → done

`LiveRun` holds no state of its own: every call reads the participant's records,
so the page, the bots and the tests can each create one per request, and a reload
(or another server process) continues at the same place. The live step kind
(infact/participation/steps/) and bench/live.py drive it.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from infact.chat.client import SystemClient
from infact.chat.conversation import Conversation, conversation_id, read_conversation
from infact.chat.identity import LeakDetector
from infact.chat.schedule import choose_systems
from infact.chat.session import ChatSession, iso, utcnow
from infact.storage import Storage
from infact.study.live_config import live_version
from infact.study.loader import Study
from infact.text.catalogue import _, number
from infact.values import label_to_point, response_letter

TIE = "tie"
BOTH_BAD = "both_bad"  # "both bad", kept apart from a tie (LMArena); offered with live.allow_both_bad


@dataclass(frozen=True)
class Phase:
    name: str  # "chat" | "rubric" | "vote" | "done"
    slot: str | None = None  # "A" / "B" for chat and rubric


class LiveRun:
    def __init__(
        self,
        study: Study,
        storage: Storage,
        clients: Mapping[str, SystemClient],
        token: str,
        *,
        preview: bool = False,
        clock: Callable[[], datetime] = utcnow,
        condition: str | None = None,
    ):
        self.study, self.storage, self.clients, self.token = study, storage, clients, token
        # A between-subjects study's condition (`study` is then the condition's): every record carries it, and the
        # arena balances its pairs among the condition's own participants.
        self.condition = condition
        self.live = study.config.live
        self.preview, self.clock = preview, clock
        self.detector = LeakDetector(study.systems, self.live.identity_words)

    # -- records ---------------------------------------------------------------
    def _append(self, kind: str, suffix: str, **fields: Any) -> bool:
        return self.storage.append(
            {
                "key": f"{self.study.id}/{self.token}/chat/{suffix}",
                "study": self.study.id,
                "dataset_version": self.study.dataset_version,
                "participant": self.token,
                "kind": kind,
                "at": iso(self.clock()),
                "preview": self.preview,
                **({"condition": self.condition} if self.condition is not None else {}),
                **fields,
            }
        )

    def records(self) -> list[dict]:
        return self.storage.records(study=self.study.id, participant=self.token)

    # -- who, where --------------------------------------------------------------
    def systems(self, records: list[dict] | None = None) -> list[str]:
        """The systems this participant meets, in chat order; assigned (and stored) on first call."""
        mine = next((r for r in (records or self.records()) if r.get("kind") == "chat_assignment"), None)
        if mine is not None:
            return list(mine["systems"])
        with self.storage.lock():
            mine = next((r for r in self.records() if r.get("kind") == "chat_assignment"), None)
            if mine is None:
                others = (
                    []
                    if self.preview
                    else [
                        *self.storage.records(study=self.study.id, kind="chat_assignment"),
                        *(self.storage.records(study=self.study.id, kind="chat_vote") if self.live.arena else []),
                    ]
                )
                others = [r for r in others if r.get("condition") == self.condition]  # each condition alike
                chosen = choose_systems(
                    self.study.systems,
                    others,
                    arena=self.live.arena,
                    rng=random.Random(secrets.randbits(64)),
                    mode=self.live.pairs,
                )
                self._append("chat_assignment", "assignment", systems=chosen)
                return chosen
        return list(mine["systems"])

    def slots(self, records: list[dict] | None = None) -> dict[str, str]:
        return {response_letter(i + 1): s for i, s in enumerate(self.systems(records))}

    def conversation(self, slot: str, records: list[dict] | None = None) -> Conversation:
        records = records if records is not None else self.records()
        system = self.slots(records)[slot]
        return read_conversation(records, conversation_id(self.token, slot), system, slot)

    def session(self, slot: str) -> ChatSession:
        system = self.slots()[slot]
        return ChatSession(
            self.storage,
            study_id=self.study.id,
            dataset_version=self.study.dataset_version,
            token=self.token,
            slot=slot,
            system=system,
            client=self.clients[system],
            system_version=self.version(system),
            detector=self.detector,
            max_turns=self.live.max_turns,
            preview=self.preview,
            clock=self.clock,
            condition=self.condition,
        )

    def version(self, system: str) -> str | None:
        """The system's version as its client says (live_config.live_version), else from study.toml when the
        study declares all it needs (a stand-in client in tests and benches); None when neither knows."""
        known = getattr(self.clients.get(system), "version", None)
        settings = self.live.systems.get(system)
        return known or (live_version(settings, self.study.config.endpoints) if settings is not None else None)

    def vote(self, records: list[dict] | None = None) -> dict | None:
        return next((r for r in (records or self.records()) if r.get("kind") == "chat_vote"), None)

    def phase(self, records: list[dict] | None = None) -> Phase:
        records = records if records is not None else self.records()
        for slot in self.slots(records):
            conv = self.conversation(slot, records)
            if conv.ended is None:
                return Phase("chat", slot)
            if conv.rubric is None and not conv.never_answered:
                return Phase("rubric", slot)
        if self.live.arena and self.vote(records) is None:
            return Phase("vote")
        return Phase("done")

    # -- answers -------------------------------------------------------------------
    def can_end(self, conv: Conversation) -> bool:
        return conv.user_turns >= self.live.min_turns and not conv.awaiting_reply

    def submit_rubric(
        self, slot: str, answers: Mapping[str, Any], seconds: float | None = None, fallback: list[str] | None = None
    ) -> list[str]:
        """`fallback`: items a simulated participant did not answer with a label (a stand-in was taken)."""
        scale = self.live.rubric_scale
        points: dict[str, int] = {}
        errors = []
        for n, item in enumerate(self.live.rubric, start=1):
            p = label_to_point(answers.get(item.id), scale)
            if p is None:
                errors.append(_("Please answer statement {n}: {text}").format(n=number(n), text=_(item.question)))
            else:
                points[item.id] = p
        if errors:
            return errors
        self.session(slot).submit_rubric(points, {k: scale[v - 1] for k, v in points.items()}, seconds, fallback)
        return []

    def unanswered(self, records: list[dict] | None = None) -> list[str]:
        """Slots whose chat was skipped before any usable answer: nothing to compare them by."""
        records = records if records is not None else self.records()
        return [s for s in self.slots(records) if self.conversation(s, records).never_answered]

    def submit_vote(
        self, choice: str, reason: str = "", seconds: float | None = None, typing: dict | None = None
    ) -> list[str]:
        """`choice` is what the participant picked: "A", "B", "tie" or (if offered) "both_bad"; `typing` how the
        reason was typed (the page's counts, infact/text/typed.py), stored with it.

        When a chatbot never answered the participant is not asked to compare (the page says so):
        the vote is stored as a forfeit, `choice` null and `winner` the chatbot that answered
        (`tie` when neither did), with `skipped` naming the other, so rankings leave it out."""
        records = self.records()
        slots = self.slots(records)
        if self.unanswered(records):
            return self._store_vote(records, None, "", seconds, None)
        allowed = [TIE] * self.live.allow_tie + [BOTH_BAD] * self.live.allow_both_bad
        if choice not in (*slots, *allowed):
            return [_vote_missing(self.live.allow_tie, self.live.allow_both_bad)]
        reason = (reason or "").strip()
        need = self.live.vote_reason_min_chars
        if len(reason) < need:
            return [_("Please say in a few words why (at least {n} characters).").format(n=number(need))]
        return self._store_vote(records, choice, reason, seconds, typing if reason else None)

    def _store_vote(
        self, records: list[dict], choice: str | None, reason: str, seconds: float | None, typing: dict | None
    ) -> list[str]:
        convs = [self.conversation(s, records) for s in self.slots(records)]
        leaks = sorted({w for c in convs for w in c.leaks})
        a, b = convs[0], convs[1]
        if choice is None:  # a forfeit: the chatbot that answered, if one did
            answered = [c.system for c in convs if not c.never_answered]
            winner = answered[0] if len(answered) == 1 else TIE
        else:
            winner = choice if choice in (TIE, BOTH_BAD) else {"A": a.system, "B": b.system}[choice]
        self._append(
            "chat_vote",
            "vote",
            system_a=a.system,
            system_b=b.system,
            shown_left=a.system,
            winner=winner,
            choice=choice,
            justification=reason[:2000],
            justification_typing=typing,
            forfeit=choice is None,
            seconds=seconds,
            conversation_a=a.conversation_id,
            conversation_b=b.conversation_id,
            identity_leak=bool(leaks),
            leaked_words=leaks,
            skipped=[c.system for c in convs if (c.ended or {}).get("ended_by") == "skipped"],
        )
        return []


def _vote_missing(tie: bool, both_bad: bool) -> str:
    """The vote page's message when no choice was given, naming the answers it offers."""
    if tie and both_bad:
        return _("Please choose which chatbot was better (or that they were about the same, or that both were bad).")
    if tie:
        return _("Please choose which chatbot was better (or that they were about the same).")
    if both_bad:
        return _("Please choose which chatbot was better (or that both were bad).")
    return _("Please choose which chatbot was better.")
