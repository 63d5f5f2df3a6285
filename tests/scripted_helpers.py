"""Helpers for the scripted rule tests (tests/test_scripted_*.py).

A script is a string of ``seat:action`` tokens separated by white space, played in
order through the public AEC env. Before each action the helper asserts that the
given seat is the one asked (``env.agent_selection``) and that the action is legal
in its mask. The action is an action name (``bid:3``, ``pass``, ``redbeard``, ``join``,
``fold``, ``ask``, ``skip``, ``keep``, ``redeal``, ``look``, ``no_look``) or a bare card
(``AS`` means ``play:AS``); ``-`` steps a terminated (eliminated) agent with ``None``.

    play(env, "0:bid:4 1:pass 2:pass 3:pass")
    play(env, "0:AS 1:AC 2:AD 3:AH")   # p0 wins: 12 -> 11
"""

from __future__ import annotations

import redbeard_env
from redbeard_env import action_id, action_name
from redbeard_env.redbeard.cards import NUM_CARDS, parse_card

#: four hands with a face card each (no redeal question under no_face_card): only p0 has
#: spades, only p1 clubs, p2 diamonds, p3 hearts
BASE = [
    "AS KS QS JS 2C 3C",
    "AC KC QC JC TC 9C",
    "AD KD QD JD TD 9D",
    "AH KH QH JH TH 9H",
]


def agent(seat: int) -> str:
    return f"player_{seat}"


def cards(text: str) -> list[str]:
    return text.split()


def new_env(
    num_players: int = 4,
    rules: str = "classic",
    *,
    dealer: int,
    hands=None,
    stock=None,
    scores=None,
    decks=None,
    seed: int = 0,
    **overrides,
):
    """A reset env. ``hands`` is one string of 6 cards per seat; ``stock`` a string."""
    env = redbeard_env.env(num_players=num_players, rules=rules, **overrides)
    options: dict = {"dealer": dealer}
    if hands is not None:
        options["hands"] = [cards(h) if isinstance(h, str) else list(h) for h in hands]
    if stock is not None:
        options["stock"] = cards(stock) if isinstance(stock, str) else list(stock)
    if scores is not None:
        options["scores"] = list(scores)
    if decks is not None:
        options["decks"] = decks
    env.reset(seed=seed, options=options)
    return env


def build_deck(order: list[int], hands: dict[int, str] | list[str], stock: str = "", reshuffle: str | None = None):
    """A full 52-card deck (top first) for the ``decks`` option: the hands of the seats in
    dealing ``order`` (seat -> 6 cards), then ``stock``, then every other card by id.
    ``reshuffle`` (optional) lists cards first in the order thrown-in cards come back."""
    if isinstance(hands, list):
        hands = dict(enumerate(hands))
    top = [c for s in order for c in cards(hands[s])] + cards(stock)
    used = {parse_card(c) for c in top}
    assert len(used) == len(top), "duplicate card in build_deck"
    deck = top + [redbeard_env.card_name(c) for c in range(NUM_CARDS) if c not in used]
    if reshuffle is None:
        return deck
    first = cards(reshuffle)
    rest = [redbeard_env.card_name(c) for c in range(NUM_CARDS) if redbeard_env.card_name(c) not in first]
    return deck + first + rest


def legal(env) -> set[str]:
    """Names of the legal actions of the acting agent."""
    obs = env.observe(env.agent_selection)
    return {action_name(i) for i, m in enumerate(obs["action_mask"]) if m}


def _action(token: str) -> tuple[int, str]:
    seat, _, name = token.partition(":")
    if ":" not in name and name not in ("-",) and len(name) in (2, 3) and name[0] in "23456789TJQKA1":
        name = "play:" + name
    return int(seat), name


