"""`infact plan`: balanced vs random-sampling participant counts, and power."""

from __future__ import annotations

import json

import numpy as np
import pytest

from infact.cli.main import main
from infact.errors import InfactError
from infact.results.ratings.planner import (
    COVERAGE,
    balanced_participants,
    contrast_sd,
    coverage_bound,
    format_plan,
    plan,
    power_participants,
    random_participants,
)


def test_balanced_matches_the_hand_computation():
    assert balanced_participants(70, 10, 5, a=1) == 39  # ⌈350/9⌉
    assert balanced_participants(70, 10, 5, a=1, e=0.2) == 49  # ⌈39/0.8⌉
    assert balanced_participants(90, 10, 5, a=1) == 50  # 450/9 exactly: no round-up


def test_exclusion_division_is_exact_not_floating_point():
    # 21 / 0.7 is 30.000000000000004 in floating point; the answer is 30.
    assert balanced_participants(21, 2, 1, a=1, e=0.3) == 30


def test_random_sampling_when_everyone_sees_everything_needs_exactly_k():
    # m = P: every participant rates every situation, so k participants give k ratings each.
    assert random_participants(5, 6, 3, a=1) == 3


def test_random_sampling_is_the_first_n_reaching_95_percent():
    n = random_participants(70, 10, 5, a=1)
    assert coverage_bound(n, 70, 9, 5) >= COVERAGE > coverage_bound(n - 1, 70, 9, 5)
    assert n > balanced_participants(70, 10, 5)


def _simulated_coverage(N, P, m, k, reps=4000, seed=7):
    rng = np.random.default_rng(seed)
    counts = np.zeros((reps, P), dtype=int)
    for _ in range(N):  # each participant draws m distinct situations
        picks = np.argsort(rng.random((reps, P)), axis=1)[:, :m]
        np.add.at(counts, (np.arange(reps)[:, None], picks), 1)
    return float((counts >= k).all(axis=1).mean())


def test_random_sampling_answer_holds_in_simulation():
    P, n, k = 12, 4, 3
    N = random_participants(P, n, k, a=1)
    # The union bound is conservative: the simulated coverage is at least 95 % (± noise) ...
    assert _simulated_coverage(N, P, n - 1, k) >= 0.94
    # ... and falls short well before the balanced minimum would suggest enough.
    assert _simulated_coverage(balanced_participants(P, n, k), P, n - 1, k) < 0.5


def test_power_matches_the_textbook_paired_t_test():
    # icc = 1: averaging situations does not help, contrast SD = √2·sd; dz = 0.5 needs 34
    # participants at alpha .05, power .8 (G*Power, two-sided paired t-test).
    assert contrast_sd(1.0, 1.0, m=9) == pytest.approx(2**0.5)
    n, dz = power_participants(0.5 * 2**0.5, 1.0, 1.0, m=9)
    assert dz == pytest.approx(0.5)
    assert n == 34


def test_contrast_sd_is_the_design_effect():
    # Var = 2·sd²·(1+(m−1)·icc)/m
    assert contrast_sd(1.2, 0.25, m=5, corr=0.0) ** 2 == pytest.approx(2 * 1.44 * (1 + 4 * 0.25) / 5)
    assert contrast_sd(1.0, 0.0, m=4, corr=0.5) ** 2 == pytest.approx(2 * 0.5 / 4)


def test_power_n_is_monotone_in_every_input():
    base = dict(delta=0.3, sd=1.0, icc=0.2, m=9)

    def n(**change):
        args = {**base, **change}
        m = args.pop("m")
        extra = {k: args.pop(k) for k in ("corr", "alpha", "power", "pairs") if k in args}
        return power_participants(args["delta"], args["sd"], args["icc"], m, **extra)[0]

    deltas = [n(delta=d) for d in (0.2, 0.3, 0.5, 0.8)]
    assert deltas == sorted(deltas, reverse=True) and deltas[0] > deltas[-1]
    for key, values in (
        ("sd", (0.6, 1.0, 1.5)),
        ("icc", (0.0, 0.2, 0.6, 1.0)),
        ("power", (0.7, 0.8, 0.9)),
        ("pairs", (1, 3, 6)),
    ):
        ns = [n(**{key: v}) for v in values]
        assert ns == sorted(ns) and ns[0] < ns[-1], key
    ms = [n(m=m) for m in (1, 3, 9, 30)]
    assert ms == sorted(ms, reverse=True) and ms[0] > ms[-1]
    alphas = [n(alpha=a) for a in (0.01, 0.05, 0.1)]
    assert alphas == sorted(alphas, reverse=True)


def test_plan_combines_and_recommends_the_larger():
    r = plan(70, 10, 5, a=1, e=0.2, delta=0.3, sd=1.0, icc=0.2)
    assert r["balanced"] == {"participants_before_exclusions": 39, "participants": 49}
    before = r["power"]["participants_before_exclusions"]
    assert r["power"]["participants"] == -(-before * 5 // 4)  # ⌈before / 0.8⌉
    assert r["recommended"] == max(49, r["power"]["participants"])
    assert "power" not in plan(70, 10, 5)
    json.dumps(r)  # serialisable as is


def test_the_plan_gives_the_maximum_to_declare_for_watching():
    """The power N × the finite-horizon boundary's inflation at that maximum (issue 37 item 5), in the text too."""
    from infact.stats.horizon import inflation

    r = plan(70, 10, 5, delta=0.5, sd=1.0, icc=0.3)
    p = r["power"]
    assert (
        p["participants"] < p["declared_maximum"] <= p["participants"] * inflation(0.05, 0.8, p["declared_maximum"]) + 1
    )
    assert f"max_participants = {p['declared_maximum']}" in format_plan(r)


@pytest.mark.parametrize(
    "args, flag",
    [
        (dict(P=70, n=1, k=5, a=1), "--per-participant"),
        (dict(P=5, n=10, k=5, a=1), "--per-participant"),
        (dict(P=70, n=10, k=0), "--ratings-per-situation"),
        (dict(P=70, n=10, k=5, e=1.0), "--exclusion-rate"),
        (dict(P=70, n=10, k=5, delta=0.3), "--sd"),
        (dict(P=70, n=10, k=5, delta=-1, sd=1, icc=0.2), "--delta"),
        (dict(P=70, n=10, k=5, delta=0.3, sd=1, icc=1.5), "--icc"),
    ],
)
def test_bad_inputs_name_the_flag(args, flag):
    with pytest.raises(InfactError) as err:
        plan(**args)
    assert flag in [p.key for p in err.value.problems]


def test_cli_text_json_and_errors(capsys):
    assert (
        main(
            [
                "plan",
                "--situations",
                "70",
                "--per-participant",
                "10",
                "--ratings-per-situation",
                "5",
                "--exclusion-rate",
                "0.2",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "49 participants" in out and "INFACT random sampling" in out
    assert (
        main(["plan", "--situations", "70", "--per-participant", "10", "--ratings-per-situation", "5", "--json"]) == 0
    )
    assert json.loads(capsys.readouterr().out)["balanced"]["participants"] == 39
    assert main(["plan", "--situations", "70", "--per-participant", "1", "--ratings-per-situation", "5"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "--per-participant" in err and "Traceback" not in err
