"""Play any registered game of the family (Rödskägg, Sortskæg, ...) against the bots: a
local web app (``redbeard-web``) and a terminal game (``redbeard-play``), both over
:class:`redbeard_web.session.GameSession`. Nothing here knows a game: the registry
(:mod:`redbeard_env.registry`) gives each game's engine, records, bots and views.

This package sits above ``agents`` and the engines: it imports them, nothing imports it.
The web app needs the ``web`` extra (``pip install -e ".[web]"``); the terminal game
needs nothing beyond the project itself.
"""
