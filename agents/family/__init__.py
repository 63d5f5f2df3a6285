"""The bots' parts every game of the family shares (:mod:`redbeard_env.family`): not a game's
bots (there is no ``BOTS`` here), the parts each game's bots in ``agents/<game>/`` build on.
It names no game (``tests/test_layout.py``).

    decode              the blocks every game's observation has, as named arrays (``FamilyObs``)
    heuristic           the heuristic (``FamilyHeuristic``): bids from hand strength, plays to
                        hit the bid exactly; a game says what its player counts as unseen
    heuristic_kernels   the heuristic's action values, compiled (numba)
    pimc                the determinised search (``FamilyPIMC``) on the game's batch engine; a
                        game's pimc module says how its worlds are read and loaded
    training            what the trainer needs from a game of the family (shaped rewards,
                        the layout's identity)
"""
