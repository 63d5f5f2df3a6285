# Sourced by the other scripts: create .venv if needed and install the project into it.
# Usage: source scripts/setup.sh [extras]   (extras e.g. "test" or "test,train")
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
# shellcheck disable=SC1091
source .venv/bin/activate
python -m pip install -q --upgrade pip >/dev/null
EXTRAS=${1:-}
if [ -n "$EXTRAS" ]; then
    python -m pip install -q -e ".[$EXTRAS]"
else
    python -m pip install -q -e .
fi
