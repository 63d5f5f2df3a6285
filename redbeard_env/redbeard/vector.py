"""The batched numpy engine (hot path): B games of Rödskägg in lock-step.

```python
from redbeard_env.redbeard.vector import VectorEnv
venv = VectorEnv(num_envs=4096, num_players=4, rules="classic", seed=0, **overrides)
obs, mask, seat = venv.reset()        # float32 [B, 542], int8 [B, 69], int64 [B]
obs, mask, seat, rewards, terminated, truncated, info = venv.step(actions)   # actions int [B]
```

It implements SPEC §3b: every ``Rules`` field and every phase -- redeal and look, single
and open auctions, both leaders, the ask/skip and join/fold questions, all three zero
rules, duels, eliminations, ``max_rounds`` truncation, all-pass redeals -- and agrees with
the reference engine (:mod:`redbeard_env.redbeard.game`, wrapped by the AEC env) step for step on
the same deals and actions (``tests/test_vector_parity.py``). One ``Rules`` and one player
count for the whole batch; the B games may be in different phases at once.
``num_envs`` is 1..``redbeard_env.common.MAX_NUM_ENVS``; ``seed`` None, an int >= 0 or a
list of them (numpy's ``default_rng``), else ``ValueError``.

Spaces
    ``obs`` float32 [B, 542]: the acting seat's observation, bit for bit what the AEC env
    gives (``redbeard_env.redbeard.observation.encode``; blocks in :mod:`redbeard_env.redbeard.observation`).
    ``mask`` int8 [B, 69]: its legal actions (action ids in :mod:`redbeard_env.redbeard.cards`).
    ``seat`` int64 [B]: the acting seat (absolute), -1 for a halted game (below).
    ``actions`` int [B]: one legal action id per game. An illegal one (mask 0) for any game
    raises ``ValueError`` naming the game index, the action and the phase; nothing changes.
    Every step returns arrays the caller owns: ``obs`` is never one the caller still holds
    (an observation buffer is reused only once nothing else references it), ``mask`` is a
    copy.

Who is asked
    As in the AEC env: every call and card play is asked, even with one legal option; the
    redeal, look and join questions only of players with a real choice, ask/skip only when
    ``ask_optional``. Decisions without a real choice are resolved inside ``step``, as
    game.py does, so every returned game waits for a real decision.

Rewards
    float32 [B, num_players], per seat, for this step (SPEC §3, ``reward="win"``): when a game
    is won, the winner +1 and every seat still in the game -1/(n-1); a seat eliminated in
    this step gets its -1/(n-1) now (and nothing later); truncation gives 0. Over a game the
    seats' rewards sum to the AEC env's.

Auto-reset
    A game that ends (``terminated``: won; ``truncated``: ``max_rounds``) is replaced at once
    by a new one (random first dealer, ``start_score`` for all): the returned obs/mask/seat
    are the new game's first decision, while ``rewards``, ``terminated``/``truncated`` and
    ``info`` describe the finished game. With ``VectorEnv(..., auto_reset=False)`` a finished
    game halts instead (phase 7 ``done``, mask all 0, seat -1, actions ignored) until the
    next ``reset``.

Info (numpy arrays, one entry per game)
    ``score`` int32 [B, n]   running scores after this step; for a game that ended in this
                             step its final scores (the new game's are ``start_score``)
    ``final_score``          the same array (name used by tournaments)
    ``phase`` int8 [B]       phase code of the returned decision (new game's if reset):
                             0 redeal, 1 look, 2 bid, 3 ask, 4 join, 5 play, 6 duel, 7 done
                             (``PHASE_NAMES[code]``; 7 only for halted games)
    ``winner`` int8 [B]      the winner's seat for games won in this step, else -1
                             (also -1 for truncated games)
    ``rounds`` int32 [B]     rounds scored so far in the game (before any reset)
    ``eliminated`` bool [B, n]  seats eliminated in this step
    Per-round records, for research metrics; valid where ``round_over``:
    ``round_over`` bool [B]  a round was scored in this step (including an all-passed
                             deal under ``all_pass="redeal"`` and a Rödskägg that won the
                             game; not a duel, not a round cut short by ``immediate``)
    ``round_declarer`` int8 [B]  the declarer, -1 if all passed
    ``round_bid`` int8 [B]   the declarer's bid level 0..6, 7 = Rödskägg (-1 all passed)
    ``round_made`` bool [B]  the declarer made the contract (Rödskägg: all six tricks)
    ``round_tricks`` int8 [B, n]  tricks taken in the round
    ``round_joiner`` bool [B, n]  joined without a trick (the joiner bonus/risk)
    ``round_folded`` bool [B, n]  folded at the join question
    ``round_score`` int32 [B, n]  scores after that scoring (= ``score``)

Shared deals and loaded states
    ``reset(seed=None, dealer=None, scores=None, decks=None)``: ``decks`` int [B, K, 52] or
    [B, K, 104] (deck top first, optionally followed by the reshuffle order of thrown-in
    cards) gives each game its next K deals -- the same format as the AEC env's ``decks``
    option, so both engines can play identical deals. ``load_games(games, indices=None,
    stop_at_round_end=False)`` sets games from reference :class:`~redbeard_env.redbeard.game.Game`
    objects in any phase (e.g. sampled deals for a search bot); with ``stop_at_round_end``
    they halt (phase 7, mask all 0, seat -1, actions ignored, no reset) once their round is
    scored or the game ends -- ``halted`` tells which. ``load_deals(games, game_of_slot,
    owners, stock_sizes)`` writes many deals of the hidden cards of a few such games at once
    (a search's sampled worlds). ``export_game(b)`` returns game b as a
    reference ``Game``. ``observe(observer)`` encodes any seat's view of every game.

Training loop (one policy for all seats; the observation is relative to the acting seat)::

    venv = VectorEnv(num_envs=4096, num_players=4, rules="classic", seed=0)
    obs, mask, seat = venv.reset()
    for t in range(T):
        actions = policy(obs, mask)                  # sample where mask == 1
        nobs, nmask, nseat, rewards, term, trunc, info = venv.step(actions)
        # the decision (obs, actions) belongs to seat[b]; rewards[b, s] may go to any seat
        # of game b (a win pays every seat at once, the loser did not act this step), so
        # credit each seat's reward to that seat's latest decision in game b, and end all
        # of game b's open trajectories where term | trunc
        buffer.add(obs, mask, actions, seat, rewards, term | trunc)
        obs, mask, seat = nobs, nmask, nseat

``random_legal_actions(mask, rng)`` is a vectorised uniform random policy.

Implementation notes
    This module holds the state and the public API. The rules, the observation encoder and
    the mask are compiled with numba in the ``vector_*`` kernel modules (one function per
    phase, written for one game like the reference engine, one module a phase; the drivers
    of :mod:`~redbeard_env.redbeard.vector_kernels` loop over the games, and a game's next
    observation and mask are written right after its transition, while its state is in
    cache); :mod:`~redbeard_env.redbeard.vector_bridge` converts to and from ``game.Game``
    and :mod:`~redbeard_env.redbeard.vector_tables` holds the codes and bit helpers. The
    first use compiles the kernels (about 20 s) into numba's on-disk cache; later
    processes load them (about a second). State lives in compact arrays: int8 codes,
    bool flags, int32 scores, uint64 bitmasks for the card sets (hands, seen, played,
    trick, thrown), one int8 [B, 9, 8] array for the per-seat values (rows ``C_*``, seats
    padded to 8), packed voids (bit 4 * seat + suit).
"""

