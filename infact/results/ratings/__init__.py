"""Rating analysis: design-respecting statistics and sample-size planning."""
