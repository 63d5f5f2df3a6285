"""The training recipe's parts (issue 28): a privileged critic, a belief head and
distillation from a teacher, each switchable, for every registered game; the policy never
sees what only training may know, and runs with the parts resume to the bit."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import redbeard_train as train  # noqa: E402
from agents.ppo import PolicyNet, load_checkpoint, privileged_view, save_checkpoint  # noqa: E402
from agents.registry import training_of  # noqa: E402
from redbeard_env.registry import game_named  # noqa: E402
from redbeard_train.loop import distill_weight  # noqa: E402

from game_parts import games_with, has_training_part, trains  # noqa: E402
from test_train import load, resumes_exactly_and_differs  # noqa: E402


def test_privileged_view_is_every_hand_from_the_acting_seat():
    # 3 players, 4 cards: seat 0 holds card 0, seat 1 cards 1 and 2, seat 2 nothing; card 3 in no hand
    held = np.zeros((2, 3, 4), bool)
    held[:, 0, 0] = held[:, 1, 1] = held[:, 1, 2] = True
    priv, target = privileged_view(held, np.array([0, 1]), max_seats=4)
    assert priv.shape == (2, 16) and priv.dtype == np.float32
    # acting seat 0: relative positions 0, 1, 2 are seats 0, 1, 2 (position 3 padding)
    assert priv[0].reshape(4, 4).tolist() == [[1, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    assert target[0].tolist() == [0, 1, 1, 4]
    # acting seat 1: its own hand first, then seat 2, then seat 0
    assert priv[1].reshape(4, 4).tolist() == [[0, 1, 1, 0], [0, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]]
    assert target[1].tolist() == [2, 0, 0, 4]


@pytest.mark.parametrize("game", games_with(trains))  # held_cards reads the trainer's batch engine
def test_held_cards_match_the_reference_game(game):
    info = game_named(game)
    venv = info.vector_env(num_envs=4, num_players=info.player_range[0] + 1, rules=info.default_rules, seed=2)
    venv.reset()
    held = training_of(game).held_cards(venv)
    for b in range(4):
        g = venv.export_game(b)
        want = np.zeros_like(held[b])
        for seat, hand in enumerate(g.hands):
            want[seat, list(hand)] = True
        assert np.array_equal(held[b], want)


@pytest.mark.parametrize("game", games_with(has_training_part))
def test_the_policy_never_sees_the_privileged_input(game):
    net = PolicyNet(hidden=(16,), game=game, critic="privileged", belief=True)
    B, info = 5, game_named(game)
    obs = torch.randn(B, net.obs_size)
    mask = torch.ones(B, info.num_actions, dtype=torch.bool)
    a = net.heads(obs, mask, privileged=torch.zeros(B, net.privileged_size))
    b = net.heads(obs, mask, privileged=torch.ones(B, net.privileged_size))
    assert torch.equal(a["logits"], b["logits"]) and torch.equal(a["belief"], b["belief"])  # policy and belief: same
    assert not torch.equal(a["value"], b["value"])  # the critic reads it
    assert a["belief"].shape == (B, info.parts.cards.NUM_CARDS, info.player_range[1] + 1)
    assert net(obs, mask)[1] is None  # no privileged input: no value (inference needs none)
    plain = PolicyNet(hidden=(16,), game=game)
    # the defaults keep the shipped policies' weights; the privileged critic replaces the value head
    assert set(plain.state_dict()) - {"value.weight", "value.bias"} < set(net.state_dict())
    assert {k for k in plain.state_dict() if k.startswith("value.")} == {"value.weight", "value.bias"}


def test_belief_log_probs_are_log_softmax_even_far_from_zero():
    from agents.ppo import belief_log_probs

    torch.manual_seed(1)
    belief = torch.randn(5, 36, 8) * torch.tensor([1.0, 30.0, 1e3, 1e4, 1.0])[:, None, None]
    belief[4, :, 3] = -3e38  # a masked-like entry: exp underflows to 0, the rest unharmed
    got, want = belief_log_probs(belief), torch.log_softmax(belief, -1)
    assert torch.isfinite(got[:4]).all() and torch.allclose(got, want, rtol=1e-5, atol=1e-5)
    assert torch.allclose(got.exp().sum(-1), torch.ones(5, 36))


def test_bfloat16_features_take_every_networks_first_layer_in_bfloat16():
    """update_dtype: bfloat16 with the recipe: the policy torso, the privileged critic and the
    belief head each take their first layer in bfloat16 (weights and inputs rounded, sums in
    float32) and the rest in float32, so the heads come out float32 and near the float32 ones."""
    torch.manual_seed(0)
    net = PolicyNet(critic="privileged", belief=True)
    B = 64
    obs = (torch.rand(B, net.obs_size) < 0.1).float() * torch.rand(B, net.obs_size)
    priv = (torch.rand(B, net.privileged_size) < 0.2).float()
    mask = torch.ones(B, 69, dtype=torch.bool)
    mask[:, 40:] = False
    with torch.no_grad():
        full = net.heads(obs, mask, privileged=priv)
        half = net.heads(obs.to(torch.bfloat16), mask, privileged=priv)
        critic_first = net.critic[0].weight
        # the critic's first layer by hand, in bfloat16: what the bfloat16 path must give
        h = torch.nn.functional.linear(torch.cat([obs, priv], 1).to(torch.bfloat16), critic_first.to(torch.bfloat16))
        by_hand = net.critic[1:](h.float() + net.critic[0].bias).squeeze(-1)
    for key in ("logits", "value", "belief"):
        assert half[key].dtype == torch.float32
    assert torch.equal(half["value"], by_hand)
    for key in ("value", "belief"):
        gap = (half[key] - full[key]).abs().max()
        assert 0 < gap < 0.05, key  # rounded, not another network
    gap = (half["logits"] - full["logits"])[mask].abs().max()
    assert 0 < gap < 0.05


def test_a_recipe_checkpoint_plays_as_a_bot(tmp_path):
    net = PolicyNet(hidden=(8,), critic="privileged", belief=True)
    save_checkpoint(tmp_path / "p.pt", net)
    loaded, payload = load_checkpoint(str(tmp_path / "p.pt"))
    assert (payload["critic"], payload["belief"]) == ("privileged", True) and loaded.belief
    from agents import make_agent

    bot = make_agent(f"ppo:{tmp_path / 'p.pt'}")
    feats = torch.randn(6, net.obs_size)
    mask = torch.ones(6, 69, dtype=torch.bool)
    assert torch.equal(bot.net(feats, mask)[0], net(feats, mask)[0])  # the saved network, belief head and all


def test_distillation_weight_falls_to_zero():
    cfg = train.load_config("smoke")
    assert distill_weight(cfg, 0.0) == 0.0  # no teacher
    import dataclasses

    cfg = dataclasses.replace(cfg, teacher="heuristic", distill_frac=0.5, distill_coef=2.0)
    assert distill_weight(cfg, 0.0) == 2.0 and distill_weight(cfg, 0.25) == 1.0 and distill_weight(cfg, 0.5) == 0.0


@pytest.mark.parametrize("option", [["--critic", "privileged"], ["--belief", "True"],
                                    ["--teacher", "heuristic", "--distill-frac", "0.6", "--teacher-share", "0.5"]])
def test_each_part_trains_and_resumes_exactly(tmp_path, option):
    a = resumes_exactly_and_differs(tmp_path, option)
    if option[0] == "--critic":
        assert "critic.0.weight" in a["net"] and "value.weight" not in a["net"]
    if option[0] == "--belief":
        assert "belief_net.0.weight" in a["net"]


def test_a_recipe_run_of_the_second_game(tmp_path):
    import dataclasses

    cfg = dataclasses.replace(train.load_config("smoke"), game="sortskaeg", rules="sortskaeg", opponents=["random"],
                              overrides={"hand_sizes": (2, 1)}, prior="", critic="privileged", belief=True,
                              teacher="heuristic", distill_frac=1.0, run_dir=str(tmp_path), total_steps=64 * 16 * 3)
    out = train.train(cfg, quiet=True)
    assert out["updates"] == 3 and {"belief", "teacher"} <= set(out["losses"])
    assert all(np.isfinite(v) for v in out["losses"].values())
    state = load(tmp_path.glob("*/checkpoint.pt").__next__())
    assert "critic.0.weight" in state["net"]


def test_bad_recipe_values_are_refused(tmp_path):
    from redbeard_train.config import ConfigError, from_dict

    assert from_dict({"game": "sortskaeg"}).rules == "sortskaeg"  # the game's default preset
    for changes, field in (({"critic": "oracle"}, "critic"), ({"distill_frac": 0.5}, "distill_frac"),
                           ({"teacher": "heuristic"}, "teacher"),
                           ({"teacher": "nosuchbot"}, "teacher"), ({"teacher_share": 0.0}, "teacher_share"),
                           ({"belief_coef": -1}, "belief_coef")):
        with pytest.raises(ConfigError, match=f"'{field}'"):
            from_dict(changes)


def run_ablation(tmp_path, *flags: str) -> str:
    """The ablation driver on the smoke config against random bots; the table it wrote."""
    from redbeard_train import ablation

    out = tmp_path / "ablation.md"
    assert ablation.main(["--config", "smoke", *flags, "--opponent", "random", "--workers", "1",
                          "--run-dir", str(tmp_path / "runs"), "--out", str(out), "--hidden", "32", "32"]) == 0
    return out.read_text()


def test_the_ablation_driver_writes_its_table(tmp_path):
    text = run_ablation(tmp_path, "--variants", "base", "all", "--minutes", "0.02", "--teacher", "heuristic",
                        "--games", "8")
    assert "| base |" in text and "| all |" in text and "joins from 2 points" in text
    runs = sorted(p.name.split("__")[0] for p in (tmp_path / "runs").iterdir())
    assert runs == ["smoke_all", "smoke_base"]
    state = load(next((tmp_path / "runs").glob("smoke_all__*")) / "checkpoint.pt")
    assert "critic.0.weight" in state["net"] and "belief_net.0.weight" in state["net"]
    # the teacher labels only the ablation's share of decisions, and stays in the pool
    assert state["config"]["teacher_share"] == 0.05 and "heuristic" in state["config"]["opponents"]
    assert "steps trained" in text and "labels 0.05 of the learner's decisions" in text
    # a train.py flag changes every variant's starting config
    assert state["config"]["hidden"] == [32, 32] and state["net"]["torso.0.weight"].shape[0] == 32


def test_the_ablation_driver_trains_every_variant_to_the_same_steps(tmp_path):
    # smoke: 64 games x 16 steps x 1 player count = 1,024 steps an update; 3,000 steps = 2 updates
    text = run_ablation(tmp_path, "--variants", "base", "critic", "--steps", "3000", "--minutes", "5", "--games", "4")
    assert "trained 0.003M steps (at most 5 minutes)" in text
    for run in (tmp_path / "runs").iterdir():
        state = load(run / "checkpoint.pt")
        assert state["config"]["total_steps"] == 3000 and state["counters"]["update"] == 2
    rows = [line for line in text.splitlines() if line.startswith(("| base |", "| critic |"))]
    assert len(rows) == 2 and all(line.split("|")[2].strip() == "0.0M" for line in rows)


def test_the_ablation_driver_refuses_bad_train_flags(tmp_path, capsys):
    from redbeard_train import ablation

    for flags, said in ((["--num-envs", "0"], "num_envs"), (["--resume", str(tmp_path)], "--resume"),
                        (["--steps", "-5"], "--steps"), (["--steps", "0.5"], "--steps")):
        with pytest.raises(SystemExit) as exc:
            ablation.main(["--config", "smoke", "--run-dir", str(tmp_path / "runs"), *flags])
        assert exc.value.code == 2 and said in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
