"""Oh Hell against OpenSpiel's ``oh_hell``, move for move (SPEC §7): the outside referee.

Each deal is drawn through OpenSpiel's own chance outcomes (the number of tricks, the dealer,
the cards dealt one at a time from player 0, the turned card) and set up in our env with the
reset options ``dealer``, ``hands`` and ``trump_card``; then both play the same random legal
actions. At every step the player to move and the set of legal actions must agree, and at the
end every player's ``info["score"]`` (and, under ``reward="score"``, its reward) must equal its
OpenSpiel return.

Parameters are drawn per deal over everything OpenSpiel has: 3-7 players, 1-4 suits of 2-13
cards (every deck that deals at least one card each plus the turned card), ``num_tricks``
fixed (any size the deck deals) or -1 (drawn by OpenSpiel's chance node; our env is then
given the drawn size through the hands, with ``num_tricks=-1`` too), ``points_per_trick`` 0-3
and ``off_bid_penalty`` both ways. 1,000 deals by default (a few seconds); 20,000 with
``-m slow``.
"""

from __future__ import annotations

import numpy as np
import pytest

import redbeard_env
from redbeard_env.oh_hell.cards import BID0, card_name, from_openspiel, to_openspiel

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install -e '.[test]')")

DEALS = 1_000
SLOW_DEALS = 20_000


def draw_params(rng: np.random.Generator) -> dict:
    """One of OpenSpiel's parameter sets, uniformly over players and decks that deal."""
    while True:
        n, suits, per_suit = int(rng.integers(3, 8)), int(rng.integers(1, 5)), int(rng.integers(2, 14))
        if n <= suits * per_suit - 1:
            break
    largest = (suits * per_suit - 1) // n
    tricks = -1 if rng.random() < 0.4 else int(rng.integers(1, largest + 1))
    return {"players": n, "num_suits": suits, "num_cards_per_suit": per_suit, "num_tricks_fixed": tricks,
            "off_bid_penalty": bool(rng.random() < 0.5), "points_per_trick": int(rng.choice([0, 1, 1, 2, 3]))}


class Referee:
    """OpenSpiel's games by parameters (each loaded once)."""

    def __init__(self):
        self.games: dict = {}

    def state(self, params: dict):
        key = tuple(sorted(params.items()))
        if key not in self.games:
            self.games[key] = pyspiel.load_game("oh_hell", params)
        return self.games[key].new_initial_state()


def deal(state, rng: np.random.Generator, params: dict) -> dict:
    """Play OpenSpiel's chance nodes with random outcomes; the deal as our reset options."""
    n, suits = params["players"], params["num_suits"]
    outcomes = []
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes())
        assert np.isclose(sum(probs), 1.0)
        a = int(rng.choice(actions))
        outcomes.append(a)
        state.apply_action(a)
    tricks, dealer, cards = outcomes[0], outcomes[1], outcomes[2:]
    assert len(cards) == n * tricks + 1
    hands = [[card_name(from_openspiel(c, suits)) for c in cards[seat:n * tricks:n]] for seat in range(n)]
    return {"tricks": tricks, "options": {"dealer": dealer, "hands": hands,
                                          "trump_card": card_name(from_openspiel(cards[-1], suits))}}


def our_legal(env, params: dict) -> set[int]:
    """Our legal actions now, in OpenSpiel's numbering."""
    mask = env.observe(env.agent_selection)["action_mask"]
    cards = params["num_suits"] * params["num_cards_per_suit"]
    return {to_openspiel(int(a), params["num_suits"]) if a < BID0 else cards + int(a) - BID0
            for a in np.flatnonzero(mask)}


def ours(action: int, params: dict) -> int:
    """OpenSpiel's action id -> ours."""
    cards = params["num_suits"] * params["num_cards_per_suit"]
    return from_openspiel(action, params["num_suits"]) if action < cards else BID0 + action - cards


