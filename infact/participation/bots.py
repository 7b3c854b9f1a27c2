"""Bot participants: play a study through the same Flow and storage as the UI.

Each bot runs on its own simulated clock, so a speeder's two-second pages and an
attentive reader's half-minute ones end up in the stored timings exactly as a
real participant's would — without the test waiting for them. Bots are used by
the tests, the benchmarks and to fill a demo dashboard (`python -m infact bots`).

Every record a bot writes carries `bot` (its strategy): tables, the dashboard and the analysis tell bots from
people by it, and `infact bots --remove` deletes them. The planted quality (`quality`: mean answer per system)
is explicit: `planted_quality(study, "alike" | "ordered" | "A=4,B=3")`; the library's default is "ordered" (the
first listed system best: what the tests and benchmarks check the analysis against), the command's is "alike".
A bot's simulated clock never runs ahead of wall time: by default it starts far enough in the past, and waits
for the wall clock should it still catch up.

Strategies:
- attentive       reads, rates with a planted per-system quality, passes every check
- straightliner   gives every response of a situation the same rating; follows instructions
- speeder         clicks through in a few seconds per page with random ratings, but
                  follows explicit instructions (a skimmer sees them)
- fails-attention rates like an attentive bot but ignores the instructed responses
- refresh-midway  attentive, but "reloads the page" half-way (a fresh Flow, the same
                  token) and double-submits a page; must end exactly like attentive
- abandons        attentive for a few situations, then closes the tab
- fails-comprehension attentive, but answers the comprehension check ([comprehension]) wrong both times
- llm             a simulated participant: an LLM plays a persona on every page a step kind gives it
                  (`simulated_answers`: infact/llm/simulated.py) and in the live chats; marked as simulated
"""

from __future__ import annotations

import hashlib
import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from infact.errors import InfactError, Problem, SimulatorFailed
from infact.llm.simulated import SimulatedParticipant
from infact.participation import steps as registry
from infact.participation.flow import Flow, utcnow
from infact.participation.steps import Step
from infact.participation.strategies import SIMULATED, STRATEGIES
from infact.state import State
from infact.storage import Storage
from infact.study.loader import Study

# A realistic crowd: most attentive, a quarter not (INFACT excluded 16-26%).
MIX = {
    "attentive": 0.62,
    "refresh-midway": 0.08,
    "straightliner": 0.1,
    "speeder": 0.08,
    "fails-attention": 0.07,
    "abandons": 0.05,
}


@dataclass
class BotResult:
    token: str
    strategy: str
    completed: bool  # reached the end (completed or screened out)
    completion_code: str | None
    steps_submitted: int
    outcome: str | None = None  # "completed", "screened_out" or None (unfinished)
    failure: str | None = None  # why a simulated participant stopped: its own LLM failed (SimulatorFailed)
    fallbacks: int = 0  # a simulated participant's answers that were not a label (a stand-in was stored)
    condition: str | None = None  # a between-subjects study's condition (assigned at consent)


class SimClock:
    """A per-bot clock that moves only when the bot 'spends' time, never past the wall clock: a bot that would
    get ahead waits for it (its records would otherwise show activity that has not happened yet)."""

    def __init__(self, start: datetime, wall: Callable[[], datetime] | None = utcnow):
        if wall is not None and start > wall() + timedelta(seconds=1):
            raise ValueError(f"a bot's clock cannot start in the future ({start.isoformat()})")
        self.now, self.wall = start, wall

    def __call__(self) -> datetime:
        return self.now

    def spend(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)
        ahead = (self.now - self.wall()).total_seconds() if self.wall is not None else 0.0
        if ahead > 0:
            time.sleep(ahead)


def horizon(study: Study) -> timedelta:
    """How far back a bot starts by default so that it finishes before now: a generous bound on its run
    (every page at twice the slowest page's mean time); should it still catch up, its clock waits."""
    cfg = study.config
    pages = cfg.study.situations_per_participant * max(1, len(cfg.blocks)) + 8  # + consent, checks, questionnaire…
    slowest = max(k.bot_seconds for k in registry.kinds()) + 6 * max(1, len(study.systems))
    return timedelta(seconds=2 * pages * slowest)


def default_quality(study: Study) -> dict[str, float]:
    """Planted mean rating per system, `ordered`: the first listed system best, the last worst."""
    systems = study.systems
    k = len(study.config.scale.labels)
    if len(systems) == 1:
        return {systems[0]: (k + 1) / 2}
    hi, lo = k - 0.9, 1.9
    return {s: hi - (hi - lo) * i / (len(systems) - 1) for i, s in enumerate(systems)}


