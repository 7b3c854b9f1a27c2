"""The last page: the completion code (a page that takes no answer)."""

from infact.participation.steps import Kind
from infact.participation.steps.done import Done

KIND = Kind("done", Done(), page="infact.ui.steps.done.page")
