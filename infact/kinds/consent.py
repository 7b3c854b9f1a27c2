"""The consent page: nothing is stored before a participant ticks it (their arrival and consent are stored together)."""

from infact.participation.steps import Kind
from infact.participation.steps.consent import Consent

KIND = Kind("consent", Consent(), page="infact.ui.steps.consent.page")
