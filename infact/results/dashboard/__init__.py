"""Dashboard data: what the live dashboard shows, as plain data."""
