"""The examples run (tiny budgets)."""

from __future__ import annotations

import importlib.util
import tempfile
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def load_example(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_maskable_ppo_trains_saves_and_is_evaluated_as_a_bot(tmp_path, monkeypatch):
    pytest.importorskip("sb3_contrib", reason="the sb3 extra is not installed")
    example = load_example("maskable_ppo")
    out = tmp_path / "m.zip"
    scratch = tmp_path / "tmp"  # sb3's default logger makes a folder in the temp dir: it must not
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    results = example.main(["--minutes", "0.05", "--steps", "512", "--games", "8", "--out", str(out)])
    assert not list(scratch.glob("SB3-*"))
    spec = f"sb3:{out}"
    assert out.is_file() and spec in results["agents"]
    assert results["agents"][spec]["games"] == 8
    from agents.registry import make_agent

    with pytest.raises(ValueError, match="no saved MaskablePPO model"):
        make_agent(f"sb3:{tmp_path / 'missing.zip'}")
