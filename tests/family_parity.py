"""The parity runner of the family's batch engines (tests/test_<game>_vector.py): a game's
compiled ``VectorEnv`` against its reference AEC env, the game named in the registry.

Both engines get the same deals (per game, ``decks_per_game`` rows of ``deck_parts``
permutations of the deck), first dealers and starting scores, and the same actions (random
legal ones unless the caller's ``policy`` says otherwise); at every step they must agree bit
for bit on the acting seat's observation, the action mask, the acting seat, the per-seat
rewards, the running scores, the end of the game, the winners and the deal's record.

What a game counts or checks on top comes from its hooks: ``count(seen, game, action)``
before the reference plays ``action`` in ``game`` (its state), ``check_end(info, b, game,
rules)`` when game ``b`` ends.
"""

from __future__ import annotations

import collections
from typing import Callable

import numpy as np

import redbeard_env
from redbeard_env.family.vector import random_legal_actions


def deal(info, rules, games: int, rng: np.random.Generator) -> np.ndarray:
    """Decks for ``games`` games: (games, decks_per_game, deck_parts * deck_size)."""
    rows = info.decks_per_game(rules)
    return np.stack([np.stack([np.concatenate([rng.permutation(info.deck_size) for _ in range(info.deck_parts)])
                               for _ in range(rows)]) for _ in range(games)])


def run_parity(game: str, n: int, overrides: dict, kwargs: dict, games: int, seed: int, *,
               policy: Callable | None = None, count: Callable | None = None,
               check_end: Callable | None = None) -> dict:
    """Play ``games`` games of ``n`` players on both engines, checking them at every step;
    returns what was seen: ``games`` ended, ``ties`` on top, ``rounds`` ended, their hand
    ``sizes``, and whatever ``count`` added."""
    entry = redbeard_env.game_named(game)
    rng = np.random.default_rng(seed)
    rules = entry.make_rules(game, **overrides)
    decks = deal(entry, rules, games, rng)
    dealer = rng.integers(n, size=games)
    scores = rng.integers(-2, 3, size=(games, n)) * (rng.random((games, 1)) < 0.5)
    venv = entry.vector_env(games, n, rules=rules, seed=seed, auto_reset=False, **kwargs)
    obs, mask, seat = venv.reset(dealer=dealer, scores=scores, decks=decks)
    envs = []
    for b in range(games):
        env = redbeard_env.make(game, num_players=n, rules=rules, **kwargs)
        env.reset(seed=b, options={"dealer": int(dealer[b]), "scores": [int(x) for x in scores[b]],
                                   "decks": decks[b].tolist()})
        envs.append(env)
    seen = collections.defaultdict(int, sizes=set())
    while True:
        live = [b for b in range(games) if not envs[b].game.game_over]
        for b in range(games):
            g = envs[b].game
            if g.game_over:
                assert seat[b] == -1 and not mask[b].any(), f"game {b}: over in the reference, not in the batch"
                continue
            ref = envs[b].observe(envs[b].agent_selection)
            assert seat[b] == g.to_act, f"game {b}: acting seat {seat[b]} vs {g.to_act}"
            assert np.array_equal(mask[b], ref["action_mask"]), f"game {b} phase {g.phase}: masks differ"
            diff = np.flatnonzero(obs[b] != ref["observation"])
            assert len(diff) == 0, f"game {b} phase {g.phase}: observations differ at {diff[:10]}"
        if not live:
            break
        legal = np.maximum(mask, 0)
        actions = random_legal_actions(legal, rng) if policy is None else policy(rng, legal)
        obs, mask, seat, rewards, term, trunc, info = venv.step(actions)
        assert not trunc.any()
        for b in live:
            env, g = envs[b], envs[b].game
            if count is not None:
                count(seen, g, int(actions[b]))
            env.step(int(actions[b]))
            ref_rewards = [env.rewards[f"player_{s}"] for s in range(n)]
            assert np.allclose(rewards[b], ref_rewards), f"game {b}: rewards {rewards[b]} vs {ref_rewards}"
            assert list(info["score"][b]) == g.scores, f"game {b}: scores differ"
            assert term[b] == g.game_over
            ends = [e for e in g.events if e[0] == "round_end"]
            assert bool(info["round_over"][b]) == bool(ends)
            if ends:
                _, index, size, bids, tricks, deltas = ends[0]
                seen["rounds"] += 1
                seen["sizes"].add(size)
                assert (info["round_index"][b], info["round_hand_size"][b]) == (index, size)
                assert list(info["round_bids"][b]) == list(bids) and list(info["round_tricks"][b]) == list(tricks)
                assert list(info["round_delta"][b]) == list(deltas)
            if g.game_over:
                seen["games"] += 1
                seen["ties"] += len(g.winners) > 1
                assert list(np.flatnonzero(info["winners"][b])) == g.winners
                if check_end is not None:
                    check_end(info, b, g, rules)
    assert seen["games"] == games
    return seen
