"""The AEC env of the family (PettingZoo), shared by its games: :class:`FamilyEnv`.

A game's ``raw_env`` subclasses it, setting ``parts`` (its rules modules), ``metadata`` and
``option_keys``; the game's own ``env.py`` documents its spaces, options and ``info``. The
machinery every game shares (spaces, the reset skeleton, the step protocol) is
:class:`redbeard_env.aec_base.TableEnv`; this adds the family's deal options (``decks``,
``hands`` and, where the family turns a trump card, ``trump_card``), its rewards
(``reward="win"``: +1/k to each of the k players tied on top, -1/(n-k) to the others;
``reward="score"``: each round's points as it is scored) and its ``info``.
"""

from __future__ import annotations

from typing import Any

from ..aec_base import TableEnv, is_int, is_list
from . import game as G
from .family import deck_for, drawn_size


def win_rewards(num_players: int, winners) -> list[float]:
    """Per seat: +1/k for each of the k winners, -1/(n-k) for the others (0 if all tie)."""
    n, k = num_players, len(winners)
    if k == n:
        return [0.0] * n
    return [1.0 / k if s in winners else -1.0 / (n - k) for s in range(n)]


class FamilyEnv(TableEnv):
    """The AEC env of a game of the family (Sortskæg's ``raw_env``, Oh Hell's): the
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
