"""The family of exact-bid trick games (Sortskæg, SPEC §6; Oh Hell, SPEC §7): the engines and
the parts its games share, in a home of their own. It is not a game: it registers nothing and
names no game (``tests/test_layout.py``); each game of it has its own folder with what differs.

Deal hands of a round's size, everyone bids once from the dealer's left (the dealer last),
tricks are played (follow the led colour if you can; trumps beat it; the winner leads), every
bid is scored, the highest total wins. What differs between the games is one value,
:class:`~.family.Family`, that each game's ``Rules`` give as ``rules.family``; everything here
reads that value, never a game's name.

=================  ====================================================================
module             what it gives the games
=================  ====================================================================
:mod:`~.family`    ``Family`` (the deck, the schedule, the deal, trumps, the scoring) and
                   the deals' deck rows
:mod:`~.game`      the reference engine: one function a phase, the judge of the compiled one
:mod:`~.layout`    the observation encoder over a game's ``Layout`` (its blocks and scales)
:mod:`~.vector`    the batch engine (``FamilyVectorEnv``; SPEC §3b), compiled with numba in
                   :mod:`~.vector_rules`, :mod:`~.vector_observe`, :mod:`~.vector_kernels`
:mod:`~.env`       the AEC env (``FamilyEnv``): deal options, rewards, ``info``
:mod:`~.engine`    the tournaments' batch engines over both engines
:mod:`~.records`   game records: the ``Recorder``, the structure check and the exact replay
:mod:`~.metrics`   what a tournament measures (exact bids by hand size, calibration)
:mod:`~.rules`     ``FamilyRules``, the base of each game's ``Rules``, and its fields' checks
:mod:`~.cards`     a card id's check, the action ids and names
:mod:`~.views`     the table views (with :mod:`~.stakes` and :mod:`~.render`), in the
                   game's words
=================  ====================================================================

A game of the family holds in its own folder its ``Rules`` (with ``family_of``) and presets,
its cards, its observation ``Layout``, its texts (views, stakes, render) and one small subclass
or call per part above (``raw_env``, ``VectorEnv``, ``ENGINES``, ``Recorder``, ``Records``).
Its bots build on :mod:`agents.family` the same way.
"""
