#!/usr/bin/env bash
# Set up .venv (torch CPU build, the project with train/eval extras) and run the main
# job: a short PPO training on classic rules (a few minutes on a laptop CPU) that ends
# with a tournament table against heuristic bots. Extra arguments go to train.py, e.g.
#   ./scripts/run.sh --total-steps 5e6        ./scripts/run.sh --config classic_4p
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh train,eval
python train.py --config quickstart "$@"
