"""The participant's pages, one module per kind, named after it (infact/kinds/<name>.py registers its `page`
and, optionally, `page_top` from here as "infact.ui.steps.<name>.page"; infact/ui/hooks.py resolves them).

- `page(flow, progress, step)`     draws the page and submits with `participant_page.submit`/`submit_button`;
- `page_top(flow, progress, step)` returns the HTML drawn at the top of the page (progress, dialog…) in the page's
                                   one head element: every element is paid for on every rerun.

pairwise.py also holds what the other comparison pages share (the step's header, the vote's form).

The top layer: may import anything in `infact`.
"""
