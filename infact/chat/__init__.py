"""Live chats with the systems under test (docs/live.md): the conversation runtime. Plain Python, no Streamlit.

The run layer, below participation: may import foundations, `infact.study` (its `[live]` schema is
`infact.study.live_config`), the stores, `infact.scheduling` and `infact.llm`. Exports and statistics of chats are in
`infact.results`.

    contract.py       the request/answer contract and its typed failures
    client.py         HTTP and in-process systems behind one `reply(request)`
    conversation.py   a conversation rebuilt from its records
    session.py        one chat: send, try again, skip, end, rate — each stored at once
    arena.py          a participant's run: chat A, rubric, (chat B, rubric, vote)
    schedule.py       which systems a participant meets (infact.scheduling: balanced or adaptive)
    identity.py       answers that give a system away
    transcripts.py    transcripts.jsonl, votes and rubric rows; reading transcripts back
    bot.py            a bot participant that chats
    llm_chat.py       an LLM on either side: an endpoint system under test, or a simulated participant
    demo_systems.py   built-in CRSs over the demo's movies
    http_server.py    a system served over HTTP (`infact chat-stub`: a demo system behind a `url = …`)
"""
