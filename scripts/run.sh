#!/usr/bin/env bash
# Set up .venv (torch CPU build, the project with train/eval extras) and run the main job:
# the quick recipe (configs/recipes/quick.yaml) trains a PPO bot on classic rules for about
# five minutes, evaluating it along the way (its learning curve from minute 0), then judges it
# against three heuristic bots beside the shipped bot on the same deals. Extra arguments go to
# train.py --recipe, e.g.
#   ./scripts/run.sh --max-minutes 10          ./scripts/run.sh --players 5 --rules fem_opp
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh train,eval
python train.py --recipe quick "$@"
