"""Built-in demo systems: small CRSs over the demo's movies, with no network and no model.

They make `data/demo-live/` run out of the box and give the tests and bots real
systems of clearly different quality to talk to:

- `genre_recommender`  keyword/genre recommender: finds genres and liked titles in
                       what the user said, recommends an unseen movie of that genre,
                       asks about taste when it knows nothing yet (good)
- `retrieval_bot`      retrieval-based, in the spirit of RB-CRS: answers with the bot
                       turn of the demo dialogs whose user turn is most similar to the
                       user's message (fair: fluent, not always on topic)
- `popular_recommender` ignores what the user says and names the next most popular
                       movie (poor: a baseline)

Each is a function `request dict -> {"text", "items"}`, the in-process contract
(`callable = "infact.chat.demo_systems:genre_recommender"` in study.toml).
"""

from __future__ import annotations

import json
import re
import zlib
from functools import lru_cache
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO_DIALOGS = REPO / "data" / "demo" / "situations.jsonl"
_TITLE = re.compile(r'"([^"]+ \(\d{4}\))"')
_WORD = re.compile(r"[a-z0-9']+")

GENRE_WORDS = {
    "horror": ("horror", "scary", "creepy", "spooky", "ghost", "scare", "zombie"),
    "comedy": ("funny", "comedy", "comedies", "laugh", "hilarious", "lighthearted", "silly"),
    "romance": ("romantic", "romance", "love story", "date night", "romcom", "rom-com"),
    "action": ("action", "fight", "explosions", "superhero", "car chase", "heist"),
    "scifi": ("sci-fi", "scifi", "science fiction", "space", "future", "aliens", "robots"),
    "drama": ("drama", "moving", "emotional", "sad", "cry", "true story", "inspiring"),
    "animation": ("animated", "animation", "cartoon", "pixar", "anime", "ghibli", "disney"),
    "family": ("family", "kids", "children", "my son", "my daughter"),
    "thriller": ("thriller", "mystery", "crime", "suspense", "detective", "twist"),
    "war": ("war", "soldiers", "ww2", "wwii", "historical", "history"),
    "musical": ("music", "musical", "singing", "songs", "biopic", "dance"),
    "documentary": ("documentary", "documentaries", "nature", "animals", "wildlife"),
}
GENRE_NAMES = {"scifi": "science fiction", "animation": "animated"}


@lru_cache(maxsize=1)
def catalogue() -> tuple[tuple[str, tuple[str, ...]], ...]:
    rows = json.loads((Path(__file__).with_name("demo_movies.json")).read_text(encoding="utf-8"))
    return tuple((r["title"], tuple(r["genres"])) for r in rows)


def _bare(title: str) -> str:
    return re.sub(r"\s*\(\d{4}\)$", "", title).lower()


def mentioned_titles(texts: list[str]) -> list[str]:
    """Catalogue titles named in the texts, with or without the year."""
    joined = " ".join(texts).lower()
    return [t for t, _ in catalogue() if _bare(t) in joined]


def _genres_in(text: str) -> list[str]:
    low = text.lower()
    return [g for g, words in GENRE_WORDS.items() if any(re.search(rf"\b{re.escape(w)}\b", low) for w in words)]


def _user_texts(request: dict) -> list[str]:
    return [m["text"] for m in request.get("messages", []) if m.get("role") == "user"]


def _said(request: dict) -> list[str]:
    return [m["text"] for m in request.get("messages", [])]


def _pick(candidates: list[str], seen: set[str], seed: str) -> str | None:
    fresh = [t for t in candidates if t not in seen]
    if not fresh:
        return None
    return fresh[zlib.crc32(seed.encode()) % min(3, len(fresh))]  # a little variety between chats


def genre_recommender(request: dict) -> dict:
    users = _user_texts(request)
    last = users[-1] if users else ""
    if re.search(r"\b(thanks|thank you|bye|perfect|great, i'll|i will watch)\b", last.lower()):
        return {"text": "You're welcome, enjoy the movie! Tell me if you want another one.", "items": []}
    seen = set(mentioned_titles(_said(request)))
    genres = _genres_in(last) or [g for u in reversed(users[:-1]) for g in _genres_in(u)]
    liked = mentioned_titles([last])
    if not genres and liked:
        genres = list(dict(catalogue())[liked[0]])
    if not genres:
        return {
            "text": "What kind of movies do you enjoy? For example comedy, horror, science fiction, "
            "romance or something animated?",
            "items": [],
        }
    genre = genres[0]
    pool = [t for t, gs in catalogue() if genre in gs]
    title = _pick(pool, seen, request.get("conversation_id", "") + str(request.get("turn", 0)))
    name = GENRE_NAMES.get(genre, genre)
    if title is None:
        return {"text": f"I'm out of {name} ideas you haven't heard yet. Would another genre work?", "items": []}
    also = [g for g in dict(catalogue())[title] if g != genre]
    extra = f" It is also a bit of {GENRE_NAMES.get(also[0], also[0])}." if also else ""
    return {"text": f'If you want {name}, I\'d suggest "{title}".{extra} Have you seen it?', "items": [title]}


@lru_cache(maxsize=1)
def _retrieval_corpus() -> tuple[tuple[frozenset[str], str], ...]:
    """(words of a user turn, the bot turn that followed it) from the demo dialogs."""
    pairs: list[tuple[frozenset[str], str]] = []
    try:
        lines = DEMO_DIALOGS.read_text(encoding="utf-8").splitlines()
    except OSError:
        return ()
    for line in lines:
        sit = json.loads(line)
        ctx = sit["context"]
        for a, b in zip(ctx, ctx[1:]):
            if a["role"] == "user" and b["role"] == "bot":
                pairs.append((frozenset(_WORD.findall(a["text"].lower())), b["text"]))
        best = next(iter(sit["responses"].values()), None)  # the demo lists its best system first
        if best:
            pairs.append((frozenset(_WORD.findall(ctx[-1]["text"].lower())), best))
    return tuple(dict.fromkeys(pairs))


def retrieval_bot(request: dict) -> dict:
    users = _user_texts(request)
    words = frozenset(_WORD.findall((users[-1] if users else "").lower()))
    said = set(_said(request))
    best, best_score = None, -1.0
    for key, answer in _retrieval_corpus():
        if answer in said:
            continue
        score = len(words & key) / (len(words | key) or 1)
        if score > best_score:
            best, best_score = answer, score
    if best is None:
        return {"text": "Tell me more about what you like to watch.", "items": []}
    return {"text": best, "items": _TITLE.findall(best)}


def popular_recommender(request: dict) -> dict:
    seen = set(mentioned_titles(_said(request)))
    by_genres = sorted(catalogue(), key=lambda tg: (-len(tg[1]), tg[0]))  # "popular": fits the most tastes
    title = next((t for t, _ in by_genres if t not in seen), None)
    if title is None:
        return {"text": "I have no more movies to suggest.", "items": []}
    return {"text": f'A lot of people like "{title}". You should watch it.', "items": [title]}
