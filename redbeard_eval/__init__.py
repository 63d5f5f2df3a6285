"""Tournaments between bots: duplicate deals, win rates, ratings and research metrics.

The command line is ``python evaluate.py`` (or ``redbeard-evaluate``; :mod:`redbeard_eval.cli`,
``--help`` lists every option). Modules: :mod:`~redbeard_eval.deals` (deal sequences and
seatings), :mod:`~redbeard_eval.tournament` (the loop, on a :mod:`redbeard_env.engine`),
:mod:`~redbeard_eval.metrics`, :mod:`~redbeard_eval.report` (files and the table),
:mod:`~redbeard_eval.plots` and :mod:`~redbeard_eval.research` (the report
``docs/research.md``: ``python -m redbeard_eval.research``).

**Duplicate deals.** Game ``d`` of a tournament fixes a deal sequence: the first dealer
and the deck of every deal (rounds and duels, in order, with the order in which thrown-in
cards are reshuffled). The sequence is replayed once per distinct rotation of the lineup,
agent ``i`` of ``--agents`` sitting in seat ``(i + r) % n`` in rotation ``r``, so every
agent plays every seat's cards and the luck of the cards cancels. Identical specs are one
agent (pooled): ``heuristic random random random`` reports two rows, and ``random``'s
win rate is per seat (comparable with the parity ``1/n``). ``--games`` counts games
(deals x rotations), rounded up to whole deals.

**Engines** (:mod:`redbeard_env.engine`). The batch engine (``redbeard_env.redbeard.vector.VectorEnv``)
when every agent has ``act_batch``; otherwise the reference engine (``game.py``, one Python
game object per slot). Both give the same games for the same seed and agents.

**Outputs** (``--out DIR``): ``results.json`` (per agent spec: ``games``, ``win_rate``,
``win_rate_ci`` (95 %, bootstrap over deals), ``parity``, ``rating`` (OpenSkill
Plackett-Luce ``mu``, ``sigma``, ``ordinal``; the winner ranks first, everyone else ties),
``contract_rate``, ``bid_error``, ``bid_bias``, ``join_rate``, ``join_success``,
``mean_rounds``, ``final_distance``, per-bid-level counts, ``contracts_by_score`` (the
declarer's score when it bid -> contracts, made), ``joins_by_score`` (the score at a join
decision -> decisions, joins, joins that took a trick, the score's mean change over the
rest of the round after joining / folding)), ``games.csv`` (one row per game
and seat; ``rounds.csv`` in round mode), and the plots ``win_rates.png``,
``calibration.png`` (bid vs tricks taken, per agent) and ``contract_by_bid.png``.

**Round mode** (``--mode round``) plays single rounds for bid-accuracy research: each
starts from ``--scores`` (one int per seat, or ``sample`` for uniform scores in
``--score-range``), runs to the round's scoring and reports the same bid and join
metrics (and ``zero_rate``: rounds that left the player on exactly 0).

Metric definitions (SPEC §4): a *contract* is a round an agent declared; it is made when
the declarer took exactly (``exact``) or at least (``at_least``) the bid, all six for
Rödskägg. ``bid_error`` = mean |tricks - bid| and ``bid_bias`` = mean (tricks - bid) over
contracts (Rödskägg counts as 6). A *join decision* is a join/fold answer; ``join_rate`` =
joins / decisions; ``join_success`` = joins after which the player took at least one more
trick / joins (a round cut short by an immediate win leaves its joins out).

**Sortskæg** (``--game sortskaeg``, or ``--rules sortskaeg``): the same duplicate
tournaments on Sortskæg's engines (:mod:`redbeard_env.sortskaeg.engine`) with its bots
(``sortskaeg_random``, ``sortskaeg_heuristic``, ``sortskaeg_pimc``, ``ppo:sortskaeg_4p``);
a deal sequence is one 42-card deck per deal. Ties on top share the win (each of k
winners counts 1/k). Its metrics (:mod:`redbeard_eval.metrics_sortskaeg`): ``exact_rate``
and ``exact_by_hand_size`` (rounds with tricks = bid), ``bid_error``, ``bid_bias``,
``mean_bid``, the bid x tricks ``calibration`` over every round-seat, ``mean_final_score``;
plots ``win_rates.png``, ``calibration.png``, ``exact_by_hand_size.png``. No round mode.

Python API (what ``train.py`` calls)::

    from redbeard_eval import run_tournament
    res = run_tournament(["ppo:runs/x/policy.pt", "heuristic", "heuristic", "heuristic"],
                         rules="classic", players=4, games=400, seed=0, progress=False)
    res["agents"]["heuristic"]["win_rate"], res["agents"]["heuristic"]["win_rate_ci"]
    run_tournament(["sortskaeg_heuristic", "sortskaeg_random"], game="sortskaeg", players=4, games=400)
"""

from .deals import deal_sequence, deal_sequences, distinct_rotations, pooled_lineup, start_scores
from .metrics import LEVEL_NAMES, LEVELS, Records, bootstrap_ci, ratings, summarise
from .report import format_table, write_outputs
from .tournament import run_tournament

__all__ = [
    "run_tournament",
    "format_table",
    "write_outputs",
    "summarise",
    "Records",
    "bootstrap_ci",
    "ratings",
    "deal_sequence",
    "deal_sequences",
    "start_scores",
    "pooled_lineup",
    "distinct_rotations",
    "LEVELS",
    "LEVEL_NAMES",
]
