"""Tournaments between bots of any registered game: duplicate deals, win rates, ratings and
research metrics.

    python evaluate.py --agents heuristic random random random --rules classic --players 4 \\
        --games 2000 --seed 0 --out runs/eval/heuristic_vs_random
    python evaluate.py --agents pimc heuristic --players 4 --games 2000 --out runs/eval/pimc
    python evaluate.py --agents heuristic --players 5 --rules fem_opp --set leader=trick_winner
    python evaluate.py --mode round --agents heuristic --players 4 --games 20000 --scores sample
    python evaluate.py --game sortskaeg --agents heuristic random random random --players 4 --games 400

The tournament code lives in the ``redbeard_eval`` package (its docstring defines the
outputs and metrics); this script is its command line, also installed as
``redbeard-evaluate``. ``python evaluate.py --help`` explains every option.
"""

from redbeard_eval.cli import main

if __name__ == "__main__":
    main()
