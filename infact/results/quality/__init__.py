"""Quality: flags, exclusions and the participant funnel."""
