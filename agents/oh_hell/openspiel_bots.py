"""Oh Hell's ``openspiel`` bots: OpenSpiel's own searches (its C++ ``ISMCTSBot`` and ``MCTSBot``,
through pyspiel) playing our Oh Hell through a pyspiel ``oh_hell`` state rebuilt from the bot's
observation.

Specs (``agents.registry``)::

    openspiel:ismcts                              # IS-MCTS, 100 simulations, random-rollout evaluator
    openspiel:ismcts,simulations=400,uct_c=2.0,rollouts=2
    openspiel:mcts,simulations=100,worlds=4       # MCTS on sampled worlds (determinised), votes

Keys: ``simulations`` (per search), ``evaluator`` (``random``: OpenSpiel's
``RandomRolloutEvaluator``, the one leaf evaluator that needs nothing of ours), ``rollouts`` (its
random playouts per leaf), ``uct_c``, ``worlds`` (mcts: determinised worlds per decision; the
action most chosen wins, ties to the best total visit share) and ``seed``.

The state. The observation holds the whole public history of the deal (the bids; who played
which card in which trick: ``played_by``, ``trick_of``), the observer's hand and the turned
card, so :func:`rebuild_state` replays it on a fresh pyspiel state, players numbered by relative
position (the observer is OpenSpiel's player 0, the dealer its ``dealer``): the chance nodes get
the deal's size, the dealer, a deal (the observer's hand; each other player's played cards plus
a sample of the unseen cards consistent with its hand size and the voids it showed, from
:func:`agents.oh_hell.pimc.hidden_hands`) and the turned card; then every bid and play in order.
IS-MCTS searches from there, resampling the hidden cards at every simulation with OpenSpiel's
``ResampleFromInfostate`` (the information state is the observer's, whatever the sample) and
plays the most visited action; MCTS searches each of ``worlds`` sampled worlds as if it saw every
card. Both run OpenSpiel's C++ searches, the peer at its fastest (its Python ``ismcts`` and
``mcts`` play the same algorithms some twenty times slower), each search seeded from the bot's
generator so a seeded bot replays its moves. They are yardsticks from outside the project.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from redbeard_env.oh_hell.cards import BID0, from_openspiel, to_openspiel

from ..base import Agent, check_batch
from ..params import SEED, Choice, Float, Int, set_numbers
from .decode import PHASE, OObs, decode_batch
from .pimc import hidden_hands

ALGORITHMS = ("ismcts", "mcts")
EVALUATORS = ("random",)
MCTS_MEMORY_MB = 256  # bound of one C++ MCTS tree (OpenSpiel stops growing the tree there)


def openspiel_params(v: OObs, row: int) -> dict:
    """OpenSpiel's ``oh_hell`` parameters of the game a row's observation shows."""
    return {"players": int(v.num_players[row]), "num_suits": int(v.num_suits[row]),
            "num_cards_per_suit": int(v.num_cards_per_suit[row]),
            "num_tricks_fixed": -1 if v.drawn[row] else int(v.hand_size[row]),
            "off_bid_penalty": bool(v.off_bid_penalty[row]), "points_per_trick": int(v.points_per_trick[row])}


def rebuild_state(game, v: OObs, row: int, rng: np.random.Generator):
    """A pyspiel state of ``game`` at the observer's decision, consistent with its observation
    (see the module docstring); the observer is player 0."""
    n, h = int(v.num_players[row]), int(v.hand_size[row])
    suits = int(v.num_suits[row])
    dealer = int(v.dealer[row])
    state = game.new_initial_state()
    state.apply_action(h)
    state.apply_action(dealer)
    unseen = hidden_hands(v, np.array([row]), 1, rng)[0, 0]  # [P, 52]: the other players' hands now
    hands = [list(np.flatnonzero(v.played_by[row, p] | (v.hand[row] if p == 0 else unseen[p]))) for p in range(n)]
    assert all(len(hand) == h for hand in hands), "the observation does not make a whole deal"
    for k in range(n * h):  # one card at a time from player 0, as OpenSpiel deals
        state.apply_action(to_openspiel(int(hands[k % n][k // n]), suits))
    state.apply_action(to_openspiel(int(np.flatnonzero(v.trump_card[row])[0]), suits))
    cards = suits * int(v.num_cards_per_suit[row])
    for k in range(n):  # the bids made, from the dealer's left
        p = (dealer + 1 + k) % n
        if v.bid[row, p] < 0:
            break
        state.apply_action(cards + int(v.bid[row, p]))
    for t in range(int(v.tricks_done[row]) + 1):  # the plays, trick by trick; the state knows who leads
        for _ in range(n):
            p = state.current_player()
            card = np.flatnonzero(v.played_by[row, p] & (v.trick_of[row] == t))
            if p < 0 or len(card) == 0:
                break
            state.apply_action(to_openspiel(int(card[0]), suits))
    assert state.current_player() == 0, "the rebuilt state is not the observer's decision"
    return state


def to_ours(action: int, v: OObs, row: int) -> int:
    """OpenSpiel's action id in the row's game -> ours."""
    suits, cards = int(v.num_suits[row]), int(v.num_suits[row]) * int(v.num_cards_per_suit[row])
    return from_openspiel(action, suits) if action < cards else BID0 + action - cards


class OpenSpielBot(Agent):
    """See the module docstring."""

    game = "oh_hell"
    #: the spec's parameters (agents.params); a decision costs simulations x rollouts x worlds
    #: (ismcts, which ignores worlds, is charged as if it searched them: an upper bound)
    PARAMS = {
        "algorithm": Choice(*ALGORITHMS, help="IS-MCTS, or MCTS on determinised worlds"),
        "simulations": Int(2, 100_000, per=1, help="simulations per search (OpenSpiel needs two)"),
        "evaluator": Choice(*EVALUATORS, help="the leaf evaluator"),
        "rollouts": Int(1, 100, per=2, help="random playouts per leaf"),
        "uct_c": Float(0, 100, help="the exploration constant"),
        "worlds": Int(1, 64, per=1, help="mcts: determinised worlds per decision"),
        "seed": SEED,
    }
    COST = 0.3  # cost units (agents.params) per simulation and world

    def __init__(self, algorithm: str = "ismcts", simulations: int = 100, evaluator: str = "random", rollouts: int = 1,
                 uct_c: float = 2.0, worlds: int = 4, seed: int | None = None):
        self.algorithm = self.PARAMS["algorithm"].check("algorithm", algorithm)
        self.evaluator = self.PARAMS["evaluator"].check("evaluator", evaluator)
        set_numbers(self, simulations=simulations, rollouts=rollouts, uct_c=uct_c, worlds=worlds)
        self.seed = seed
        self.games: dict = {}
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        seed = self.seed if seed is None else seed
        self.rng = np.random.default_rng(seed)

    def _game(self, params: dict):
        key = tuple(sorted(params.items()))
        if key not in self.games:
            self.games[key] = pyspiel.load_game("oh_hell", params)
        return self.games[key]

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, legal = check_batch(obs, mask, self.game)
        v = decode_batch(obs)
        actions = legal.argmax(1)
        for row in np.flatnonzero((legal.sum(1) > 1) & np.isin(v.phase, [PHASE["bid"], PHASE["play"]])):
            action = to_ours(self._search(v, int(row)), v, int(row))
            assert legal[row, action], f"openspiel chose {action}, not a legal action"
            actions[row] = action
        return actions

    def _search(self, v: OObs, row: int) -> int:
        game = self._game(openspiel_params(v, row))
        evaluator = pyspiel.RandomRolloutEvaluator(self.rollouts, self._seed())
        if self.algorithm == "ismcts":
            bot = pyspiel.ISMCTSBot(self._seed(), evaluator, self.uct_c, self.simulations, -1,
                                    pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
            return int(bot.step(rebuild_state(game, v, row, self.rng)))
        votes: dict[int, float] = {}
        for _ in range(self.worlds):  # determinised MCTS: each world as if every card were seen
            bot = pyspiel.MCTSBot(game, evaluator, self.uct_c, self.simulations, MCTS_MEMORY_MB, False, self._seed(),
                                  False)
            root = bot.mcts_search(rebuild_state(game, v, row, self.rng))
            best = root.best_child()
            share = best.explore_count / max(root.explore_count, 1)
            votes[best.action] = votes.get(best.action, 0.0) + 1.0 + share / (self.worlds + 1)
        return max(votes, key=votes.get)

    def _seed(self) -> int:
        return int(self.rng.integers(2**31))