def alike_quality(study: Study) -> dict[str, float]:
    """Planted mean rating per system, `alike`: every system the scale's middle (nothing to find)."""
    k = len(study.config.scale.labels)
    return dict.fromkeys(study.systems, (k + 1) / 2)


def planted_quality(study: Study, spec: str) -> dict[str, float]:
    """The quality `spec` plants: `alike`, `ordered` or `SYSTEM=MEAN,…` (every system, means on the scale)."""
    spec = spec.strip()
    if spec in ("alike", "ordered"):
        return alike_quality(study) if spec == "alike" else default_quality(study)
    k = len(study.config.scale.labels)
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        name, _, value = part.partition("=")
        try:
            mean = float(value)
        except ValueError:
            mean = None
        if name.strip() not in study.systems or mean is None or not 1 <= mean <= k:
            raise InfactError(
                Problem(
                    "--quality",
                    f"{part!r}: give alike, ordered or SYSTEM=MEAN for each of {', '.join(study.systems)} "
                    f"with a mean from 1 to {k} (e.g. {study.systems[0]}={(k + 1) / 2:g})",
                )
            )
        out[name.strip()] = mean
    missing = [s for s in study.systems if s not in out]
    if missing:
        raise InfactError(Problem("--quality", f"no mean for {', '.join(missing)}: give every system one"))
    return out


def describe_quality(quality: dict[str, float]) -> str:
    """The planted quality in one line: `A 4.1 > B 3.0 > C 1.9`, or that every system is alike."""
    if len(set(quality.values())) <= 1:
        return f"every system alike (mean {next(iter(quality.values()), 0):.1f})"
    ranked = sorted(quality.items(), key=lambda kv: -kv[1])
    return " > ".join(f"{s} {m:.1f}" for s, m in ranked)


