"""Live chats with the systems under test (issue 14; docs/live.md). Plain Python, no Streamlit.

    contract.py       the request/answer contract and its typed failures
    config.py         `[live]` settings (how each system is reached, turns, rubric, arena)
    client.py         HTTP and in-process systems behind one `reply(request)`
    conversation.py   a conversation rebuilt from its records
    session.py        one chat: send, try again, skip, end, rate — each stored at once
    arena.py          a participant's run: chat A, rubric, (chat B, rubric, vote)
    schedule.py       which systems a participant meets (pair_schedule: balanced or adaptive)
    identity.py       answers that give a system away
    transcripts.py    transcripts.jsonl, votes and rubric rows; reading transcripts back
    export.py, live_analysis.py, live_cli.py   exports, statistics, `analyze`
    bot.py            a bot participant that chats
    demo_systems.py   built-in CRSs over the demo's movies; stub_server.py: HTTP stubs for tests
"""
