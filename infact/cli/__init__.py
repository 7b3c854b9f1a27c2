"""The command line (`infact …`, `python -m infact …`): argument parsing and messages only.

The top layer: may import anything in `infact` except the Streamlit helpers (`infact.ui`). Each command
imports what it needs when it runs, so `infact --help` stays fast.
"""
