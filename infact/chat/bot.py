"""A bot participant that chats: the live step played through `LiveRun`, like a person would.

It opens with a taste ("something funny, I loved Superbad"), answers the system's
questions, says when it has seen a suggestion, rates answers with items as
helpful when they fit its taste, ends satisfied once it got a fitting movie (or
frustrated after `patience` unhelpful answers), fills in the rubric from how the
chat went and votes for the chat that served it better. A failing system is
retried once, then skipped — the same buttons a participant has.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from infact.chat.arena import BOTH_BAD, TIE, LiveRun, Phase
from infact.chat.conversation import Conversation, play_live
from infact.chat.demo_systems import GENRE_WORDS, catalogue

OPENERS = (
    "hi! can you recommend {g} movie? i loved {t}",
    "i'm in the mood for something {w} tonight",
    "looking for a {w} film, any ideas?",
)
FOLLOW_UPS = (
    "seen that one already, anything else?",
    "hmm, something a bit different maybe?",
    "what else do you have that is {w}?",
)


class ChattingBot:
    def __init__(
        self, run: LiveRun, rng: random.Random, *, spend: Callable[[float], None] = lambda s: None, patience: int = 2
    ):
        self.run, self.rng, self.spend, self.patience = run, rng, spend, patience
        self.genre = rng.choice(sorted(GENRE_WORDS))
        self.word = GENRE_WORDS[self.genre][0]
        self.liked = {t for t, gs in catalogue() if self.genre in gs}
        self.scores: dict[str, float] = {}

    def play(self) -> Phase:
        return play_live(self)

    def _message(self, conv: Conversation) -> str:
        if conv.user_turns == 0:
            pick = self.rng.choice(sorted(self.liked))
            return self.rng.choice(OPENERS).format(g="a " + self.word, w=self.word, t=pick)
        return self.rng.choice(FOLLOW_UPS).format(w=self.word)

    def chat(self, slot: str) -> None:
        session = self.run.session(slot)
        misses = 0
        while True:
            conv = self.run.conversation(slot)
            if conv.ended is not None:
                return
            if conv.awaiting_reply:
                self.spend(5)
                if not session.retry().ok:
                    session.skip()
                    self.scores[slot] = 0.0
                    return
                continue
            self.spend(self.rng.uniform(6, 20))  # reading and typing
            outcome = session.send(self._message(conv))
            if not outcome.ok and outcome.failure is None:
                return  # refused (e.g. the chat just ended at max_turns)
            last = self.run.conversation(slot).turns[-1]
            if not last.ok:
                continue
            fits = bool(set(last.items) & self.liked)
            if self.run.live.turn_rating:
                session.rate_turn(last.turn, fits)
            misses = 0 if fits else misses + 1
            conv = self.run.conversation(slot)
            self.scores[slot] = self.scores.get(slot, 0.0) + (1.0 if fits else -0.3)
            if conv.ended is None and self.run.can_end(conv) and (fits or misses >= self.patience):
                session.end("satisfied" if fits else "frustrated")

    def rubric(self, slot: str) -> None:
        scale = self.run.live.rubric_scale
        conv = self.run.conversation(slot)
        good = conv.ended is not None and conv.ended.get("ended_by") == "satisfied"
        centre = (len(scale) - 1) * (0.8 if good else 0.3)
        answers = {
            item.id: scale[int(min(len(scale) - 1, max(0, round(self.rng.gauss(centre, 0.6)))))]
            for item in self.run.live.rubric
        }
        self.spend(self.rng.uniform(15, 40))
        self.run.submit_rubric(slot, answers, seconds=None)

    def vote(self) -> None:
        a, b = self.scores.get("A", 0.0), self.scores.get("B", 0.0)
        choice = "A" if a > b else "B" if b > a else (TIE if self.run.live.allow_tie else "A")
        if self.run.live.allow_both_bad and max(a, b) <= 0:  # neither found a fitting movie
            choice = BOTH_BAD
        need = self.run.live.vote_reason_min_chars
        reason = {
            TIE: "Both were about equally helpful for finding a movie.",
            BOTH_BAD: "Neither of them found a movie that fits what I asked for.",
        }.get(choice, "It understood what I asked for and found a movie I would watch.")
        while len(reason) < need:  # a study that asks for a long reason gets a longer one
            reason += " " + reason
        self.spend(self.rng.uniform(5, 15))
        self.run.submit_vote(choice, reason)
