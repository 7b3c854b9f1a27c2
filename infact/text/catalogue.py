"""The participant's language: every participant-facing string comes from a message catalogue.

Code marks its strings the gettext way: `_("…")` translates now, `N_("…")` marks a constant (a default
text, a module-level message) translated where it is shown with `_(CONSTANT)`, `ngettext(one, many, n)`
picks the plural form of the language. Placeholders are named (`{n}`, `{total}`) and filled after
translation with `.format`, numbers through `number()` so they are written as the language writes them.

The catalogues are gettext `.po` files, one per language, in `locales/<lang>/LC_MESSAGES/infact.po`; the
template `locales/infact.pot` holds every marked string, extracted from the code
(`python -m infact.text.catalogue --write`; tests/text/test_catalogue.py fails when it is stale or a
language misses a string). Babel reads them (no compiled `.mo` files to keep in step) and gives each
language's plural rules, numbers and dates from CLDR.

A text of the study's own (`[texts]`, questions, labels) is the researcher's and stays as written. A
setting left at its default is a catalogue string, so `_()` translates it; `overridden` lists the
catalogue strings a study replaces (`infact validate` says which).

The language is the one of this run of the page: `use(language)` sets it for the current thread's context
(Streamlit runs every session's script in its own thread); nothing else is shared between sessions.
`en-XA` is a pseudo-locale for tests: every catalogue string comes back wrapped in ⟦…⟧, so a string that
did not come from the catalogue stands out on the page.
"""

from __future__ import annotations

import functools
import gettext
import io
from contextvars import ContextVar
from datetime import date, datetime
from pathlib import Path

from babel import Locale
from babel.dates import format_date, format_datetime
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

LOCALES = Path(__file__).with_name("locales")
TEMPLATE = LOCALES / "infact.pot"
DOMAIN = "infact"
SOURCE = "en"  # the language the code is written in: its msgids
PSEUDO = "en-XA"
# Bundled languages, by the code `[study] language` takes, with their names in their own language.
LANGUAGES = {
    "en": "English",
    "de": "Deutsch",
    "es": "Español",
    "fr": "Français",
    "pt": "Português",
    "zh-Hans": "简体中文",
    "ar": "العربية",
}
RTL = {"ar"}  # written right to left: the participant page is mirrored
OPEN, CLOSE = "⟦", "⟧"  # the pseudo-locale's markers

_language: ContextVar[str] = ContextVar("infact_language", default=SOURCE)


def known(language: str) -> bool:
    return language in LANGUAGES or language == PSEUDO


def use(language: str) -> None:
    """The language of every string asked for from here on in this context (this run of the page)."""
    if not known(language):
        raise ValueError(f"unknown language {language!r}; bundled: {', '.join(LANGUAGES)}")
    _language.set(language)


def current() -> str:
    return _language.get()


def folder(language: str) -> str:
    """The locale folder of a language code (`zh-Hans` → `zh_Hans`)."""
    return language.replace("-", "_")


def po_path(language: str) -> Path:
    return LOCALES / folder(language) / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def template_ids() -> frozenset[str]:
    """Every msgid of the template: what counts as a catalogue string."""
    if not TEMPLATE.is_file():
        return frozenset()
    with TEMPLATE.open("rb") as fh:
        catalog = read_po(fh)
    return frozenset(m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id)


@functools.cache
def _translations(language: str) -> gettext.NullTranslations:
    """The compiled catalogue of a bundled language, built in memory from its .po once per process."""
    path = po_path(language)
    if language == SOURCE or not path.is_file():
        return gettext.NullTranslations()
    with path.open("rb") as fh:
        catalog = read_po(fh, locale=folder(language), domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def _mark(text: str) -> str:
    return f"{OPEN}{text}{CLOSE}"


def _(message: str) -> str:
    """`message` in the current language; a text that is not in the catalogue (the researcher's) as it is."""
    language = current()
    if language == PSEUDO:
        return _mark(message) if message in template_ids() else message
    return _translations(language).gettext(message)


def N_(message: str) -> str:
    """Marks a string for the catalogue without translating it (translated where shown, with `_`)."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The plural form of the current language for `n` (Arabic has six, Chinese one)."""
    language = current()
    if language == PSEUDO:
        return _mark(singular if n == 1 else plural)
    return _translations(language).ngettext(singular, plural, n)


def locale() -> Locale:
    language = current()
    return Locale.parse(folder(SOURCE if language == PSEUDO else language))


def number(value: float | int) -> str:
    """A number as the current language writes it (1,234.5 · 1.234,5 · ١٬٢٣٤٫٥)."""
    return format_decimal(value, locale=locale())


def day(value: date | datetime) -> str:
    """A date in the current language's medium format (4 Dec 2026 · 04.12.2026)."""
    if isinstance(value, datetime):
        return format_datetime(value, format="medium", locale=locale())
    return format_date(value, format="medium", locale=locale())


def direction(language: str | None = None) -> str:
    """`rtl` for a language written right to left, else `ltr`."""
    return "rtl" if (language or current()) in RTL else "ltr"


def overridden(texts: dict[str, str]) -> dict[str, str]:
    """Of a study's participant texts by setting (`texts.completion` → its text), those that are catalogue
    strings by default and that the study replaced with its own: {setting: its text}."""
    ids = template_ids()
    return {where: text for where, text in texts.items() if text not in ids}
