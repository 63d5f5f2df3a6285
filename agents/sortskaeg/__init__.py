"""Sortskæg's bots, behind the shared interface of :mod:`agents.base` (masks [B, 50]).

    heuristic   bids from hand strength, plays to hit its bid exactly (:mod:`~.heuristic`)
    pimc        determinised search over the heuristic on the batch engine (:mod:`~.pimc`)
    search      pimc guided, dealt and played out by a trained network (:mod:`agents.family.search`)

With the shared ``random`` and ``ppo:<name>`` (``ppo:sortskaeg_4p`` is the shipped policy).
Read observations with :mod:`agents.sortskaeg.decode`.
"""

#: Sortskæg's bots for the registry (agents.registry): name -> "module:factory"
BOTS = {
    "heuristic": "agents.sortskaeg.heuristic:SortskaegHeuristic",
    "pimc": "agents.sortskaeg.pimc:SortskaegPIMC",
    "search": "agents.sortskaeg.pimc:SortskaegSearch",
}
#: the flat names these bots had before games resolved their own bots
ALIASES = {"sortskaeg_random": "random", "sortskaeg_heuristic": "heuristic", "sortskaeg_pimc": "pimc"}

#: what the trainer and its policies need from the game (agents.ppo, redbeard_train)
TRAINING = "agents.sortskaeg.training"
