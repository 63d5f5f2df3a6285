# Sourced by scripts/run.sh and scripts/test.sh: create .venv if needed, install torch
# (CPU build by default, see README "Installing torch"), then the project with extras.
# Usage: source scripts/setup.sh [extras]     e.g. "test" or "train,eval"
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
# shellcheck disable=SC1091
source .venv/bin/activate
python -m pip install -q --upgrade pip >/dev/null
EXTRAS=${1:-}
case ",$EXTRAS," in
    *,train,*|*,test,*)
        if ! python -c "import torch" >/dev/null 2>&1; then
            # TORCH_SPEC / TORCH_INDEX_URL choose the build, e.g. elsewhere:
            #   TORCH_SPEC=torch TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
            echo "installing ${TORCH_SPEC:-torch==2.13.0} ..."
            python -m pip install -q "${TORCH_SPEC:-torch==2.13.0}" ${TORCH_INDEX_URL:+--index-url "$TORCH_INDEX_URL"}
        fi
        ;;
esac
if [ -n "$EXTRAS" ]; then
    python -m pip install -q -e ".[$EXTRAS]"
else
    python -m pip install -q -e .
fi
