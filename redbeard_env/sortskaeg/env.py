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

from ..aec_base import TableEnv, is_int, is_list
from . import game as G
from .family import deck_for, drawn_size
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


class FamilyEnv(TableEnv):
    """The AEC env of a game of the Sortskæg family (Sortskæg's ``raw_env``, Oh Hell's): the
    ``decks`` and ``hands`` options (and ``trump_card`` where the family turns one), rewards
    and ``info``. A game's subclass sets ``parts``, ``metadata`` and ``option_keys``."""

    reward_modes = ("win", "score")
    option_keys = ("dealer", "scores", "hands", "decks")

    def action_name(self, action: int) -> str:
        """A card id is ``discard:<card>`` in the discard phase, ``play:<card>`` otherwise."""
        return self.parts.cards.action_name(action, self.game.phase)

    # ------------------------------------------------------------------ deal options
    def parse_deal_options(self, options: dict):
        """``decks`` as deck rows; ``hands`` (and ``trump_card``) as the first deal."""
        fam = self.rules.family
        if "decks" in options:
            if "hands" in options or "trump_card" in options:
                raise ValueError("reset option 'decks' cannot be combined with 'hands' or 'trump_card'")
            return self._parse_decks(options["decks"]), None
        turned = -1
        if "trump_card" in options:
            if not fam.turned:
                raise ValueError("reset option 'trump_card': these rules turn no trump card")
            turned = self._in_deck(self.parts.cards.parse_card(options["trump_card"]), "reset option 'trump_card'")
        if "hands" not in options:
            return [], (None if turned < 0 else (None, turned))
        hands = options["hands"]
        size = fam.hand_sizes[0]
        if size == 0:  # a drawn size: the hands' own, within what the deck deals
            size = len(hands[0]) if is_list(hands) and len(hands) and is_list(hands[0]) else 0
            largest = fam.max_drawn(self.num_players)
            if not 1 <= size <= largest:
                raise ValueError(f"reset option 'hands' must give every seat 1..{largest} cards, got {size}")
        ids = self.parse_hands(hands, size, " (hand_sizes[0])" if fam.hand_sizes[0] else "")
        every = [c for hand in ids for c in hand] + ([turned] if turned >= 0 else [])
        names = self.parts.cards.parse_cards([self.parts.cards.card_name(c) for c in every], "reset option 'hands'")
        for c in names:
            self._in_deck(c, "reset option 'hands'")
        return [], (ids, turned)

    def _in_deck(self, card: int, what: str) -> int:
        if card not in self.rules.family.in_play:
            raise ValueError(f"{what}: {self.parts.cards.card_name(card)} is not in this deck "
                             f"({self.parts.cards.deck_text(self.rules)})")
        return card

    def _parse_decks(self, decks: Any) -> list[list[int]]:
        fam = self.rules.family
        ids = fam.num_ids
        if not is_list(decks):
            raise ValueError(f"reset option 'decks' must be a list of decks, got {decks!r:.80}")
        out = []
        for i, deck in enumerate(decks):
            if not is_list(deck) or len(deck) != ids * fam.deck_parts:
                what = f"the {ids} cards" + (f", then a permutation of 0..{ids - 1} (it draws the hand size)"
                                             if fam.deck_parts == 2 else "")
                raise ValueError(f"reset option 'decks'[{i}] must list {what}, got {deck!r:.80}")
            row = self.parts.cards.parse_cards(list(deck[:ids]), f"reset option 'decks'[{i}]")
            if fam.deck_parts == 2:
                part = list(deck[ids:])
                if not all(is_int(v) for v in part) or sorted(int(v) for v in part) != list(range(ids)):
                    raise ValueError(f"reset option 'decks'[{i}]: its second part must be a permutation of 0..{ids - 1}")
                row += [int(v) for v in part]
            out.append(row)
        return out

    def first_deck(self, first_deal, dealer: int) -> list[int]:
        """The first deal's deck: the given hands in dealing order on top (then the given
        turned card), the other cards shuffled below them; with only a turned card given, a
        shuffled deck with that card where the deal turns it."""
        fam, n = self.rules.family, self.num_players
        hands, turned = first_deal
        perm = [int(c) for c in self._rng.permutation(fam.num_ids)]
        if hands is not None:
            return deck_for(fam, hands, dealer, turned, rest=perm)
        size, part = fam.hand_sizes[0], []
        if fam.deck_parts == 2:
            part = [int(c) for c in self._rng.permutation(fam.num_ids)]
            size = size or drawn_size(part, fam.max_drawn(n))
        deck = [c for c in perm if c != turned]
        last = [c for c in deck if c in fam.in_play][n * size - 1]  # the last card dealt to a hand
        deck.insert(deck.index(last) + 1, turned)
        return deck + part

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
        if g.fam.turned:
            info["trump_card"] = self.parts.cards.card_name(g.trump_card) if g.trump_card >= 0 else None
        if g.game_over:
            names = [self.possible_agents[s] for s in g.winners]
            info["winners"] = names
            info["winner"] = names[0] if len(names) == 1 else names
        return info


class raw_env(FamilyEnv):
    metadata = {"render_modes": ["human", "ansi"], "name": "sortskaeg_v0", "is_parallelizable": False}
    parts = SORTSKAEG

    def __init__(self, num_players: int = 4, rules: "str | Rules" = "sortskaeg", render_mode: str | None = None,
                 reward: str = "win", **overrides: Any):
        super().__init__(num_players, rules, render_mode, reward, **overrides)
