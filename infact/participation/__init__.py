"""A participant's run: the flow of steps, assignment, platforms, completion codes, visits and bots.

The run layer: `steps/` sits below `infact.participation.state`, which sits below the rest of this package. May import
foundations, `infact.study`, the stores, `infact.scheduling` and `infact.chat`; never results or interfaces.
"""
