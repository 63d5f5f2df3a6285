"""The trainer on Sortskæg (``game: sortskaeg``): config checks, a smoke run whose policy
plays in a Sortskæg tournament, exact resume, and the policy checkpoint's game."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import redbeard_train as train  # noqa: E402
from agents.ppo import PolicyNet, feature_size, PPOAgent, load_checkpoint, policy_features, save_checkpoint  # noqa: E402
from redbeard_env.sortskaeg.vector import VectorEnv  # noqa: E402
from redbeard_eval import run_tournament  # noqa: E402
from redbeard_train.config import ConfigError  # noqa: E402
from test_train import assert_same_run, load  # noqa: E402

# short games (rounds of 2 and 1 cards) so that games end, snapshots and evaluations happen
FLAGS = ["--config", "smoke", "--game", "sortskaeg", "--rules", "sortskaeg", "--overrides", "hand_sizes=(2, 1)",
         "--prior", "sortskaeg_heuristic", "--opponents", "sortskaeg_heuristic", "sortskaeg_random",
         "--total-steps", str(64 * 16 * 4), "--snapshot-every", "2", "--self-play-frac", "0.1",
         "--eval-every", "2", "--eval-games", "8", "--checkpoint-every", "2"]


def sortskaeg_config(tmp_path: Path, **changes) -> train.Config:
    cfg = train.load_config("smoke")
    base = dict(game="sortskaeg", rules="sortskaeg", overrides={"hand_sizes": (2, 1)}, prior="sortskaeg_heuristic",
                opponents=["sortskaeg_heuristic", "sortskaeg_random"], run_dir=str(tmp_path))
    return dataclasses.replace(cfg, **{**base, **changes})


def test_the_shipped_configs_are_sortskaegs_recipe():
    first, second = train.load_config("sortskaeg_4p"), train.load_config("sortskaeg_4p_win")
    for cfg in (first, second):  # prior-free: the bot is the network alone at play
        assert (cfg.game, cfg.rules, cfg.prior, cfg.critic, cfg.belief, cfg.opponents, cfg.players) == (
            "sortskaeg", "sortskaeg", "", "privileged", True, ["heuristic"], [4])
    assert (first.teacher, first.reward) == ("heuristic", "shaped") and 0 < first.distill_frac < 1
    assert (second.init_from, second.reward, second.teacher) == ("sortskaeg_4p", "win", "")


@pytest.mark.parametrize("changes, field, allowed", [
    (dict(rules="classic"), "rules", "allowed for game 'sortskaeg': sortskaeg"),
    (dict(prior="pimc"), "prior", "unknown policy prior 'pimc' for sortskaeg"),
    (dict(opponents=["joins:always"]), "opponents", "a bot of redbeard, not of sortskaeg"),
    (dict(opponents=["ppo:classic_4p"]), "opponents", "plays redbeard, this table plays sortskaeg"),
    (dict(players=[7]), "players", "2..6"),
    (dict(overrides={"hand_sizes": (9,)}), "overrides", "hand_sizes"),
])
def test_configs_of_the_wrong_game_are_refused(tmp_path, changes, field, allowed):
    with pytest.raises(ConfigError, match=f"'{field}'") as exc:
        train.train(sortskaeg_config(tmp_path / "run", **changes), quiet=True)
    assert allowed in str(exc.value)
    assert not (tmp_path / "run").exists()
    with pytest.raises(ConfigError, match="'prior'"):  # and the other way round
        train.train(dataclasses.replace(train.load_config("smoke"), prior="sortskaeg_heuristic"), quiet=True)


def test_smoke_run_and_its_policy_plays_sortskaeg(tmp_path):
    cfg = sortskaeg_config(tmp_path, eval_games=8, eval_every=0)
    out = train.train(cfg, quiet=True)
    assert out["updates"] == cfg.total_steps // (cfg.num_envs * cfg.num_steps)
    assert all(np.isfinite(v) for v in out["losses"].values())
    assert out["eval"]["config"]["game"] == "sortskaeg"  # the final evaluation vs sortskaeg_heuristic
    path = Path(out["run_dir"]) / "policy.pt"
    net, payload = load_checkpoint(str(path))
    assert payload["game"] == net.game == "sortskaeg" and payload["features"] == "observation+prior50"
    assert payload["rules"]["hand_sizes"] == (2, 1) or list(payload["rules"]["hand_sizes"]) == [2, 1]
    agent = PPOAgent(str(path))
    assert agent.game == "sortskaeg"
    res = run_tournament([f"ppo:{path}", "sortskaeg_random"], game="sortskaeg", players=3, games=6, seed=0,
                         overrides={"hand_sizes": (3, 2, 1)}, progress=False)
    assert res["agents"][f"ppo:{path}"]["games"] == 6
    with pytest.raises(ValueError, match="plays sortskaeg, this table plays redbeard"):
        run_tournament([f"ppo:{path}", "random"], players=3, games=3, progress=False)


def test_policy_features_and_checkpoint_of_the_game(tmp_path):
    venv = VectorEnv(8, 4, seed=0)
    obs, mask, _ = venv.reset()
    feats = policy_features(obs, mask, "sortskaeg_heuristic", game="sortskaeg")
    size, actions = feature_size("sortskaeg"), 50
    assert feats.shape == (8, size) == (8, 721) and np.array_equal(feats[:, :671], obs)
    prior = feats[:, 671:]
    assert ((prior == 0) == (np.arange(50)[None, :] == prior.argmax(1)[:, None])).all()  # 0 only at the bot's choice
    assert (prior[mask == 0] == -1).all()
    net = PolicyNet(hidden=(16,), prior="sortskaeg_heuristic", game="sortskaeg")
    logits, value = net(torch.as_tensor(feats), torch.as_tensor(mask).bool())
    assert logits.shape == (8, actions) and (logits[torch.as_tensor(mask == 0)] == torch.finfo(logits.dtype).min).all()
    save_checkpoint(tmp_path / "p.pt", net)
    loaded, payload = load_checkpoint(str(tmp_path / "p.pt"))
    assert loaded.game == "sortskaeg" and payload["identity"]["prior_spec"].startswith("sortskaeg_heuristic:")
    payload["identity"]["prior_spec"] = "sortskaeg_heuristic:bid_scale=9"
    torch.save(payload, tmp_path / "q.pt")
    with pytest.raises(ValueError, match="would not play as trained"):
        load_checkpoint(str(tmp_path / "q.pt"))
    with pytest.raises(ValueError, match="unknown policy prior 'joins' for sortskaeg"):
        PolicyNet(hidden=(8,), prior="joins", game="sortskaeg")


def test_resume_ends_bit_identical(tmp_path):
    straight = train.main([*FLAGS, "--run-dir", str(tmp_path / "a")])
    assert straight["updates"] == 4
    first = train.main([*FLAGS, "--run-dir", str(tmp_path / "b"), "--stop-after", "1"])
    resumed = train.main(["--resume", first["run_dir"]])
    assert resumed["updates"] == 4 and resumed["global_step"] == straight["global_step"]
    assert_same_run(Path(straight["run_dir"]), Path(resumed["run_dir"]))
    assert load(Path(resumed["run_dir"]) / "checkpoint.pt")["workers"][0]["arenas"][0]["venv"]["game"] == "sortskaeg"
