"""``pip install -e .`` installs quietly and correctly: setuptools builds the editable wheel
as a plain ``.pth`` file naming the project folder (the packages sit at its top), not with
its import finder, which prints an "Editable installation" warning block on every install.

Built here with the PEP 660 hook pip calls, on a copy of pyproject.toml, README.md and the
packages' modules (no network, no build isolation: the venv's setuptools)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["redbeard_env", "agents", "redbeard_train", "redbeard_eval", "redbeard_web"]


def test_the_editable_wheel_is_a_plain_pth_without_warnings(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, project / name)
    for package in PACKAGES:
        for module in (ROOT / package).rglob("*.py"):
            target = project / module.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(module, target)
    out = tmp_path / "wheels"
    out.mkdir()
    build = subprocess.run([sys.executable, "-W", "always", "-c",
                            "import sys; from setuptools import build_meta; "
                            "print(build_meta.build_editable(sys.argv[1]))", str(out)],
                           cwd=project, capture_output=True, text=True, timeout=300)
    said = build.stdout + build.stderr
    assert build.returncode == 0, said[-3000:]
    assert "Editable installation" not in said and "Warning" not in said, said[-3000:]
    wheel = out / build.stdout.strip().splitlines()[-1]
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        pth = [n for n in names if n.endswith(".pth")]
        assert len(pth) == 1 and not [n for n in names if n.endswith(".py")], names  # no finder module
        assert z.read(pth[0]).decode().split() == [str(project.resolve())]
