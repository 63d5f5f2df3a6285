"""Oh Hell's bots, behind the shared interface of :mod:`agents.base` (masks [B, 70]).

    heuristic   bids the expected tricks of its hand, plays to hit its bid exactly (:mod:`~.heuristic`)
    pimc        determinised search over the heuristic on the batch engine (:mod:`~.pimc`)
    search      pimc guided, dealt and played out by a trained network (:mod:`agents.family.search`)
    openspiel   OpenSpiel's C++ IS-MCTS or MCTS over a pyspiel state rebuilt from the observation
                (:mod:`~.openspiel_bots`; ``openspiel:ismcts,simulations=200``, ``openspiel:mcts``;
                needs the ``openspiel`` extra)

With the shared ``random`` and ``ppo:<checkpoint>`` (trained with ``python train.py --config
oh_hell_4p``). Read observations with :mod:`agents.oh_hell.decode`.
"""

#: Oh Hell's bots for the registry (agents.registry): name -> "module:factory"
BOTS = {
    "heuristic": "agents.oh_hell.heuristic:OhHellHeuristic",
    "pimc": "agents.oh_hell.pimc:OhHellPIMC",
    "search": "agents.oh_hell.pimc:OhHellSearch",
    "openspiel": "agents.oh_hell.openspiel_bots:OpenSpielBot",  # openspiel:ismcts|mcts,simulations=...
}

#: what the trainer and its policies need from the game (agents.ppo, redbeard_train)
TRAINING = "agents.oh_hell.training"