def play(env, *lines: str) -> None:
    """Play scripted ``seat:action`` tokens, asserting who acts and that it is legal."""
    tokens = [t for line in lines for t in line.split()]
    for i, token in enumerate(tokens):
        seat, name = _action(token)
        g = env.unwrapped.game
        assert env.agent_selection == agent(seat), (
            f"token {i} {token!r}: expected {agent(seat)} to act, but {env.agent_selection} "
            f"is asked (phase {g.phase!r}, legal {sorted(legal(env))})"
        )
        obs, _, terminated, truncated, _ = env.last()
        if name == "-":
            assert terminated or truncated, f"token {i} {token!r}: {agent(seat)} is not done"
            env.step(None)
            continue
        assert not (terminated or truncated), f"token {i} {token!r}: {agent(seat)} is done"
        a = action_id(name)
        assert obs["action_mask"][a] == 1, (
            f"token {i} {token!r}: {name} is not legal in phase {g.phase!r}; legal {sorted(legal(env))}"
        )
        env.step(a)
        _check_after_step(env)


def play_both_engines(
    num_players: int, *lines: str, dealer: int, scores, decks, rules: str = "classic", **overrides
) -> list[dict]:
    """Play a script on the AEC env and on a one-game ``VectorEnv`` with the same deals
    (``decks``: lists of card names as for ``build_deck``) and check after every step that
    they agree: acting seat, observation, mask, scores, per-seat rewards, eliminations,
    termination. Returns the batch engine's ``info`` of every step."""
    import numpy as np

    from redbeard_env.redbeard.vector import VectorEnv

    env = new_env(num_players, rules, dealer=dealer, scores=scores, decks=decks, **overrides)
    venv = VectorEnv(1, num_players, rules, seed=0, **overrides)
    ids = np.array([[[parse_card(c) for c in deck] for deck in decks]])
    obs, mask, seat = venv.reset(dealer=dealer, scores=[scores], decks=ids)
    infos = []
    for token in (t for line in lines for t in line.split()):
        seat_, name = _action(token)
        if name == "-":  # an eliminated agent steps out of the AEC env; nothing in the batch
            play(env, token)
            continue
        ref = env.observe(agent(seat_))
        assert seat[0] == seat_, (token, seat[0])
        assert np.array_equal(ref["observation"], obs[0]) and np.array_equal(ref["action_mask"], mask[0]), token
        play(env, token)
        obs, mask, seat, rewards, term, trunc, info = venv.step(np.array([action_id(name)]))
        infos.append(info)
        g = env.unwrapped.game
        assert info["score"][0].tolist() == g.scores, token
        assert rewards[0].tolist() == [np.float32(env.rewards.get(a, 0.0)) for a in env.possible_agents], token
        elim = sorted(e[1] for e in g.events if e[0] == "eliminated")
        assert np.flatnonzero(info["eliminated"][0]).tolist() == elim, token
        assert (term[0], trunc[0]) == (g.terminated, g.truncated), token
    return infos


def _check_after_step(env) -> None:
    """SPEC §3 after every step: terminal rewards only (an agent still playing gets 0),
    and info holds the running score and this deal's tricks of every agent."""
    g = env.unwrapped.game
    for a in env.agents:
        seat = int(a.split("_")[1])
        if not (env.terminations[a] or env.truncations[a]):
            assert env.rewards[a] == 0, f"{a} got a non-terminal reward {env.rewards[a]}"
        info = env.infos[a]
        assert info["phase"] == g.phase and info["score"] == g.scores[seat] and info["tricks"] == g.tricks[seat]


def game(env):
    return env.unwrapped.game


def scores(env) -> list[int]:
    return list(env.unwrapped.game.scores)


def tricks(env) -> list[int]:
    return list(env.unwrapped.game.tricks)


def hand_of(env, seat: int) -> set[str]:
    return {redbeard_env.card_name(c) for c in env.unwrapped.game.hands[seat]}


def score_events(env) -> list[tuple]:
    """The ("score", seat, delta, reason) events of the last action."""
    return [e for e in env.unwrapped.game.events if e[0] == "score"]
