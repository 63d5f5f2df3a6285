"""The bots' parts every game of the family shares (:mod:`redbeard_env.family`): not a game's
bots (there is no ``BOTS`` here), the parts each game's bots in ``agents/<game>/`` build on.
It names no game (``tests/test_layout.py``).

    heuristic_kernels   the heuristic's action values, compiled (numba): each card's chance
                        to take a trick, then one valuation a phase
    pimc                the determinised search (``FamilyPIMC``) on the game's batch engine
    decode              the observation blocks every game of the family has, as named arrays
"""
