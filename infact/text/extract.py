"""The catalogue's template, extracted from the code: `python -m infact.text.extract [--write]`.

Reads every `_("…")`, `N_("…")` and `ngettext("…", "…", n)` in infact/ and pages/ (Babel's Python
extractor, the one `pybabel extract` runs) and writes infact/text/locales/infact.pot; with `--write`
it also brings every bundled language's .po in step with it (a new string is added untranslated, a
dropped one is removed), as `pybabel update` does. Without `--write` it only says what is
out of step and exits 1 when something is. tests/text/test_catalogue.py runs the check.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from infact.text.catalogue import DOMAIN, LANGUAGES, SOURCE, TEMPLATE, folder, po_path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("infact", "pages")
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
STAMP = datetime(2026, 12, 4, tzinfo=UTC)  # fixed: the files change only when a message does


def extract() -> Catalog:
    """Every marked message of the code, without locations (a moved line is no change for translators)."""
    catalog = Catalog(domain=DOMAIN, project="INFACT", creation_date=STAMP, revision_date=STAMP)
    for source in SOURCES:
        found = extract_from_dir(ROOT / source, method_map=[("**.py", "python")], keywords=KEYWORDS)
        for _filename, _lineno, message, _comments, _context in found:
            if message and (message[0] if isinstance(message, tuple) else message).strip():
                catalog.add(message)
    return catalog


def ids(catalog: Catalog) -> set:
    return {m.id for m in catalog if m.id}


def read(path: Path, language: str | None = None) -> Catalog:
    with path.open("rb") as fh:
        return read_po(fh, locale=folder(language) if language else None, domain=DOMAIN)


def write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        write_po(fh, catalog, width=120, no_location=True, sort_output=True, ignore_obsolete=True)


def untranslated(catalog: Catalog) -> list:
    """Messages of a language catalogue with no translation (or a fuzzy one): shown in English."""
    out = []
    for m in catalog:
        if not m.id:
            continue
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        if m.fuzzy or not all(strings):
            out.append(m.id)
    return out


def problems() -> list[str]:
    """What is out of step: the template against the code, each language against the template."""
    code = ids(extract())
    found = []
    template = ids(read(TEMPLATE)) if TEMPLATE.is_file() else set()
    if template != code:
        found.append(
            f"{TEMPLATE.relative_to(ROOT)}: {len(code - template)} message(s) of the code missing, "
            f"{len(template - code)} no longer used: run `python -m infact.text.extract --write`"
        )
    for language in LANGUAGES:
        if language == SOURCE:
            continue
        path = po_path(language)
        if not path.is_file():
            found.append(f"{path.relative_to(ROOT)}: missing")
            continue
        catalog = read(path, language)
        missing = sorted(map(str, code - ids(catalog)))
        empty = untranslated(catalog)
        if missing or empty:
            found.append(
                f"{path.relative_to(ROOT)}: {len(missing) + len(empty)} message(s) not translated, "
                f"e.g. {(missing + [str(e) for e in empty])[0]!r}"
            )
    return found


def update() -> None:
    """Write the template and bring every language's .po in step with it."""
    template = extract()
    write(template, TEMPLATE)
    for language in LANGUAGES:
        if language == SOURCE:
            continue
        path = po_path(language)
        catalog = read(path, language) if path.is_file() else Catalog(locale=folder(language), domain=DOMAIN)
        catalog.update(template, no_fuzzy_matching=True)
        write(catalog, path)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--write" in argv:
        update()
    found = problems()
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main())
