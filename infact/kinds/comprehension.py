"""Questions on the instructions right after consent, two attempts (Prolific's rules)."""

from infact.participation.steps import Kind
from infact.participation.steps.comprehension import Comprehension

KIND = Kind("comprehension", Comprehension(), page="infact.ui.steps.comprehension.page")