def play_deal(referee: Referee, rng: np.random.Generator, k: int) -> dict:
    params = draw_params(rng)
    state = referee.state(params)
    d = deal(state, rng, params)
    reward = "score" if k % 2 else "win"
    env = redbeard_env.make("oh_hell", num_players=params["players"], num_tricks=params["num_tricks_fixed"],
                            num_suits=params["num_suits"], num_cards_per_suit=params["num_cards_per_suit"],
                            points_per_trick=params["points_per_trick"], off_bid_penalty=params["off_bid_penalty"],
                            reward=reward)
    env.reset(seed=k, options=d["options"])
    assert env.game.hand_size == d["tricks"] and env.game.dealer == d["options"]["dealer"]
    steps = 0
    returns = {a: 0.0 for a in env.possible_agents}
    while not state.is_terminal():
        player = state.current_player()
        assert env.agent_selection == f"player_{player}", f"deal {k} step {steps}: {env.agent_selection} vs {player}"
        if player == 0 and k % 4 == 0:  # player_0's observation holds OpenSpiel's information state
            assert rebuilt_infostate(env, rng) == state.information_state_string(0), f"deal {k} step {steps}"
        legal = state.legal_actions()
        assert our_legal(env, params) == set(legal), f"deal {k} step {steps} ({params}): legal actions differ"
        action = int(rng.choice(legal))
        state.apply_action(action)
        env.step(ours(action, params))
        for a in env.possible_agents:
            returns[a] += env.rewards[a]
        steps += 1
    expected = state.returns()
    assert all(env.terminations.values())
    assert [env.infos[f"player_{s}"]["score"] for s in range(params["players"])] == expected, (k, params)
    if reward == "score":
        assert [returns[f"player_{s}"] for s in range(params["players"])] == expected
    return {"params": params, "steps": steps, "tricks": d["tricks"]}


def rebuilt_infostate(env, rng: np.random.Generator) -> str:
    """Player_0's information state in a pyspiel state rebuilt from its observation alone (as
    the ``openspiel`` bots do; the observer is OpenSpiel's player 0, as here)."""
    from agents.oh_hell.decode import decode_batch
    from agents.oh_hell.openspiel_bots import openspiel_params, rebuild_state

    v = decode_batch(env.observe("player_0")["observation"][None])
    state = rebuild_state(pyspiel.load_game("oh_hell", openspiel_params(v, 0)), v, 0, rng)
    return state.information_state_string(0)


def run(deals: int, seed: int) -> list[dict]:
    rng = np.random.default_rng(seed)
    referee = Referee()
    return [play_deal(referee, rng, k) for k in range(deals)]


def test_move_for_move_against_openspiel():
    out = run(DEALS, seed=0)
    params = [o["params"] for o in out]
    # every parameter was exercised
    assert {p["players"] for p in params} == {3, 4, 5, 6, 7}
    assert {p["num_suits"] for p in params} == {1, 2, 3, 4}
    assert {p["off_bid_penalty"] for p in params} == {True, False}
    assert {p["points_per_trick"] for p in params} == {0, 1, 2, 3}
    assert any(p["num_tricks_fixed"] == -1 for p in params) and any(p["num_tricks_fixed"] > 0 for p in params)
    assert len({p["num_cards_per_suit"] for p in params}) == 12
    assert max(o["tricks"] for o in out) >= 12 and sum(o["steps"] for o in out) > 10_000


@pytest.mark.slow
def test_move_for_move_against_openspiel_many_deals():
    run(SLOW_DEALS, seed=1)


def test_the_referee_catches_a_difference(monkeypatch):
    """The comparison can fail: with the dealer's hook switched off in our family, the
    dealer's legal bids differ from OpenSpiel's."""
    import dataclasses

    from redbeard_env.oh_hell import rules as R

    original = R.family_of

    def no_hook(rules):
        return dataclasses.replace(original(rules), dealer_hook=False)

    monkeypatch.setattr(R, "family_of", no_hook)
    with pytest.raises(AssertionError, match="legal actions differ"):
        run(30, seed=2)
