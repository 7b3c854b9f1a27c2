"""Practice examples (gold pairs) before a comparison study's situations."""

from infact.participation.steps import Kind
from infact.participation.steps.onboarding import Onboarding

KIND = Kind("onboarding", Onboarding(), page="infact.ui.steps.onboarding.page")
