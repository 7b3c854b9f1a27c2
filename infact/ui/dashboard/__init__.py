"""The researcher dashboard, one module per section (Streamlit; pages/dashboard.py routes to it).

- view.py      what a rerun reads: the study, the switches and every table, in one place
- registry.py  the sections by name, the part each kind of answer draws in a section, and the sections
               kinds bring (`Kind.dashboard`, infact/kinds/: by default the generic one, sections/generic.py)
- page.py      the header, the switches, the funnel cards and notes, the live fragment
- prolific_section.py  the Prolific section's body: the submissions beside INFACT's stages, polled at most once a minute
- sections/    one module per section; importing it registers them (pages/dashboard.py does)

To add a section from elsewhere in `infact/ui/`: `@registry.section("Name", offered=lambda cfg: …,
after="Participants")` in a module imported before the page draws (pages/dashboard.py imports
`sections`; an extra module can be imported from there or from infact/ui/__init__.py).

The top layer: may import anything in `infact`.
"""

from infact.ui.dashboard.registry import part, section
from infact.ui.dashboard.view import View

__all__ = ["View", "part", "section"]