from __future__ import annotations

from typing import Any, Sequence


import numpy as np

from ..common import MAX_NUM_ENVS, check_int, check_seed
from ..vector_base import BufferViews, ObsBuffers, random_legal_rows
from . import game as G
from . import vector_bridge
from . import vector_kernels as K
from .cards import NUM_ACTIONS, NUM_CARDS, action_name
from .game import NO_CALL, PHASE_NAMES
from .observation import OBS_SIZE, static_prefix
from .rules import SCORE_LIMIT, Rules, check_num_players, make_rules
from .vector_tables import AR52, C_ACTIVE, C_BOUNCED, C_CALL, C_IN_ROUND, C_JOINER, C_THROWS, C_TRICK_CARD
from .vector_tables import C_TRICK_PLAYED, C_TRICKS, DONE_PH, TRICK_EMPTY


class VectorEnv(BufferViews):
    """B games in lock-step; see the module documentation."""

    def __init__(
        self,
        num_envs: int,
        num_players: int = 4,
        rules: "str | Rules" = "classic",
        seed: int | None = None,
        auto_reset: bool = True,
        **overrides: Any,
    ):
        B = check_int(num_envs, "num_envs", 1, MAX_NUM_ENVS)
        seed = check_seed(seed, sequence=True)
        self.rules = make_rules(rules, **overrides)
        self.num_players = n = check_num_players(num_players, self.rules)
        self.num_envs = B
        self.rng = np.random.default_rng(seed)
        self.auto_reset = bool(auto_reset)
        self._params = K.rule_params(self.rules, n, self.auto_reset)
        self._layout = K.obs_layout()
        self._prefix = static_prefix(self.rules, n)  # zeros but the num_players and rules blocks
        self._buffers = ObsBuffers(B, OBS_SIZE)
        self._started = False  # set by reset() and load_games(); step() needs it
        self._alloc()

    # ------------------------------------------------------------------ state
    def _alloc(self) -> None:
        """The state: one record per game (``vector_state.GAME``) in one byte buffer,
        ``_raw``; the attributes below are views of its fields (seats cut to n)."""
        B, n = self.num_envs, self.num_players
        self._raw = np.zeros((B, K.GAME.itemsize), np.uint8)
        G = self._games()
        for name in ("phase", "to_act", "dealer", "declarer", "leader", "high_level", "thrower", "tricks_done",
                     "join_state", "redeals_open", "reshuffled", "in_duel", "tied_duels", "rounds_played",
                     "stock_pos", "stock_len", "winner", "terminated", "truncated", "void_bits", "played",
                     "trick_cards", "thrown", "thrown_hand", "deck", "rank", "dq_pos", "dq_len", "r_over",
                     "r_declarer", "r_bid", "r_made"):
            setattr(self, name, G[name])
        for name in ("hands", "seen", "scores", "rewards", "r_tricks"):
            setattr(self, name, G[name][:, :n])
        for name in ("eliminated", "r_joiner", "r_folded"):
            setattr(self, name, G[name].view(np.bool_)[:, :n])
        self._stop_round = G["stop_round"]
        # voids (seat x suit shown void) are packed per game in void_bits: bit 4 * seat + suit.
        # The current trick: its length, led suit, best card, that card's seat, who led.
        self._trick = G["trick"]
        self.trick_len = self._trick[:, 0]
        self.trick_led = self._trick[:, 1]
        self.trick_best = self._trick[:, 2]
        self.trick_win = self._trick[:, 3]
        self.trick_first = self._trick[:, 4]
        # the per-seat values, one row each (C_* of vector_state); flags as bool views
        self._per_seat = G["per_seat"]
        sb = self._per_seat.view(np.bool_)
        self.active = sb[:, C_ACTIVE, :n]
        self.in_round = sb[:, C_IN_ROUND, :n]
        self.trick_played = sb[:, C_TRICK_PLAYED, :n]
        self.joiner = sb[:, C_JOINER, :n]
        self.bounced = sb[:, C_BOUNCED, :n]
        self.tricks = self._per_seat[:, C_TRICKS, :n]
        self.throws = self._per_seat[:, C_THROWS, :n]
        self.calls = self._per_seat[:, C_CALL, :n]
        self.trick_card = self._per_seat[:, C_TRICK_CARD, :n]  # card played to the current trick
        self.phase[:] = DONE_PH
        self.to_act[:] = -1
        for name in ("declarer", "leader", "high_level", "thrower", "winner", "r_declarer", "r_bid"):
            getattr(self, name)[:] = -1
        self._trick[:] = TRICK_EMPTY
        self.calls[:] = NO_CALL
        self.trick_card[:] = -1
        # queued decks (reset(decks=...) / load_games): dq[b, q] = (deck, reshuffle rank)
        # for q < dq_len[b]
        self.dq = np.zeros((B, 0, 2, NUM_CARDS), np.int8)
        self._mask = np.zeros((B, NUM_ACTIONS), np.int8)

    def _games(self) -> np.ndarray:
        """The game records (a view of ``_raw``; made per call, so that pickles and
        checkpoints hold only plain arrays)."""
        return self._raw.view(K.GAME)[:, 0]

    def kernel_state(self) -> tuple:
        """``(raw, deck_queue, params, layout, prefix, rng)``: the state as the drivers of
        :mod:`redbeard_env.redbeard.vector_kernels` take it (``raw``: the game records' bytes, uint8
        [B, GAME.itemsize]), for compiled loops outside this module that run games through
        its ``advance_game`` (pimc's playouts). These are the engine's own arrays."""
        return self._raw, self.dq, self._params, self._layout, self._prefix, self.rng

    # ------------------------------------------------------------------ observations
    def observe(self, observer=None) -> np.ndarray:
        """Observations float32 [B, D] of seat ``observer`` (int or int [B]; default: the
        acting seat) in every game, as the AEC env would encode them."""
        if observer is None:
            obsr = self.to_act.astype(np.int64)
        else:
            obsr = np.broadcast_to(np.asarray(observer, dtype=np.int64), (self.num_envs,))
        obsr = np.where(obsr < 0, 0, obsr)
        out = np.empty((self.num_envs, OBS_SIZE), np.float32)
        K.observe_games(self._games(), self._params, self._layout, self._prefix, obsr, out, self._mask, False)
        return out

    # ------------------------------------------------------------------ public API
    def reset(
        self,
        seed: int | None = None,
        *,
        dealer=None,
        scores=None,
        decks=None,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Start a new game in every slot; returns ``(obs, mask, seat)``.

        ``seed`` reseeds the batch generator. ``dealer`` (int or int [B]) and ``scores``
        (int [n] or [B, n], each within ±``rules.SCORE_LIMIT``) fix the first dealer and the
        starting scores. ``decks`` fixes the deals of these games (rounds and duels, in
        order): an int array [B, K, 52] (each row a deck, top card first) or [B, K, 104]
        (the deck followed by the order in which thrown-in cards are reshuffled, as the AEC
        env's ``decks`` option); a row starting with -1 ends that game's list. Deals beyond
        the list are drawn from the generator; the list is dropped when the game ends.
        A bad argument raises ``ValueError`` before anything changes (no reseed either).
        """
        B, n = self.num_envs, self.num_players
        seed = check_seed(seed, sequence=True)
        if dealer is not None:
            dealer = np.broadcast_to(np.asarray(dealer), (B,))
            if not np.issubdtype(dealer.dtype, np.integer) or ((dealer < 0) | (dealer >= n)).any():
                raise ValueError(f"reset: dealer must be seats 0..{n - 1}, got {dealer!r:.80}")
        if scores is not None:
            scores = np.asarray(scores)
            if (
                not np.issubdtype(scores.dtype, np.integer)
                or scores.shape not in ((n,), (B, n))
                or ((scores < -SCORE_LIMIT) | (scores > SCORE_LIMIT)).any()
            ):
                raise ValueError(
                    f"reset: scores must be ints in -{SCORE_LIMIT}..{SCORE_LIMIT} of shape ({n},) or ({B}, {n}), "
                    f"got {scores!r:.80}"
                )
        queue = self._parse_decks(decks)
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.dq, self.dq_len[:] = queue
        self.dq_pos[:] = 0
        self._started = True
        dealer = np.full(B, -1, np.int64) if dealer is None else dealer.astype(np.int64)
        use_scores = scores is not None
        scores = np.broadcast_to(scores, (B, n)).astype(np.int64) if use_scores else np.zeros((B, n), np.int64)
        obs = self._buffers.get()
        K.reset_games(self._games(), self.dq, self._params, self._layout, self._prefix, self.rng, dealer, scores,
                      use_scores, obs, self._mask)
        return obs, self._mask.copy(), self.to_act.astype(np.int64)

    def _parse_decks(self, decks) -> tuple[np.ndarray, np.ndarray]:
        """The ``decks`` argument of ``reset``, checked, as the deck queue: int8 [B, K, 2,
        52] (each deck and its reshuffle ranks) and each game's list length."""
        B = self.num_envs
        if decks is None:
            return np.zeros((B, 0, 2, NUM_CARDS), np.int8), np.zeros(B, np.int32)
        d = np.asarray(decks)
        if d.ndim != 3 or d.shape[0] != B or d.shape[2] not in (NUM_CARDS, 2 * NUM_CARDS) or not np.issubdtype(
            d.dtype, np.integer
        ):
            raise ValueError(
                f"reset: decks must be an int array [{B}, K, 52] or [{B}, K, 104], got shape {d.shape}"
            )
        present = d[:, :, 0] >= 0
        # the list of each game ends at its first row starting with -1
        length = np.where(present.all(1), d.shape[1], (~present).argmax(1))
        used = np.arange(d.shape[1])[None, :] < length[:, None]
        rows = d[used]
        ok = (np.sort(rows[:, :NUM_CARDS], 1) == AR52).all(1)
        if d.shape[2] == 2 * NUM_CARDS:
            ok &= (np.sort(rows[:, NUM_CARDS:], 1) == AR52).all(1)
        if not ok.all():
            b, q = np.argwhere(used)[np.flatnonzero(~ok)[0]]
            raise ValueError(f"reset: decks[{b}, {q}] is not a permutation of the 52 card ids (twice for 104)")
        deck = np.where(used[:, :, None], d[:, :, :NUM_CARDS], 0).astype(np.int8)
        if d.shape[2] == 2 * NUM_CARDS:
            order = np.where(used[:, :, None], d[:, :, NUM_CARDS:], AR52).astype(np.intp)
            rank = np.empty_like(order)
            np.put_along_axis(rank, order, np.broadcast_to(AR52, order.shape), 2)
        else:  # like a scripted deck in game.py: thrown-in cards come back in card-id order
            rank = np.broadcast_to(AR52, deck.shape)
        return np.ascontiguousarray(np.stack([deck, np.broadcast_to(rank, deck.shape).astype(np.int8)], 2)), length

    def step(self, actions):
        """Advance every game by one decision of its acting seat. Returns
        ``obs, mask, seat, rewards, terminated, truncated, info`` (see the module doc).
        An illegal action raises ``ValueError`` (naming the game, action and phase) before
        anything changes."""
        if not self._started:
            raise ValueError("step() before reset(): call reset() (or load_games()) first")
        B, n = self.num_envs, self.num_players
        a = np.asarray(actions)
        if a.shape != (B,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be an int array of shape ({B},), got {a.dtype} {a.shape}")
        a = a.astype(np.int64, copy=False)
        G = self._games()
        bad = K.first_illegal(G, a, self._mask)
        if bad >= 0:
            self._illegal(bad, int(a[bad]))
        report = K.new_report(B, n)
        obs = self._buffers.get()
        K.step_games(G, self.dq, self._params, self._layout, self._prefix, self.rng, a, report, obs, self._mask)
        info = {
            "score": report.score,
            "winner": report.winner,
            "rounds": report.rounds,
            "round_over": report.round_over,
            "round_declarer": report.round_declarer,
            "round_bid": report.round_bid,
            "round_made": report.round_made,
            "round_tricks": report.round_tricks,
            "round_joiner": report.round_joiner,
            "round_folded": report.round_folded,
            "eliminated": report.eliminated,
            "phase": report.phase,
        }
        info["final_score"] = info["score"]
        info["round_score"] = info["score"]
        return obs, self._mask.copy(), report.seat, report.rewards, report.terminated, report.truncated, info

    def _illegal(self, b: int, action: int) -> None:
        ph = PHASE_NAMES[self.phase[b]]
        name = action_name(action) if 0 <= action < NUM_ACTIONS else repr(action)
        allowed = ", ".join(action_name(int(x)) for x in np.flatnonzero(self._mask[b]))
        raise ValueError(
            f"game {b}: illegal action {name} (id {action}) in phase {ph!r} for seat "
            f"{int(self.to_act[b])}; legal: {allowed}"
        )

    @property
    def halted(self) -> np.ndarray:
        """bool [B]: games that stopped (a round's end under ``stop_at_round_end``, or a
        finished game without auto-reset); their actions are ignored."""
        return self.phase == DONE_PH

    # ------------------------------------------------------------------ reference games in and out
    def load_games(self, games: Sequence[G.Game], indices=None, stop_at_round_end: bool = False):
        """Set the state of games ``indices`` (default: all B, in order) from reference
        :class:`redbeard_env.redbeard.game.Game` objects (mid-round states included: any phase but
        ``done``). Their queued decks (``Game.deck_queue``) are used for their next deals;
        later deals come from this env's generator. With ``stop_at_round_end`` those games
        halt after their current round is scored (or the game ends): phase ``done``, mask
        all 0, actions ignored, no auto-reset -- for playing sampled deals to the end of a
        round. Returns ``(obs, mask, seat)`` of the whole batch."""
        idx = np.arange(self.num_envs) if indices is None else np.asarray(indices, dtype=np.intp).reshape(-1)
        vector_bridge.load_games(self, list(games), idx)
        return self._loaded(idx, stop_at_round_end)

    def load_deals(self, games: Sequence[G.Game], game_of_slot, owners, stock_sizes, stop_at_round_end: bool = False):
        """Many deals of the hidden cards of a few games (for search): every slot ``i`` gets
        ``games[game_of_slot[i]]`` with the cards ``owners[i]`` deals added -- ``owners`` int
        [B, 52]: the seat holding each card, -1 = in no hand (the first ``stock_sizes[g]`` of
        those, in card order, join the stock of game ``g``, the rest its thrown-in pile), -2 =
        not dealt (known, as in the game). The same state as :meth:`load_games` of the
        completed games, without building a game per slot (the games pass through slots
        ``0..len(games)-1`` first). Bad input -- shapes, values, a card its game already
        places, fewer cards in no hand than the stock takes -- raises ``ValueError`` before
        anything changes. Returns ``(obs, mask, seat)``."""
        vector_bridge.load_deals(self, list(games), game_of_slot, owners, stock_sizes)
        return self._loaded(np.arange(self.num_envs), stop_at_round_end)

    def _loaded(self, idx: np.ndarray, stop_at_round_end: bool):
        """After games were written into slots ``idx``: flags, per-step outputs, observations."""
        self._started = True
        self._stop_round[idx] = bool(stop_at_round_end)
        self.rewards[:] = 0
        self.eliminated[:] = False
        self.r_over[:] = False
        self.r_declarer[:] = -1
        self.r_bid[:] = -1
        self.r_made[:] = False
        seat = self.to_act.astype(np.int64)
        obs = self._buffers.get()
        K.observe_games(self._games(), self._params, self._layout, self._prefix, np.maximum(seat, 0), obs,
                        self._mask, True)
        return obs, self._mask.copy(), seat

    def export_game(self, b: int, rng: np.random.Generator | None = None) -> G.Game:
        """Game ``b`` as a reference :class:`redbeard_env.redbeard.game.Game` (which then plays on
        exactly as this engine would with the same actions and deals; its remaining queued
        decks go to ``deck_queue``, later deals draw from ``rng``, default a fresh
        generator). Nothing is drawn from this engine's generator."""
        return vector_bridge.export_game(self, b, rng)


# ---------------------------------------------------------------- helpers
def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (int8/bool [B, A]); every row
    must have a legal action (else ``ValueError``)."""
    out, empty = random_legal_rows(mask, rng)
    if empty >= 0:
        raise ValueError(f"random_legal_actions: row {empty} has no legal action")
    return out
