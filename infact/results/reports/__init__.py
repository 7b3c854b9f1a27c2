"""Reports: Markdown/HTML reports and charts."""
