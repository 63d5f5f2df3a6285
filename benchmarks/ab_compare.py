"""Before/after in one run: a benchmark script of this checkout run against two source
trees, interleaved (A, B, A, B, ...), so that both see the same machine load.

    python benchmarks/ab_compare.py --before /tmp/base --repeat 2 -- throughput.py --sizes 64,4096
    python benchmarks/ab_compare.py --before /tmp/base -- train_throughput.py --updates 10

``--before`` is a tree of the project at the older commit (e.g. ``git archive <commit> |
tar -x -C /tmp/base``); ``--after`` defaults to this checkout. The script (a file in this
checkout's ``benchmarks/``) measures the tree named by ``REDBEARD_ROOT``; each run is a
fresh process and its output is printed whole, labelled. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="source tree of the 'before' version")
    parser.add_argument("--after", default=str(HERE.parent), help="source tree of the 'after' version")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each version (interleaved)")
    parser.add_argument("script", help="a script in benchmarks/")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments (after --)")
    args = parser.parse_args()
    extra = args.args[1:] if args.args[:1] == ["--"] else args.args
    for i in range(args.repeat):
        for label, root in (("before", args.before), ("after", args.after)):
            env = {**os.environ, "REDBEARD_ROOT": str(Path(root).resolve())}
            print(f"===== run {i + 1}/{args.repeat}: {label} ({root}) at {time.strftime('%H:%M:%S')}", flush=True)
            subprocess.run([sys.executable, str(HERE / args.script), *extra], env=env, check=True)


if __name__ == "__main__":
    main()
