"""Which pairs of systems are compared next (balanced or adaptive)."""
