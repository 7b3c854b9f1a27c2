"""Tables and exports: stored records to tidy tables, export files and formats."""
