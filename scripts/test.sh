#!/usr/bin/env bash
# Set up (a .venv with the project and its test extra) and run the default test suite.
# Extra arguments go to pytest, e.g. `./scripts/test.sh -m slow`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh test
python -m pytest -q "$@"
