"""A study as data: study.toml's settings schemas (one pydantic model per table), situations, dialogs,
gold pairs and sampling, loaded and checked once.

Layer 2: may import only the foundations (errors, values, fileio, text) and `infact.deployment`; it holds
no behaviour of the layers above (the run, the results), only what they are configured with.
"""
