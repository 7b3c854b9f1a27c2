"""`python -m infact migrate`: copies between backends, verifies, and is safe to re-run."""

from __future__ import annotations

import pytest

from infact.cli.main import main
from infact.errors import InfactError
from infact.migrate import migrate
from infact.storage import MemoryStorage, TinyDBStorage


def participant_records(study: str, participant: str) -> list[dict]:
    base = {"study": study, "participant": participant}
    out = [
        {**base, "key": f"{study}/{participant}/arrival", "kind": "arrival", "platform": "none"},
        {**base, "key": f"{study}/{participant}/step/consent", "kind": "consent", "answers": {"consent": True}},
    ]
    out += [
        {
            **base,
            "key": f"{study}/{participant}/step/situation-{i}",
            "kind": "situation",
            "index": i,
            "responses": [{"position": 1, "system": "A", "ratings": {"fluent": 4}}],
            "seconds": 12.5,
        }
        for i in range(1, 4)
    ]
    return out + [{**base, "key": f"{study}/{participant}/complete", "kind": "complete", "outcome": "completed"}]


@pytest.fixture
def tinydb_source(tmp_path):
    store = TinyDBStorage(tmp_path / "pilot")
    for p in range(5):
        for r in participant_records("s1", f"p{p}"):
            store.append(r)
    for r in participant_records("s2", "q0"):
        store.append(r)
    return tmp_path / "pilot"


def cli(*argv: str) -> int:
    return main(["migrate", *argv])


def test_tinydb_to_tinydb_one_study_then_rerun(tinydb_source, tmp_path):
    first = migrate(tinydb_source, tmp_path / "copy", study="s1")
    assert first["source_records"] == first["copied"] == 30
    assert first["per_kind"]["situation"] == {"source": 15, "target": 15}
    again = migrate(tinydb_source, tmp_path / "copy", study="s1")
    assert again["copied"] == 0 and again["already_present"] == 30
    assert len(TinyDBStorage(tmp_path / "copy").records()) == 30  # s2 was left out


def test_cli_prints_the_verified_counts(tinydb_source, tmp_path, capsys):
    assert cli("--from", str(tinydb_source), "--to", str(tmp_path / "copy")) == 0
    out = capsys.readouterr().out
    assert "36 records" in out and "36 copied" in out and "verified" in out


def test_secrets_toml_names_the_target(tinydb_source, tmp_path, capsys):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(f'[connections.infact]\nurl = "sqlite:///{tmp_path / "answers.db"}"\n')
    assert cli("--from", str(tinydb_source), "--to", str(secrets), "--study-id", "s2") == 0
    assert "6 copied" in capsys.readouterr().out


@pytest.mark.parametrize(
    "make_args, says",
    [
        (lambda tmp: (tmp / "nowhere", tmp / "copy", None), "not an INFACT store"),
        (lambda tmp: ("SRC", tmp / "copy", "nope"), "no records of study 'nope'; studies there: s1, s2"),
        (lambda tmp: ("SRC", "SRC", None), "same store"),
        (lambda tmp: ("SRC", tmp / "empty.toml", None), "[connections.infact]"),
    ],
)
def test_mistakes_are_explained(tinydb_source, tmp_path, make_args, says):
    (tmp_path / "empty.toml").write_text("")
    src, dst, study = (tinydb_source if a == "SRC" else a for a in make_args(tmp_path))
    with pytest.raises(InfactError) as exc:
        migrate(src, dst, study=study)
    assert says in str(exc.value)
    assert not (tmp_path / "nowhere").exists()  # a wrong --from creates nothing


def test_a_target_with_different_content_under_the_same_keys_is_refused():
    source, target = MemoryStorage(), MemoryStorage()
    for r in participant_records("s1", "p0"):
        source.append(r)
    target.append({**participant_records("s1", "p0")[0], "platform": "prolific"})
    with pytest.raises(InfactError) as exc:
        migrate(source, target)
    assert "different content" in str(exc.value) and "s1/p0/arrival" in str(exc.value)


class LosingStore(MemoryStorage):
    """Says it stored situations but drops them: verification must notice."""

    def append(self, record):
        return True if record["kind"] == "situation" else super().append(record)


def test_lost_records_fail_the_count_check():
    source = MemoryStorage()
    for r in participant_records("s1", "p0"):
        source.append(r)
    with pytest.raises(InfactError) as exc:
        migrate(source, LosingStore())
    assert "has 0 of the 3 'situation' records" in str(exc.value)


@pytest.mark.postgres
def test_round_trip_tinydb_postgres_tinydb(tinydb_source, tmp_path, pg):
    up = migrate(tinydb_source, pg)
    assert up["copied"] == up["source_records"] == 36
    assert up["per_kind"]["situation"] == {"source": 18, "target": 18}
    assert migrate(tinydb_source, pg)["copied"] == 0  # re-run adds nothing
    down = migrate(pg, tmp_path / "back", study="s1")
    assert down["copied"] == 30
    assert migrate(pg, tmp_path / "back", study="s1")["copied"] == 0
    original = sorted(TinyDBStorage(tinydb_source).records(study="s1"), key=lambda r: r["key"])
    back = sorted(TinyDBStorage(tmp_path / "back").records(), key=lambda r: r["key"])
    assert back == original
