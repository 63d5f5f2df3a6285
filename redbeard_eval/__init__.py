"""Tournaments between bots of any registered game: duplicate deals, win rates, ratings and
the game's research metrics.

The command line is ``python evaluate.py`` (or ``redbeard-evaluate``; :mod:`redbeard_eval.cli`,
``--help`` lists every option). Modules: :mod:`~redbeard_eval.deals` (deal sequences and
seatings), :mod:`~redbeard_eval.tournament` (the loop, on a game's batch engines:
:mod:`redbeard_env.engine`), :mod:`~redbeard_eval.metrics` (win rates, CIs, ratings),
:mod:`~redbeard_eval.report` (files and the table), :mod:`~redbeard_eval.plots` and
:mod:`~redbeard_eval.research` (the report ``docs/research.md``: ``python -m
redbeard_eval.research``).

**Games.** ``--game`` picks a registered game (default: the game of ``--rules``, else
Rödskägg); bot specs resolve within it (``--game sortskaeg --agents heuristic random``
plays Sortskæg's heuristic), and a bot of another game is refused.

**Duplicate deals.** Game ``d`` of a tournament fixes a deal sequence: the first dealer
and the deck of every deal (in the game's deck format: Rödskägg's decks carry the order in
which thrown-in cards are reshuffled). The sequence is replayed once per distinct rotation
of the lineup, agent ``i`` of ``--agents`` sitting in seat ``(i + r) % n`` in rotation
``r``, so every agent plays every seat's cards and the luck of the cards cancels.
Identical specs are one agent (pooled): ``heuristic random random random`` reports two
rows, and ``random``'s win rate is per seat (comparable with the parity ``1/n``).
``--games`` counts games (deals x rotations), rounded up to whole deals. A win shared by k
players (Sortskæg's ties on top) counts 1/k for each.

**Engines** (:mod:`redbeard_env.engine`). The game's batch engine when every agent has
``act_batch``; otherwise its reference engine (one Python game object per slot). Both give
the same games for the same seed and agents. ``--record FILE`` plays on the reference
engine and appends every game's record (:mod:`redbeard_env.records`).

**Outputs** (``--out DIR``): ``results.json`` (per agent spec: ``games``, ``win_rate``,
``win_rate_ci`` (95 %, bootstrap over deals), ``parity``, ``rating`` (OpenSkill
Plackett-Luce ``mu``, ``sigma``, ``ordinal``; the winner ranks first, everyone else ties),
then the game's metrics), ``games.csv`` (one row per game and seat; ``rounds.csv`` in
round mode), and the plots ``win_rates.png``, ``calibration.png`` (bid vs tricks taken,
per agent) and the game's success rate (``contract_by_bid.png``, ``exact_by_hand_size.png``).

**Round mode** (``--mode round``) plays single rounds for bid-accuracy research: the first
round of a game from ``--scores`` (one int per seat, or ``sample`` for uniform scores in
``--score-range``) and the deal's dealer, to the round's scoring. Sortskæg's round has the
schedule's first hand size: ``--set hand_sizes=[5]`` studies 5-card rounds.

**Metrics** (each game's ``metrics`` module). Rödskägg (SPEC §4,
:mod:`redbeard_env.redbeard.metrics`): a *contract* is a round an agent declared; it is
made when the declarer took exactly (``exact``) or at least (``at_least``) the bid, all
six for Rödskägg. ``bid_error`` = mean |tricks - bid| and ``bid_bias`` = mean (tricks -
bid) over contracts (Rödskägg counts as 6). A *join decision* is a join/fold answer;
``join_rate`` = joins / decisions; ``join_success`` = joins after which the player took at
least one more trick / joins (a round cut short by an immediate win leaves its joins out);
``contracts_by_score`` and ``joins_by_score`` by the player's score; in round mode
``zero_rate`` (rounds that left the player on exactly 0). Sortskæg
(:mod:`redbeard_env.sortskaeg.metrics`): every round-seat is a bid: ``exact_rate`` and
``exact_by_hand_size`` (tricks = bid), ``bid_error``, ``bid_bias``, ``mean_bid``, the bid x
tricks ``calibration``, ``mean_final_score``.

Python API (what ``train.py`` calls)::

    from redbeard_eval import run_tournament
    res = run_tournament(["ppo:runs/x/policy.pt", "heuristic", "heuristic", "heuristic"],
                         rules="classic", players=4, games=400, seed=0, progress=False)
    res["agents"]["heuristic"]["win_rate"], res["agents"]["heuristic"]["win_rate_ci"]
    run_tournament(["heuristic", "random"], game="sortskaeg", players=4, games=400)
"""

from .deals import deal_sequence, deal_sequences, distinct_rotations, pooled_lineup, start_scores
from .metrics import bootstrap_ci, ratings, summarise
from .report import format_table, write_outputs
from .tournament import run_tournament

__all__ = [
    "run_tournament",
    "format_table",
    "write_outputs",
    "summarise",
    "bootstrap_ci",
    "ratings",
    "deal_sequence",
    "deal_sequences",
    "start_scores",
    "pooled_lineup",
    "distinct_rotations",
]