class Bot:
    def __init__(
        self,
        study: Study,
        storage: Storage,
        strategy: str,
        *,
        seed: int,
        start: datetime | None = None,
        quality: dict[str, float] | None = None,
        query: dict | None = None,
        preview: bool = False,
        simulator: Any = None,
    ):
        if strategy not in (*STRATEGIES, SIMULATED):
            raise ValueError(f"unknown bot strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}")
        self.study, self.storage, self.strategy = study, storage, strategy
        self.shown = study  # the study as this bot sees it: its between-subjects condition's, once assigned
        if (strategy == SIMULATED) != (simulator is not None):
            raise ValueError('strategy "llm" needs a simulator (an endpoint and a persona), and only it takes one')
        # (LLMClient, persona text[, {constrain, request}]): an LLM plays the participant — its live chats
        # (infact/chat/llm_chat.py) and every page a step kind gives it (`simulated_answers`, infact/llm/simulated.py)
        self.simulator = simulator[:2] if simulator is not None else None
        self.simulated = (
            SimulatedParticipant(
                simulator[0],
                simulator[1],
                instructions=study.config.texts.instructions,
                **(simulator[2] if len(simulator) > 2 else {}),
            )
            if simulator is not None
            else None
        )
        self.rng = random.Random(seed)
        self.clock = SimClock(start or utcnow() - horizon(study))
        self.quality = quality or default_quality(study)
        self.query = query or {}
        self.preview = preview
        self.bias = self.rng.gauss(0, 0.4)  # a participant's own leniency
        self.submitted = 0
        self.fallbacks = 0  # added to by an LLM-played live step (infact/participation/steps/live.py)

    def flow(self) -> Flow:
        # The flow draws its assignment from the bot's seed: a single-threaded run gets the same situations again.
        rng = random.Random(self.rng.getrandbits(64))
        return Flow(self.study, self.storage, clock=self.clock, rng=rng, bot=self.strategy)

    # -- timing and answers: each step kind says how a bot answers it -----------
    def _seconds(self, step: Step) -> float:
        if self.strategy == "speeder":
            return self.rng.uniform(1.0, 2.5)
        base = registry.get(step.kind).bot_time(step)
        return min(2 * base, max(3.0, self.rng.gauss(base, base * 0.25)))

    def _answers(self, step: Step) -> tuple[dict, dict]:
        """(the answers, fields stored with them: a simulated participant's provenance and fallbacks)."""
        kind = registry.get(step.kind)
        if self.simulated is not None:
            answers = kind.simulated_answers(self.shown, step, self.simulated)
            if answers is not None:
                return answers, self.simulated.take()
        return kind.bot_answers(self.shown, step, self), {}

    @property
    def all_fallbacks(self) -> int:
        return self.fallbacks + (self.simulated.fallbacks if self.simulated is not None else 0)

    # -- playing -----------------------------------------------------------------
    def run(self) -> BotResult:
        try:
            return self._play()
        except SimulatorFailed as exc:  # nothing made up in its place: the participant stays unfinished
            return BotResult(
                self._token, self.strategy, False, None, self.submitted, None, str(exc), self.all_fallbacks
            )

    def _play(self) -> BotResult:
        flow = self.flow()
        token = self._token = flow.arrive(self.query, preview=self.preview)
        self.shown = flow.of(flow.state(token)).study
        if self.simulator is not None:  # marked at once: simulated data is left out of human results
            llm, persona = self.simulator
            flow.mark_simulated(
                token,
                self.preview,
                by="llm",
                endpoint=llm.name,
                model=llm.endpoint.model,
                persona_sha256=hashlib.sha256(persona.encode()).hexdigest()[:16],
            )
        situations_done = 0
        abandon_after = self.rng.randint(2, 5)
        refresh_after = max(1, self.study.config.study.situations_per_participant // 2)
        refreshed = False
        st: State | None = flow.state(token)
        while st is not None and not st.finished:
            step = flow.current(st)
            if step.kind == "done":
                break
            if self.strategy == "abandons" and situations_done >= abandon_after:
                break
            flow.mark_shown(st, step)
            self.clock.spend(self._seconds(step))
            answers, extra = self._answers(step)  # SimulatorFailed: nothing is stored for this step
            result = flow.submit(token, step.name, answers, extra)
            if not result.ok:
                raise RuntimeError(f"bot {self.strategy} could not submit {step.name}: {result.errors}")
            self.submitted += 1
            if registry.get(step.kind).per_situation:
                situations_done += 1
            if self.strategy == "refresh-midway" and not refreshed and situations_done >= refresh_after:
                refreshed = True
                again = flow.submit(token, step.name, answers)  # the double click
                if not again.ok or again.stored:
                    raise RuntimeError("a repeated submit was stored twice or refused")
                flow = self.flow()  # the reload: nothing but the token survives
            st = flow.state(token)
        st = flow.state(token)
        code = st.complete.get("completion_code") if st and st.complete else None
        outcome = st.complete.get("outcome") if st and st.complete else None
        complete = bool(st and st.complete)
        condition = (st.arrival or {}).get("condition") if st else None
        return BotResult(
            token,
            self.strategy,
            complete,
            code,
            self.submitted,
            outcome,
            fallbacks=self.all_fallbacks,
            condition=condition,
        )


def pick_strategies(n: int, strategy: str | None, rng: random.Random) -> list[str]:
    if strategy:
        return [strategy] * n
    names, weights = zip(*MIX.items())
    return list(rng.choices(names, weights=weights, k=n))


def run_bots(
    study: Study,
    storage: Storage,
    n: int,
    *,
    strategy: str | None = None,
    seed: int = 0,
    concurrency: int = 1,
    start: datetime | None = None,
    on_done: Callable[[BotResult], None] | None = None,
    simulator: Any = None,
    quality: dict[str, float] | None = None,
) -> list[BotResult]:
    """Play `n` bots (a realistic mix unless `strategy` is given), `concurrency` at a time, arriving 7 s apart;
    `quality`: the planted mean per system (default: `ordered`, see `planted_quality`). By default the first
    arrives far enough in the past that the last finishes before now."""
    rng = random.Random(seed)
    strategies = pick_strategies(n, strategy, rng)
    start = start or datetime.now(UTC) - horizon(study) - timedelta(seconds=7 * n)
    seeds = [rng.randrange(2**32) for _ in range(n)]
    lock = threading.Lock()

    def play(i: int) -> BotResult:
        bot = Bot(
            study,
            storage,
            strategies[i],
            seed=seeds[i],
            start=start + timedelta(seconds=7 * i),
            simulator=simulator,
            quality=quality,
        )
        result = bot.run()
        if on_done:
            with lock:
                on_done(result)
        return result

    if concurrency <= 1:
        return [play(i) for i in range(n)]
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        return list(pool.map(play, range(n)))
