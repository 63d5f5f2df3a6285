"""Sortskæg as a PettingZoo AEC environment (SPEC §6).

Played like Rödskägg's env (the loop in :mod:`redbeard_env.redbeard.env`; the shared machinery is
:class:`redbeard_env.aec_base.TableEnv`)::

    from redbeard_env import sortskaeg
    env = sortskaeg.env(num_players=4, rules="sortskaeg", render_mode=None, **overrides)

Agents
    ``player_0`` … ``player_{n-1}`` (2..6 players); the agent name's number is its seat.
    Play goes clockwise, i.e. by increasing seat.

Action space
    ``Discrete(50)`` for every agent: 0–41 a card (play it; in the ``discard`` phase
    discard it), 42–49 bid 0..7. Ids and names in :mod:`redbeard_env.sortskaeg.cards`
    (``action_id("play:Y10") == 39``, ``action_id("bid:3") == 45``).

Observation space
    ``Dict(observation=Box(-10, 10, (671,), float32), action_mask=Box(0, 1, (50,), int8))``.
    The vector's named blocks are documented in :mod:`redbeard_env.sortskaeg.observation`;
    it is from the observing agent's point of view (relative seats, padded to 6) and holds
    only what that agent may know. The mask is all zeros for an agent that is not acting
    and at the end of the game (the observation is still defined there).

Who is asked
    Every bid, card play and discard, even with one legal option. Phases: ``bid``,
    ``play``, ``discard`` (``deal = carry`` only), ``over``.

Rewards
    ``reward="win"`` (default), terminal only: the k players tied on the highest total get
    +1/k each, the others −1/(n−k) each (all 0 if everyone ties). ``reward="score"``:
    each round's score change, to every agent, at the step that scores the round (no
    terminal win reward).

Reset options
    ``dealer`` (seat of the first dealer), ``scores`` (one int per seat: the starting
    totals), ``hands`` (one list of ``hand_sizes[0]`` card strings per seat: the first deal;
    under ``carry`` these are all the game's cards), ``decks`` (the deck orders of the next
    deals, each a list of the 42 cards top first; not with ``hands``). Bad options raise
    ``ValueError`` and change nothing (the generator is neither reseeded nor drawn from);
    unknown keys warn.

Info
    ``phase``, ``score`` (running total), ``tricks`` (this round), ``bid`` (None until bid),
    ``round`` (rounds scored so far = index of the current round), ``hand_size`` (this
    round's; during a discard the next round's), ``dealer`` (seat) and, once the game is
    over, ``winner`` (the agent name, or the list of tied agents' names) and ``winners``
    (always the list).

Illegal actions raise ``ValueError`` naming the action and the phase; the state is
unchanged. The same seed, options and actions give the same game.
"""

from __future__ import annotations

from typing import Any

from ..aec_base import TableEnv, is_list
from . import game as G
from .cards import NUM_CARDS, action_name, card_name, parse_cards
from .parts import SORTSKAEG
from .rules import Rules


def env(num_players: int = 4, rules: "str | Rules" = "sortskaeg", render_mode: str | None = None, **kwargs):
    """The public entry: the raw env (illegal actions already raise, observations are
    always defined: there is nothing to wrap)."""
    return raw_env(num_players=num_players, rules=rules, render_mode=render_mode, **kwargs)


def win_rewards(num_players: int, winners) -> list[float]:
    """Per seat: +1/k for each of the k winners, -1/(n-k) for the others (0 if all tie)."""
    n, k = num_players, len(winners)
    if k == n:
        return [0.0] * n
    return [1.0 / k if s in winners else -1.0 / (n - k) for s in range(n)]


class raw_env(TableEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "sortskaeg_v0", "is_parallelizable": False}
    parts = SORTSKAEG
    reward_modes = ("win", "score")
    option_keys = ("dealer", "scores", "hands", "decks")

    def __init__(self, num_players: int = 4, rules: "str | Rules" = "sortskaeg", render_mode: str | None = None,
                 reward: str = "win", **overrides: Any):
        super().__init__(num_players, rules, render_mode, reward, **overrides)

    def action_name(self, action: int) -> str:
        """A card id is ``discard:<card>`` in the discard phase, ``play:<card>`` otherwise."""
        return action_name(action, self.game.phase)

    # ------------------------------------------------------------------ deal options
    def parse_deal_options(self, options: dict):
        """``decks`` as card-id lists; ``hands`` as the first deal (hand ids per seat)."""
        if "decks" in options:
            if "hands" in options:
                raise ValueError("reset option 'decks' cannot be combined with 'hands'")
            if not is_list(options["decks"]):
                raise ValueError(f"reset option 'decks' must be a list of decks, got {options['decks']!r:.80}")
            decks = []
            for i, deck in enumerate(options["decks"]):
                if not is_list(deck) or len(deck) != NUM_CARDS:
                    raise ValueError(f"reset option 'decks'[{i}] must list the {NUM_CARDS} cards, got {deck!r:.80}")
                decks.append(parse_cards(deck, f"reset option 'decks'[{i}]"))
            return decks, None
        if "hands" not in options:
            return [], None
        ids = self.parse_hands(options["hands"], self.rules.hand_sizes[0], " (hand_sizes[0])")
        parse_cards([card_name(c) for hand in ids for c in hand], "reset option 'hands'")  # no card twice
        return [], ids

    def first_deck(self, hands: list[list[int]], dealer: int) -> list[int]:
        """The first deal's deck: the given hands in dealing order on top, the other cards
        shuffled below them."""
        n = self.num_players
        order = [(dealer + k) % n for k in range(1, n + 1)]
        fixed = {c for h in hands for c in h}
        rest = [int(c) for c in self._rng.permutation(NUM_CARDS) if c not in fixed]
        return [c for s in order for c in hands[s]] + rest

    # ------------------------------------------------------------------ events
    def settle(self, g: G.Game) -> None:
        if self.reward_mode == "score":
            for event in g.events:
                if event[0] == "round_end":
                    for seat, delta in enumerate(event[5]):
                        self.rewards[self.possible_agents[seat]] += float(delta)
        if g.game_over:
            if self.reward_mode == "win":
                for seat, r in enumerate(win_rewards(self.num_players, g.winners)):
                    self.rewards[self.possible_agents[seat]] += r
            for agent in self.agents:
                self.terminations[agent] = True

    def agent_info(self, g: G.Game, seat: int) -> dict:
        info = {"phase": g.phase, "score": g.scores[seat], "tricks": g.tricks[seat], "bid": g.bids[seat],
                "round": g.round, "hand_size": g.hand_size, "dealer": g.dealer}
        if g.game_over:
            names = [self.possible_agents[s] for s in g.winners]
            info["winners"] = names
            info["winner"] = names[0] if len(names) == 1 else names
        return info
