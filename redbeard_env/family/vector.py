"""The batch engine of the family: B games in lock-step, compiled with numba (the SPEC §3b contract).

:class:`FamilyVectorEnv` is the batch engine of every game of the family; a game's
``VectorEnv`` subclasses it, naming its rules module, observation layout and cards::

    venv = VectorEnv(num_envs=4096, num_players=4, rules=None, seed=0, **overrides)
    obs, mask, seat = venv.reset()        # float32 [B, OBS_SIZE], int8 [B, NUM_ACTIONS], int64 [B]
    obs, mask, seat, rewards, terminated, truncated, info = venv.step(actions)   # actions int [B]

It implements every field of the game's ``Rules`` (through its :class:`~.family.Family`) and
every phase (bid, play, the ``discard`` of ``deal = carry``) and agrees with the reference
engine (:mod:`~.game`, wrapped by the AEC env) step for step on the same deals and actions
(each game's parity test, ``tests/test_<game>_vector.py``). One ``Rules`` and one player
count for the whole batch; the games may be in different rounds and phases at once.
``num_envs`` is 1..``redbeard_env.common.MAX_NUM_ENVS``; ``seed`` None, an int >= 0 or a
list of them (numpy's ``default_rng``), else ``ValueError``.

Spaces
    ``obs`` float32 [B, OBS_SIZE]: the acting seat's observation, bit for bit what the AEC env
    gives (the game's ``observation.encode``). ``mask`` int8 [B, NUM_ACTIONS]: its legal
    actions. ``seat`` int64 [B]: the acting seat, -1 for a halted game. An illegal action
    (mask 0) for any game raises ``ValueError`` naming the game index, the action and the
    phase; nothing changes. Every step returns arrays the caller owns (``obs`` is never one
    the caller still holds; ``mask`` is a copy).

Rewards
    float32 [B, num_players] per seat for this step: ``reward="win"`` pays the AEC env's
    terminal reward when a game ends (+1/k to each of k winners, -1/(n-k) to the others);
    ``reward="score"`` pays each round's score change when the round is scored.

Auto-reset
    A finished game (``terminated``; a game of the family is never truncated) is replaced at
    once by a new one (random first dealer, scores 0): the returned obs/mask/seat are the new
    game's first decision, while rewards, ``terminated`` and ``info`` describe the finished
    game. With ``auto_reset=False`` a finished game halts instead (phase 3 ``over``, mask all
    0, seat -1, actions ignored) until the next ``reset``.

Info (numpy arrays, one entry per game)
    ``score`` int64 [B, n]     totals after this step (a game that ended: its final totals)
    ``final_score``            the same array (the name tournaments use)
    ``phase`` int8 [B]         phase code of the returned decision: 0 bid, 1 play, 2 discard, 3 over
    ``winners`` bool [B, n]    where a game ended in this step: the seats tied on top
    ``winner`` int64 [B]       the single winner's seat, -1 if none ended or several tied
    ``rounds`` int64 [B]       rounds scored so far in the game (before any reset)
    Per-round records, valid where ``round_over``:
    ``round_over`` bool [B], ``round_index`` int64 [B], ``round_hand_size`` int64 [B],
    ``round_bids`` / ``round_tricks`` / ``round_delta`` / ``round_score`` int64 [B, n]
    (bids, tricks taken, the round's points, totals after it).

Deals and loaded states
    ``reset(seed=None, dealer=None, scores=None, decks=None)``: ``decks`` int [B, K, deck_len]
    (deck rows: ``deck_parts`` permutations of the C card ids each, top first) gives each game
    its next K deals -- the AEC env's ``decks`` option. Deals beyond them are drawn from the
    engine's generator. ``load_games(games, indices=None, stop_at_round_end=False)`` sets
    games from reference ``Game`` objects in any phase (sampled worlds of a search bot); with
    ``stop_at_round_end`` they halt once their round is scored. ``export_game(b)`` returns
    game b as a reference ``Game``. ``observe(observer)`` encodes any seat's view of every
    game. ``load_arrays(state, stop_at_round_end=False)`` sets every game from arrays
    (``STATE_ARRAYS``; card sets as bool [..., C]).

Randomness
    Every game slot has its own small generator (splitmix64, in the compiled code), seeded
    from the engine's ``np.random.Generator`` (``seed``, or ``reset(seed=...)``) by
    ``reset`` and by the loads; it draws each new game's first dealer and every deal not
    given by ``decks`` (uniform permutations of the card ids). The same seed and actions
    give the same games.

Implementation notes
    This module holds the state and the public API; the rules, the observation encoder and
    the mask are compiled with numba (``cache=True``, ``nogil=True``):
    :mod:`~.vector_rules` (the state layout and one function per phase, written for one
    game like the reference engine), :mod:`~.vector_observe` (encoder and mask) and
    :mod:`~.vector_kernels` (the drivers that loop over the games; a game's next
    observation and mask are written right after its transition). They release the GIL,
    so rollout threads with an engine each run in parallel. The first use compiles them
    into numba's on-disk cache; later processes load them. The state is one record per game
    (``vector_rules.game_dtype``) in one byte buffer; the attributes (``phase``,
    ``scores``, ...; batch axis first) are views of its fields, the card sets bit masks of
    up to 64 ids (``hands_bits`` ...; ``hands``, ``played`` ... give them as bool [..., C]).
    Observations are written into buffers reused once the caller has dropped them
    (Rödskägg's engine does the same).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Sequence

import numpy as np

from ..common import MAX_NUM_ENVS, check_int, check_seed
from ..vector_base import BufferViews, ObsBuffers, random_legal_rows
from . import game as G
from . import vector_kernels as K
from .layout import Layout
from .vector_rules import BID, DISCARD, OVER, PLAY, game_dtype, new_report, rule_params, rule_tables, rules_dtype

__all__ = ["FamilyVectorEnv", "random_legal_actions", "BID", "PLAY", "DISCARD", "OVER", "PHASE_NAMES"]

PHASE_NAMES = G.PHASE_NAMES
REWARD_MODES = ("win", "score")
#: the card sets of the state, kept as bit masks: name -> (attribute, per seat)
CARD_SETS = {"hands": ("hands_bits", True), "played": ("played_bits", False), "played_by": ("played_by_bits", True),
             "game_cards": ("game_cards_bits", False), "seen_game": ("seen_game_bits", False),
             "took_back": ("took_back_bits", True), "discarded": ("discarded_bits", True)}
_CLEARED = ("leader", "led", "bids", "trick_card", "trumps", "trump_card")  # -1 when not given to load_arrays


def pack_cards(cards) -> np.ndarray:
    """bool [..., C] -> uint64 [...] (bit c set where card c is in the set)."""
    cards = np.asarray(cards) != 0
    bits = np.uint64(1) << np.arange(cards.shape[-1], dtype=np.uint64)
    return (cards * bits).sum(-1, dtype=np.uint64)


def unpack_cards(bits, num_cards: int) -> np.ndarray:
    """uint64 [...] -> bool [..., num_cards]."""
    return (np.asarray(bits, np.uint64)[..., None] & (np.uint64(1) << np.arange(num_cards, dtype=np.uint64))) != 0


def _bits(cards) -> int:
    return int(sum(1 << int(c) for c in cards))


def _card_set(bits, num_cards: int) -> set[int]:
    return {c for c in range(num_cards) if int(bits) >> c & 1}


class FamilyVectorEnv(BufferViews):
    """The batch engine of a game of the family; see the module docstring. A game's subclass
    sets ``rules_module`` (``make_rules``, ``check_num_players``, ``SCORE_LIMIT``,
    ``MAX_ROUNDS``), ``layout`` (its observation :class:`~.layout.Layout`), ``cards``
    (``NUM_ACTIONS``, ``action_name(action, phase)``) and ``default_rules``."""

    rules_module: ModuleType
    layout: Layout
    cards: ModuleType
    default_rules: str

    #: the game state a search may set with :meth:`load_arrays`
    STATE_ARRAYS = ("hands", "phase", "round", "first_dealer", "dealer", "to_act", "leader", "scores", "bids",
                    "tricks", "trick_card", "trick_len", "led", "played", "played_by", "voids", "game_cards",
                    "seen_game", "took_back", "discarded", "discards_left", "trumps", "trump_card", "drawn", "trick_no")

    def __init__(self, num_envs: int, num_players: int = 4, rules: Any = None, seed: Any = None,
                 reward: str = "win", auto_reset: bool = True, **overrides: Any):
        num_envs = check_int(num_envs, "num_envs", 1, MAX_NUM_ENVS)
        seed = check_seed(seed, sequence=True)
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        self.rules = self.rules_module.make_rules(self.default_rules if rules is None else rules, **overrides)
        self.num_players = n = self.rules_module.check_num_players(num_players, self.rules)
        self.num_envs = int(num_envs)
        self.reward_mode = reward
        self.auto_reset = bool(auto_reset)
        self.rng = np.random.default_rng(seed)
        fam, L = self.rules.family, self.layout
        self.num_cards, self.deck_len = fam.num_ids, fam.num_ids * fam.deck_parts
        self._dtype = game_dtype(L.positions, L.colours, self.deck_len, fam.num_ids)
        rules_type = rules_dtype(self.rules_module.MAX_ROUNDS, L.max_bid, L.max_hand, L.size)  # one type a game
        self._rules_table = (rule_tables(self.rules, L, n, rules_type),)  # (in a tuple: derived from the rules, not state)
        self._buffers = ObsBuffers(self.num_envs, L.size)
        self._alloc()

    # ================================================================== state
    def _alloc(self) -> None:
        """The state: one record per game (``vector_rules.game_dtype``) in one byte buffer,
        ``_raw``; the attributes below are views of its fields (seats cut to n)."""
        B, n = self.num_envs, self.num_players
        self._raw = np.zeros((B, self._dtype.itemsize), np.uint8)
        self._views = (self._raw.view(self._dtype)[:, 0],)  # the records (in a tuple: not state of its own)
        G = self._games()
        for name in ("phase", "round", "first_dealer", "dealer", "to_act", "leader", "trick_len", "led",
                     "discards_left", "deck_next", "halt", "trumps", "trump_card", "drawn", "trick_no"):
            setattr(self, name, G[name])
        self.stop_at_round_end = G["stop_round"]
        self.game_rng = G["rng"]  # each game's generator (its state), seeded from self.rng
        for name in ("scores", "bids", "tricks", "trick_card"):
            setattr(self, name, G[name][:, :n])
        self.voids = G["voids"].view(np.bool_)[:, :n]
        self.winners = G["winners"].view(np.bool_)[:, :n]
        for name, (attr, per_seat) in CARD_SETS.items():
            setattr(self, attr, G[name][:, :n] if per_seat else G[name])
        for name in _CLEARED:
            getattr(self, name)[:] = -1  # none yet
        self.decks = np.zeros((B, 0, self.deck_len), np.int64)  # given deck rows, top first: [B, K, deck_len]
        self.mask = np.zeros((B, self.cards.NUM_ACTIONS), np.int8)

    def _games(self) -> np.ndarray:
        """The game records, a view of ``_raw`` (pickles and checkpoints hold only plain arrays)."""
        return self._views[0]

    def _seed_games(self, idx: np.ndarray) -> None:
        """New generator states for games ``idx``, drawn from the engine's generator."""
        self.game_rng[idx] = self.rng.integers(0, 2**64, size=len(idx), dtype=np.uint64)

    def _params(self) -> tuple:
        return rule_params(self.rules, self.layout, self.num_players, self.reward_mode, self.auto_reset)

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_views"}

    # card sets as bool arrays (copies; the state holds the bit masks)
    hands = property(lambda self: unpack_cards(self.hands_bits, self.num_cards), doc="bool [B, n, C]: each seat's hand")
    played = property(lambda self: unpack_cards(self.played_bits, self.num_cards), doc="bool [B, C]: finished tricks' cards")
    played_by = property(lambda self: unpack_cards(self.played_by_bits, self.num_cards), doc="bool [B, n, C]: plays this round")
    game_cards = property(lambda self: unpack_cards(self.game_cards_bits, self.num_cards), doc="bool [B, C]: carry: the game's cards")
    seen_game = property(lambda self: unpack_cards(self.seen_game_bits, self.num_cards), doc="bool [B, C]: earlier rounds' cards")
    took_back = property(lambda self: unpack_cards(self.took_back_bits, self.num_cards), doc="bool [B, n, C]: taken back")
    discarded = property(lambda self: unpack_cards(self.discarded_bits, self.num_cards), doc="bool [B, n, C]: own discards")

    # ================================================================== public API
    def reset(self, seed: Any = None, dealer=None, scores=None, decks=None):
        """Start B new games; returns ``(obs, mask, seat)``. ``dealer`` int [B] (default:
        drawn), ``scores`` int [B, n] (default 0), ``decks`` int [B, K, deck_len] (deck rows:
        ``deck_parts`` permutations of the card ids each). Every argument is checked before
        anything changes."""
        B, n, C, limit = self.num_envs, self.num_players, self.num_cards, self.rules_module.SCORE_LIMIT
        seed = check_seed(seed, sequence=True)
        if dealer is not None:
            dealer = np.asarray(dealer)
            if dealer.shape != (B,) or dealer.dtype.kind not in "iu" or (dealer < 0).any() or (dealer >= n).any():
                raise ValueError(f"dealer must be {B} seats in 0..{n - 1}, got {dealer!r:.80}")
        if scores is not None:
            scores = np.asarray(scores)
            if scores.shape != (B, n) or scores.dtype.kind not in "iu" or (np.abs(scores) > limit).any():
                raise ValueError(f"scores must be ints [{B}, {n}] within +-{limit}, got shape {scores.shape}")
        if decks is not None:
            decks = np.asarray(decks)
            parts = decks.reshape(decks.shape[:2] + (-1, C)) if decks.ndim == 3 and decks.shape[2] == self.deck_len else None
            if (decks.ndim != 3 or decks.shape[0] != B or parts is None or decks.dtype.kind not in "iu"
                    or not (np.sort(parts, axis=3) == np.arange(C)).all()):
                raise ValueError(f"decks must be [{B}, K, {self.deck_len}], each row {self.deck_len // C} "
                                 f"permutation(s) of the {C} card ids")
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.decks = np.zeros((B, 0, self.deck_len), np.int64) if decks is None else np.array(decks, np.int64)
        self.deck_next[:] = 0
        self.stop_at_round_end[:] = False
        dealer = np.full(B, -1, np.int64) if dealer is None else dealer.astype(np.int64)
        use_scores = scores is not None
        scores = scores.astype(np.int64) if use_scores else np.zeros((B, n), np.int64)
        obs = self._buffers.get()
        self._seed_games(np.arange(B))
        K.reset_games(self._games(), self.decks, self._rules_table[0], self._params(), dealer, scores, use_scores, obs,
                      self.mask)
        return obs, self.mask.copy(), self._seats()

    def step(self, actions):
        """Apply one action per game (ignored for halted games); see the module docstring."""
        B, n = self.num_envs, self.num_players
        actions = np.asarray(actions)
        if actions.shape != (B,) or actions.dtype.kind not in "iu":
            raise ValueError(f"actions must be {B} ints, got {actions!r:.80}")
        a = np.ascontiguousarray(actions, np.int64)
        bad = K.first_illegal(self._games(), a, self.mask)
        if bad >= 0:
            self._illegal(bad, int(actions[bad]))
        R = new_report(B, n)
        obs = self._buffers.get()
        K.step_games(self._games(), self.decks, self._rules_table[0], self._params(), a, tuple(R), obs, self.mask)
        info = {"final_score": R.score, "winners": R.winners, "winner": R.winner, "rounds": R.rounds,
                "round_over": R.round_over, "round_index": R.round_index, "round_hand_size": R.round_hand_size,
                "round_bids": R.round_bids, "round_tricks": R.round_tricks, "round_delta": R.round_delta,
                "round_score": R.round_score, "score": R.score, "phase": R.phase}
        return obs, self.mask.copy(), R.seat, R.rewards, R.terminated, np.zeros(B, bool), info

    def _illegal(self, b: int, act: int) -> None:
        phase = PHASE_NAMES[self.phase[b]]
        name = self.cards.action_name(act, phase) if 0 <= act < self.cards.NUM_ACTIONS else "out of range"
        raise ValueError(f"illegal action {act} ({name}) in game {b}, phase {phase!r}, for seat {self.to_act[b]}")

    def _seats(self) -> np.ndarray:
        return np.where(self.halt | (self.phase == OVER), -1, self.to_act).astype(np.int64)

    @property
    def halted(self) -> np.ndarray:
        """bool [B]: games that wait for a reset (ended without auto-reset, or stopped at
        their round's end)."""
        return self.halt.copy()

    def observe(self, observer=None) -> np.ndarray:
        """float32 [B, OBS_SIZE]: seat ``observer``'s view (int or int [B]; default the acting seat)."""
        if observer is None:
            observer = self.to_act
        observer = np.broadcast_to(np.asarray(observer, dtype=np.int64), (self.num_envs,))
        out = np.empty((self.num_envs, self.layout.size), np.float32)
        K.observe_games(self._games(), self._rules_table[0], self._params(), np.ascontiguousarray(np.maximum(observer, 0)),
                        out, self.mask, False)
        return out

    def _observe(self):
        """After a load: every game's observation and mask, and the acting seats."""
        obs = self._buffers.get()
        K.observe_games(self._games(), self._rules_table[0], self._params(), np.maximum(self.to_act, 0).astype(np.int64),
                        obs, self.mask, True)
        return obs, self.mask.copy(), self._seats()

    # ================================================================== loaded states
    def load_games(self, games: Sequence[G.Game], indices=None, stop_at_round_end: bool = False):
        """Set games ``indices`` (default 0..len-1) from reference games in any phase; returns
        ``(obs, mask, seat)`` for the whole batch. Deals after the loaded ones come from
        this engine's generator (or the games' own ``deck_queue``, if any)."""
        idx = np.arange(len(games)) if indices is None else np.asarray(indices, dtype=np.int64)
        if len(idx) != len(games):
            raise ValueError(f"{len(games)} games for {len(idx)} indices")
        grow = max(len(g.deck_queue) for g in games) - self.decks.shape[1]
        if grow > 0:  # room at the front: every game's unused decks stay at the end of its row
            pad = np.tile(np.arange(self.deck_len) % self.num_cards, (self.num_envs, grow, 1))
            self.decks = np.ascontiguousarray(np.concatenate([pad, self.decks], axis=1))
            self.deck_next += grow
        for b, g in zip(idx, games):
            if g.num_players != self.num_players or g.rules != self.rules:
                raise ValueError("a loaded game must have this engine's rules and player count")
            self._load(int(b), g)
            self.stop_at_round_end[b] = stop_at_round_end
        self._seed_games(idx)
        return self._observe()

    def load_arrays(self, state: dict, stop_at_round_end: bool = False):
        """Set every game from arrays (names in ``STATE_ARRAYS``, each with the batch axis
        first, card sets bool [..., C]; missing ones are cleared, ``trumps`` defaults to the
        family's fixed trump colour), e.g. worlds a search bot sampled; returns ``(obs, mask,
        seat)``. Deals after these come from the generator. The caller keeps the state
        consistent (``load_games`` checks nothing either)."""
        unknown = set(state) - set(self.STATE_ARRAYS)
        if unknown:
            raise ValueError(f"unknown state arrays {sorted(unknown)}; allowed: {', '.join(self.STATE_ARRAYS)}")
        fam = self.rules.family
        for name in self.STATE_ARRAYS:
            if name in CARD_SETS:
                arr = getattr(self, CARD_SETS[name][0])
                arr[...] = pack_cards(np.broadcast_to(state[name], arr.shape + (self.num_cards,))) if name in state else 0
                continue
            arr = getattr(self, name)
            if name in state:
                arr[...] = state[name]
            elif name == "trumps" and fam.trumps == "fixed":
                arr[...] = fam.trump_colour
            else:
                arr[...] = -1 if name in _CLEARED else 0
        self.winners[:] = False
        self.halt[:] = self.phase == OVER
        self.stop_at_round_end[:] = stop_at_round_end
        self.decks = np.zeros((self.num_envs, 0, self.deck_len), np.int64)
        self.deck_next[:] = 0
        self._seed_games(np.arange(self.num_envs))
        return self._observe()

    def _load(self, b: int, g: G.Game) -> None:
        n = self.num_players
        self.phase[b] = PHASE_NAMES.index(g.phase)
        self.round[b], self.first_dealer[b], self.dealer[b] = g.round, g.first_dealer, g.dealer
        self.to_act[b], self.leader[b] = g.to_act, g.leader
        self.trumps[b], self.trump_card[b], self.drawn[b] = g.trumps, g.trump_card, g.drawn_size
        self.trick_no[b] = 0
        for card, t in g.trick_no.items():
            self.trick_no[b, card] = t
        self.scores[b] = g.scores
        self.bids[b] = [-1 if x is None else x for x in g.bids]
        self.tricks[b] = g.tricks
        self.trick_card[b] = -1
        for s, c in g.trick:
            self.trick_card[b, s] = c
        self.trick_len[b] = len(g.trick)
        self.led[b] = g.led_colour
        self.discards_left[b] = (len(g.queue) + 1) if g.phase == "discard" else 0
        self.winners[b] = [s in g.winners for s in range(n)]
        self.halt[b] = g.game_over
        for attr, sets in (("hands_bits", g.hands), ("played_by_bits", g.played_by), ("took_back_bits", g.took_back),
                           ("discarded_bits", g.discarded)):
            getattr(self, attr)[b] = [_bits(sets[s]) for s in range(n)]
        self.played_bits[b] = _bits(g.played)
        self.game_cards_bits[b] = _bits(g.game_cards)
        self.seen_game_bits[b] = _bits(g.seen_game)
        self.voids[b] = g.voids
        self.deck_next[b] = self.decks.shape[1] - len(g.deck_queue)
        if g.deck_queue:
            self.decks[b, self.deck_next[b]:] = g.deck_queue

    def export_game(self, b: int, rng: np.random.Generator | None = None) -> G.Game:
        """Game ``b`` as a reference ``Game`` (its later deals drawn from ``rng``)."""
        n, C = self.num_players, self.num_cards
        g = G.Game(self.rules, n, rng if rng is not None else np.random.default_rng(), [int(x) for x in self.scores[b]],
                   int(self.first_dealer[b]))
        g.deck_queue = [list(map(int, d)) for d in self.decks[b, self.deck_next[b]:]]
        g.round, g.dealer, g.phase = int(self.round[b]), int(self.dealer[b]), PHASE_NAMES[self.phase[b]]
        g.to_act, g.leader = int(self.to_act[b]), int(self.leader[b])
        g.trumps, g.trump_card, g.drawn_size = int(self.trumps[b]), int(self.trump_card[b]), int(self.drawn[b])
        g.hands = [_card_set(self.hands_bits[b, s], C) for s in range(n)]
        g.game_cards = _card_set(self.game_cards_bits[b], C)
        g.bids = [None if x < 0 else int(x) for x in self.bids[b]]
        g.tricks = [int(x) for x in self.tricks[b]]
        order = [(self.leader[b] + k) % n for k in range(int(self.trick_len[b]))]
        g.trick = [(int(s), int(self.trick_card[b, s])) for s in order]
        g.played = _card_set(self.played_bits[b], C)
        g.played_by = [_card_set(self.played_by_bits[b, s], C) for s in range(n)]
        g.trick_no = {c: int(self.trick_no[b, c]) for hand in g.played_by for c in sorted(hand)}
        g.voids = [[bool(v) for v in self.voids[b, s]] for s in range(n)]
        g.seen_game = _card_set(self.seen_game_bits[b], C)
        g.took_back = [_card_set(self.took_back_bits[b, s], C) for s in range(n)]
        g.discarded = [_card_set(self.discarded_bits[b, s], C) for s in range(n)]
        if g.phase == "discard":
            g.queue = [(g.to_act + k) % n for k in range(1, int(self.discards_left[b]))]
        g.winners = [int(s) for s in np.flatnonzero(self.winners[b])]
        return g


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` [B, A] (0 for a row without
    one: a halted game, whose action is ignored)."""
    return random_legal_rows(mask, rng)[0]
