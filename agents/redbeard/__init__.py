"""Rödskägg's bots, behind the shared interface of :mod:`agents.base` (masks [B, 69]).

    heuristic   hand evaluation and expected-score rules (:mod:`~.heuristic`, compiled in
                :mod:`~.heuristic_kernels`)
    pimc        determinised search over the heuristic on the batch engine (:mod:`~.pimc`,
                compiled playouts in :mod:`~.playout_kernels`)
    joins       any bot with its join decisions fixed (:mod:`~.join_policy`)
    search      pimc guided, dealt and played out by a trained network (:mod:`~.search`)

Read observations with :mod:`agents.redbeard.decode`. The policies' hand-strength features
(:mod:`~.training`) look hands up in a table of trick distributions (:mod:`~.handeval`,
built by :mod:`~.handeval_build` from the playouts of :mod:`~.handeval_playout`).
"""

#: Rödskägg's bots for the registry (agents.registry): name -> "module:factory"
BOTS = {
    "heuristic": "agents.redbeard.heuristic:HeuristicAgent",
    "pimc": "agents.redbeard.pimc:PimcAgent",
    "joins": "agents.redbeard.join_policy:JoinPolicy",  # joins:always|never|free,base=<spec>
    "search": "agents.redbeard.search:SearchAgent",  # pimc on a trained network (agents.search)
}
#: what the trainer and its policies need from the game (agents.ppo, redbeard_train)
TRAINING = "agents.redbeard.training"
