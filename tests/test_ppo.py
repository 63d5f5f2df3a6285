"""PPO policy, checkpoints and train.py (tiny budgets)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.ppo import PolicyNet, PPOAgent, feature_size, load_checkpoint, masked_entropy, policy_features, sample_actions, save_checkpoint  # noqa: E402

from redbeard_env.redbeard.cards import NUM_ACTIONS  # noqa: E402
from redbeard_env.redbeard.observation import OBS_SIZE  # noqa: E402
from redbeard_env.redbeard.rules import make_rules  # noqa: E402

FEATURE_SIZE = feature_size("redbeard")  # observation 542 + hand strength 14 + prior 69
assert FEATURE_SIZE == 625
PRIOR_OFFSET = FEATURE_SIZE - 69


def random_masks(rng, rows, k_max=6):
    mask = np.zeros((rows, NUM_ACTIONS), dtype=bool)
    for r in range(rows):
        mask[r, rng.choice(NUM_ACTIONS, size=rng.integers(1, k_max + 1), replace=False)] = True
    return mask


def test_masked_sampling_never_picks_an_illegal_action():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    net = PolicyNet(hidden=(32,))
    # Push the illegal logits far up: sampling must still only return legal actions.
    with torch.no_grad():
        net.policy.bias.fill_(0.0)
        net.policy.bias[:10] = 50.0
    mask = torch.as_tensor(random_masks(rng, 4000))
    obs = torch.randn(4000, FEATURE_SIZE)
    for greedy in (False, True):
        action, logp, value = net.act(obs, mask, greedy=greedy)
        assert mask[torch.arange(4000), action].all()
        assert torch.isfinite(logp).all() and torch.isfinite(value).all()
    # A single legal action is taken with probability one.
    one = torch.zeros(5, NUM_ACTIONS, dtype=torch.bool)
    one[torch.arange(5), torch.tensor([0, 52, 60, 64, 68])] = True
    action, logp, _ = net.act(torch.randn(5, FEATURE_SIZE), one)
    assert action.tolist() == [0, 52, 60, 64, 68]
    assert torch.allclose(logp, torch.zeros(5), atol=1e-6)


def test_sampled_actions_follow_the_probabilities():
    # 3 rows: a skewed distribution, one with zero-probability gaps (never drawn), one whose
    # only mass sits on the last action; 40,000 draws each
    probs = torch.zeros(3, NUM_ACTIONS)
    probs[0, [0, 5, 68]] = torch.tensor([0.6, 0.3, 0.1])
    probs[1, [10, 11, 30]] = torch.tensor([0.25, 0.25, 0.5])
    probs[2, 68] = 1.0
    g = torch.Generator().manual_seed(3)
    draws = torch.stack([sample_actions(probs, g) for _ in range(40_000)])  # [draws, rows]
    for row in range(3):
        freq = torch.bincount(draws[:, row], minlength=NUM_ACTIONS).double() / len(draws)
        assert (freq[probs[row] == 0] == 0).all(), f"row {row} drew an action of probability 0"
        # 4 standard errors of a frequency near 0.5 over 40,000 draws: 0.01
        assert torch.allclose(freq, probs[row].double(), atol=0.01), (row, freq[probs[row] > 0], probs[row][probs[row] > 0])
    # rows that sum to a little less than 1 (float rounding) never draw past their last action
    low = torch.zeros(1000, NUM_ACTIONS)
    low[:, 3] = 0.99999
    assert (sample_actions(low, g) == 3).all()


def test_a_row_without_legal_actions_is_an_error():
    net = PolicyNet(hidden=(16,))
    mask = torch.ones(3, NUM_ACTIONS, dtype=torch.bool)
    mask[1] = False
    with pytest.raises(ValueError, match="no legal action"):
        net.act(torch.zeros(3, FEATURE_SIZE), mask)


def test_entropy_ignores_illegal_actions():
    logits = torch.zeros(1, NUM_ACTIONS)
    mask = torch.zeros(1, NUM_ACTIONS, dtype=torch.bool)
    mask[0, :4] = True
    logits = logits.masked_fill(~mask, torch.finfo(logits.dtype).min)
    assert masked_entropy(torch.log_softmax(logits, -1), mask).item() == pytest.approx(np.log(4), rel=1e-5)


def test_checkpoint_round_trip(tmp_path):
    torch.manual_seed(1)
    net = PolicyNet(hidden=(32, 16))
    path = tmp_path / "p.pt"
    rules = make_rules("classic")
    save_checkpoint(path, net, rules=rules, num_players=4, config={"lr": 1e-3}, meta={"global_step": 7})
    loaded, payload = load_checkpoint(str(path))
    assert payload["rules"] == dataclasses.asdict(rules)
    assert payload["num_players"] == 4 and payload["meta"]["global_step"] == 7
    obs = torch.randn(8, FEATURE_SIZE)
    mask = torch.ones(8, NUM_ACTIONS, dtype=torch.bool)
    a, b = net(obs, mask), loaded(obs, mask)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    agent = PPOAgent(str(path))
    raw = np.random.default_rng(0).random((8, OBS_SIZE)).astype(np.float32)
    acts = agent.act_batch(raw, mask.numpy().astype(np.int8))
    assert acts.shape == (8,)
    assert agent.act(raw[0], np.ones(NUM_ACTIONS, dtype=np.int8)) == acts[0]


def test_corrupt_or_mismatched_checkpoint_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint at all")
    with pytest.raises(ValueError, match="corrupt"):
        load_checkpoint(str(bad))
    other = tmp_path / "other.pt"
    torch.save({"weights": 1}, other)
    with pytest.raises(ValueError, match="not a redbeard PPO checkpoint"):
        load_checkpoint(str(other))
    net = PolicyNet(hidden=(8,))
    good = tmp_path / "good.pt"
    save_checkpoint(good, net)
    payload = torch.load(good, weights_only=False)
    payload["obs_size"] = FEATURE_SIZE + 1
    torch.save(payload, tmp_path / "wrong_size.pt")
    with pytest.raises(ValueError, match="observations of size"):
        load_checkpoint(str(tmp_path / "wrong_size.pt"))
    payload["obs_size"] = FEATURE_SIZE
    payload["hidden"] = [9]
    torch.save(payload, tmp_path / "wrong_arch.pt")
    with pytest.raises(ValueError, match="do not match"):
        load_checkpoint(str(tmp_path / "wrong_arch.pt"))
    import resource

    for hidden, words in (([100000, 100000], "hidden must be"), ([8] * 20, "hidden must be"), ("wide", "hidden must be"),
                          ([8192, 8192], "do not fit hidden")):
        payload["hidden"] = hidden
        torch.save(payload, tmp_path / "huge.pt")
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        with pytest.raises(ValueError, match=words):
            load_checkpoint(str(tmp_path / "huge.pt"))
        # refused before allocating: 8192 x 8192 floats would be 256 MB
        assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak < 64 * 1024
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(good.read_bytes()[:200])
    with pytest.raises(ValueError, match="corrupt"):
        load_checkpoint(str(truncated))
    with pytest.raises(ValueError, match="no PPO checkpoint"):
        load_checkpoint("no_such_checkpoint_name")


def test_policy_features_add_hand_strength_only_for_full_hands():
    import redbeard_env
    from agents.redbeard import handeval

    env = redbeard_env.env(num_players=5, rules="wikipedia")
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)["observation"]
    feats = policy_features(obs[None])[0]
    assert feats.shape == (FEATURE_SIZE,) and np.array_equal(feats[:OBS_SIZE], obs)
    hand = env.unwrapped.game.hands[env.unwrapped.game.to_act]
    mask = np.zeros((1, 52), dtype=bool)
    mask[0, sorted(hand)] = True
    expected = handeval.trick_distribution(mask, 5, "declarer", leader="trick_winner")[0]  # wikipedia: trick_winner
    assert np.allclose(feats[OBS_SIZE : OBS_SIZE + 7], expected)
    assert feats[OBS_SIZE:].sum() == pytest.approx(2.0, abs=1e-4)  # two distributions
    fewer = obs.copy()
    fewer[redbeard_env.redbeard.observation.OBS_SLICES["hand"]][sorted(hand)[0]] = 0.0
    assert not policy_features(fewer[None])[0, OBS_SIZE:].any()


def _heuristic_positions(preset="classic", n=4, steps=60, seed=0):
    """Observations and masks from heuristic play (all phases of a few rounds)."""
    from agents.registry import make_agent
    from redbeard_env.redbeard.vector import VectorEnv

    bot = make_agent("heuristic")
    venv = VectorEnv(num_envs=64, num_players=n, rules=preset, seed=seed)
    obs, mask, _ = venv.reset()
    seen_obs, seen_mask = [], []
    for _ in range(steps):
        seen_obs.append(obs.copy())
        seen_mask.append(mask.copy())
        obs, mask, *_ = venv.step(bot.act_batch(obs, mask))
    return np.concatenate(seen_obs), np.concatenate(seen_mask)


def test_heuristic_prior_block_marks_the_bots_choice_and_scales_the_rest():
    from agents.ppo import prior_block
    from agents.registry import make_agent

    obs, mask = _heuristic_positions()
    bot = make_agent("heuristic")
    block = prior_block(obs, mask, "heuristic")
    values = bot.action_values(obs, mask)
    choice = bot.act_batch(obs, mask)
    rows = np.arange(len(obs))
    assert np.array_equal(values.argmax(1), choice)  # act_batch plays the argmax of the values
    assert np.array_equal(np.flatnonzero(block.max(1) == 0.0), rows)  # one exact 0 per row ...
    assert np.array_equal(block.argmax(1), choice)  # ... at the bot's choice
    assert (block[~mask.astype(bool)] == -1.0).all() and (block >= -1.0).all()
    # a legal action u points below the best sits at -min(u, 10) / 10
    gap = values[rows, choice][:, None] - values
    legal_other = mask.astype(bool) & (block < 0)
    assert np.allclose(block[legal_other], -np.maximum(np.minimum(gap[legal_other], 10.0), 1e-6) / 10, atol=1e-6)
    feats = policy_features(obs, mask, prior="heuristic")
    assert np.array_equal(feats[:, PRIOR_OFFSET:], block)
    assert not policy_features(obs, mask)[:, PRIOR_OFFSET:].any()  # no prior: zeros
    # train.py computes the values once for a mixed batch (learner rows, heuristic
    # opponents) and hands each part its rows: a row's values must not depend on the others
    order = np.random.default_rng(0).permutation(len(obs))
    parts = np.array_split(order, 5)
    split = np.empty_like(values)
    for part in parts:
        split[part] = bot.action_values(obs[part], mask[part])
    assert np.array_equal(split, values)
    assert np.array_equal(policy_features(obs, mask, "heuristic", prior_values=values), feats)
    with pytest.raises(ValueError, match=r"prior values must have shape \(\d+, 69\)"):
        prior_block(obs, mask, "heuristic", values=values[:, :10])


def test_an_untrained_prior_policy_plays_like_the_heuristic_when_greedy():
    from agents.registry import make_agent

    obs, mask = _heuristic_positions("fem_opp", 5, seed=2)
    torch.manual_seed(0)
    net = PolicyNet(hidden=(32,), prior="heuristic")
    action, _, _ = net.act(torch.as_tensor(net.features(obs, mask)), torch.as_tensor(mask).bool(), greedy=True)
    assert np.array_equal(action.numpy(), make_agent("heuristic").act_batch(obs, mask))
    # sampling follows the prior: the bot's choice is the most likely action almost everywhere
    logits, _ = net(torch.as_tensor(net.features(obs, mask)), torch.as_tensor(mask).bool())
    probs = torch.softmax(logits, -1)
    several = mask.sum(1) > 1
    assert (probs.argmax(-1).numpy() == make_agent("heuristic").act_batch(obs, mask))[several].mean() > 0.99
    assert probs.max(-1).values[torch.as_tensor(several)].mean() < 0.999  # but it still explores


def test_prior_errors_and_checkpoint_round_trip(tmp_path):
    with pytest.raises(ValueError, match="unknown policy prior 'pimc'.*'heuristic'"):
        PolicyNet(hidden=(8,), prior="pimc")
    with pytest.raises(ValueError, match="needs the action mask"):
        policy_features(np.zeros((1, OBS_SIZE), dtype=np.float32), prior="heuristic")
    net = PolicyNet(hidden=(8,), prior="heuristic", prior_scale=3.0)
    save_checkpoint(tmp_path / "p.pt", net)
    loaded, payload = load_checkpoint(str(tmp_path / "p.pt"))
    assert payload["prior"] == "heuristic" and loaded.prior == "heuristic"
    assert torch.allclose(loaded.prior_log_scale.exp(), torch.full((2,), 3.0))


def test_non_finite_weights_are_refused_naming_the_tensor(tmp_path):
    net = PolicyNet(hidden=(8,))
    with torch.no_grad():
        net.torso[0].weight[0, 0] = float("nan")
    save_checkpoint(tmp_path / "nan.pt", net)
    with pytest.raises(ValueError, match=r"tensor 'torso.0.weight' holds non-finite values"):
        load_checkpoint(str(tmp_path / "nan.pt"))


@pytest.mark.parametrize("key, value", [
    ("prior_spec", "heuristic:win_value=8.0"),  # trained under another heuristic default
    ("handeval_table", "0123456789abcdef"),  # another hand-evaluation table
    ("obs_layout", "fedcba9876543210"),  # another observation layout
])
def test_a_policy_trained_under_another_prior_table_or_layout_is_refused(tmp_path, key, value):
    from agents.ppo import behaviour_identity

    net = PolicyNet(hidden=(8,), prior="heuristic")
    save_checkpoint(tmp_path / "p.pt", net)
    payload = torch.load(tmp_path / "p.pt", weights_only=True)
    assert payload["identity"] == behaviour_identity("heuristic")
    assert "bid_margin=1.5" in payload["identity"]["prior_spec"]  # every parameter is spelled out
    payload["identity"][key] = value
    torch.save(payload, tmp_path / "p.pt")
    with pytest.raises(ValueError, match=f"would not play as trained: {key}: trained with '{value}'"):
        load_checkpoint(str(tmp_path / "p.pt"))


def test_loading_a_policy_does_not_draw_from_the_global_generator(tmp_path):
    save_checkpoint(tmp_path / "p.pt", PolicyNet(hidden=(8,)))
    before = torch.get_rng_state()
    load_checkpoint(str(tmp_path / "p.pt"))
    assert torch.equal(before, torch.get_rng_state())


def test_bfloat16_features_go_through_the_first_layer_in_bfloat16_only():
    """The PPO update's bfloat16 path (update_dtype: bfloat16): the same logits and values
    as float32 up to the first layer's rounding, the prior's block taken in float32."""
    obs, mask = _heuristic_positions()
    torch.manual_seed(0)
    net = PolicyNet(prior="heuristic")
    feats = torch.as_tensor(net.features(obs, mask))
    legal = torch.as_tensor(mask).bool()
    with torch.no_grad():
        logits, value = net(feats, legal)
        prior = feats[:, net.prior_offset:].contiguous()
        logits16, value16 = net(feats.to(torch.bfloat16), legal, prior)
    assert logits16.dtype == value16.dtype == torch.float32
    gap = (logits16 - logits)[legal].abs()
    assert 0 < gap.max() < 0.05 and (value16 - value).abs().max() < 0.05  # rounded, not another network
    assert torch.equal(logits16[~legal], logits[~legal])  # illegal actions masked alike
    with pytest.raises(ValueError, match="prior_block"):
        net(feats.to(torch.bfloat16), legal)
