"""Which cut points a study uses: all, a seeded sample, stratified samples."""

from collections import Counter

import pytest

from infact.errors import ConfigError
from infact.study.sampling import allocate, select_situations, strata
from infact.study.situations import Situation, Turn


def make(n_dialogs=10, n_turns=9):
    out = []
    for d in range(n_dialogs):
        turns = [
            Turn("user" if i % 2 == 0 else "bot", f'see "Film {d}"' if (d + i) % 3 == 0 else f"t{i}")
            for i in range(n_turns)
        ]
        for k in range(1, n_turns + 1, 2):
            out.append(
                Situation(
                    f"d{d}-t{k}",
                    f"d{d}",
                    tuple(turns[:k]),
                    {"S": "r"},
                    meta={
                        "turn": k,
                        "n_turns": n_turns,
                        "relative_position": k / n_turns,
                        "item_mentioned": any('"' in t.text for t in turns[:k]),
                    },
                )
            )
    return out


def test_all_keeps_everything_in_order():
    sits = make()
    assert select_situations(sits) == sits


def test_sample_is_deterministic_and_seed_dependent():
    sits = make()
    a = select_situations(sits, mode="sample", size=12, seed=7)
    assert a == select_situations(sits, mode="sample", size=12, seed=7)
    assert a != select_situations(sits, mode="sample", size=12, seed=8)
    assert len(a) == 12 and len({s.situation_id for s in a}) == 12
    assert [sits.index(s) for s in a] == sorted(sits.index(s) for s in a)  # file order kept


@pytest.mark.parametrize("stratify", ["position", "item_mentioned"])
def test_stratified_sample_is_proportional(stratify):
    sits = make()
    labels = dict(zip((s.situation_id for s in sits), strata(sits, stratify)))
    population = Counter(labels.values())
    picked = select_situations(sits, mode="sample", size=20, seed=1, stratify=stratify)
    got = Counter(labels[s.situation_id] for s in picked)
    for label, n in population.items():
        assert abs(got[label] - 20 * n / len(sits)) < 1  # largest-remainder rounding


def test_position_buckets_are_thirds():
    sits = make(1, 9)  # relative positions 1/9, 3/9, 5/9, 7/9, 9/9
    assert strata(sits, "position") == ["early", "middle", "middle", "late", "late"]


def test_position_falls_back_to_rank_in_dialog():
    sits = [Situation(f"x-{k}", "x", tuple(Turn("user", "u") for _ in range(k)), {"S": "r"}) for k in (1, 2, 3)]
    assert strata(sits, "position") == ["early", "middle", "late"]


def test_allocate_sums_to_size():
    assert allocate({"a": 5, "b": 3, "c": 2}, 7) == {"a": 4, "b": 2, "c": 1}
    assert sum(allocate({"a": 1, "b": 1, "c": 1}, 2).values()) == 2


@pytest.mark.parametrize(
    "kwargs, key",
    [
        ({"mode": "random"}, "sampling.mode"),
        ({"mode": "sample"}, "sampling.size"),
        ({"mode": "sample", "size": 0}, "sampling.size"),
        ({"mode": "sample", "size": 51}, "sampling.size"),
        ({"mode": "sample", "size": "5"}, "sampling.size"),
        ({"mode": "sample", "size": 5, "seed": "x"}, "sampling.seed"),
        ({"mode": "sample", "size": 5, "stratify": "length"}, "sampling.stratify"),
    ],
)
def test_impossible_requests_name_the_setting(kwargs, key):
    with pytest.raises(ConfigError) as exc:
        select_situations(make(), **kwargs)
    (problem,) = exc.value.problems
    assert problem.file == "study.toml" and problem.key == key
