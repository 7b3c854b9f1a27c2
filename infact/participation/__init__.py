"""A participant's run: the flow of steps, assignment, platforms, completion codes, visits and bots.

The run layer: `steps/` sits below the rest of this package, which reads a participant's progress through
`infact.state` (below it). May import foundations, `infact.study`, the stores, `infact.scheduling`,
`infact.chat` and `infact.state`; never results or interfaces.
"""
