"""Sortskæg's bots, behind the shared interface of :mod:`agents.base` (masks [B, 50]).

Registered names (:mod:`agents.registry`; a bot's ``game`` attribute is ``"sortskaeg"``,
and tournaments refuse a bot of the other game)::

    sortskaeg_random      uniform over the legal actions
    sortskaeg_heuristic   bids from hand strength, plays to hit its bid exactly
    sortskaeg_pimc        determinised search over the heuristic on the batch engine
    ppo:sortskaeg_4p      the shipped trained policy (agents/ppo.py reads the game from
                          the checkpoint)

Read observations with :mod:`agents.sortskaeg.decode`.
"""
