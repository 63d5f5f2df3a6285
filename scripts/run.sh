#!/usr/bin/env bash
# Set up (.venv with the project) and run the main job on a sensible default.
# Extra arguments go to the demo, e.g. `./scripts/run.sh --rules fem_opp --players 6`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
python -m redbeard_env.demo "$@"
