"""Tournaments between bots: duplicate deals, win rates, ratings and research metrics.

    python evaluate.py --agents heuristic random random random --rules classic --players 4 \\
        --games 2000 --seed 0 --out runs/eval/heuristic_vs_random
    python evaluate.py --agents pimc heuristic --players 4 --games 2000 --out runs/eval/pimc
    python evaluate.py --agents heuristic --players 5 --rules fem_opp --set leader=trick_winner
    python evaluate.py --mode round --agents heuristic --players 4 --games 20000 --scores sample
    python evaluate.py --game sortskaeg --agents sortskaeg_heuristic sortskaeg_random --players 4 --games 2000

The tournament code lives in the ``redbeard_eval`` package (its docstring defines the
outputs and metrics); this script is its command line, also installed as
``redbeard-evaluate``. ``python evaluate.py --help`` explains every option.
"""

from redbeard_eval.cli import main

# Names other code still imports from this script (train.py, tests/test_agents.py); new
# code imports them from redbeard_eval and redbeard_env.engine.
from redbeard_eval import deal_sequence, format_table, run_tournament  # noqa: F401,E402
from redbeard_env.engine import Job, ReferenceBatch, VectorBatch  # noqa: F401,E402


def vector_engine_available() -> bool:
    """Always true (the batch engine is part of the package); kept for tests/test_agents.py."""
    return True


if __name__ == "__main__":
    main()
