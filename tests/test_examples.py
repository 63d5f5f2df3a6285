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
    # a crafted file asking for a huge network is refused before the policy is built
    import json
    import zipfile

    for kwargs, words in (({"net_arch": [100000, 100000]}, "net_arch must list"),
                          ({"net_arch": {"pi": [64] * 50}}, "net_arch must list"),
                          ({"features_extractor_kwargs": {}}, "cannot be loaded")):
        crafted = tmp_path / "crafted.zip"
        with zipfile.ZipFile(out) as src, zipfile.ZipFile(crafted, "w") as dst:
            for name in src.namelist():
                data = src.read(name)
                if name == "data":
                    meta = json.loads(data)
                    meta["policy_kwargs"] = kwargs
                    data = json.dumps(meta).encode()
                dst.writestr(name, data)
        with pytest.raises(ValueError, match=words):
            make_agent(f"sb3:{crafted}")
