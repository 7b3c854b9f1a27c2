"""Researcher access: password check, sign-in throttle and the signed researcher session."""
