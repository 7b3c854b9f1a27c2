"""The dashboard's sections, one module each; importing this package registers them all.

The top layer: may import anything in `infact`.
"""

from infact.ui.dashboard.sections import (  # noqa: F401  (each registers its section and parts)
    comments,
    exports,
    judges,
    live_chats,
    participants,
    progress,
    prolific,
    ranking,
    results,
    situations,
    statistics,
    typed_text,
)
