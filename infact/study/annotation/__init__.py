"""The conversation protocol's settings and data: `[[aspects]]` (aspects.py) and the conversations and gold
conversations files it shows (conversations.py). May import foundations and `infact.study`'s own modules."""
