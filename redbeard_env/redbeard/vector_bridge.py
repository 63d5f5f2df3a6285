"""The bridge between the batch engine and the reference engine: a
:class:`redbeard_env.redbeard.game.Game` written into a slot of a VectorEnv (``load_games``), and a
slot read back as a ``Game`` (``export_game``). Both are exact: the game then plays on
identically in either engine (``tests/test_vector_load.py``). ``load_deals`` writes many
deals of the hidden cards of a few games (search: the same as ``load_games`` of each
game with those cards added, ``tests/test_pimc.py``).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from . import game as G
from .cards import NUM_CARDS, NUM_RANKS
from .game import JOIN_STATES, NO_CALL, PHASE_NAMES
from .rules import SCORE_LIMIT
from .vector_tables import bits_to_bool, bool_to_bits, cards_to_bits


def load_games(env, games: Sequence[G.Game], idx: np.ndarray) -> None:
    """Check every game, then write ``games[i]`` into slot ``idx[i]`` of ``env``."""
    B = env.num_envs
    if len(games) != len(idx):
        raise ValueError(f"load_games: {len(games)} games for {len(idx)} slots")
    if len(idx) and ((idx < 0).any() or (idx >= B).any() or len(np.unique(idx)) != len(idx)):
        raise ValueError(f"load_games: indices must be distinct slots 0..{B - 1}")
    for b, g in zip(idx.tolist(), games):  # all checked before anything changes
        check_game(env, b, g)
    K = max([len(g.deck_queue) for g in games] + [env.dq.shape[1]])
    if K > env.dq.shape[1]:
        grow = K - env.dq.shape[1]
        env.dq = np.concatenate([env.dq, np.zeros((B, grow, 2, NUM_CARDS), np.int8)], 1)
    for b, g in zip(idx.tolist(), games):
        load_game(env, b, g)


def load_deals(env, games: Sequence[G.Game], game_of_slot: np.ndarray, owners: np.ndarray,
               stock_sizes: np.ndarray) -> None:
    """Slot ``i`` of ``env`` <- ``games[game_of_slot[i]]`` with the cards ``owners[i]`` deals
    added: ``owners`` int [B, 52], the seat that holds each card, -1 = in no hand (the first
    ``stock_sizes[game]`` of those in card order go to the end of the game's stock, the rest
    to its thrown-in pile), -2 = not dealt (known, as in the game). Every slot is written;
    all input is checked before anything changes (``ValueError``)."""
    B, n = env.num_envs, env.num_players
    game_of_slot = np.asarray(game_of_slot)
    owners = np.asarray(owners)
    stock_sizes = np.asarray(stock_sizes)
    num_games = len(games)
    if not 1 <= num_games <= B:
        raise ValueError(f"load_deals: between 1 and {B} games (the number of slots), got {num_games}")
    if game_of_slot.shape != (B,) or not np.issubdtype(game_of_slot.dtype, np.integer):
        raise ValueError(f"load_deals: game_of_slot must be an int array of shape ({B},), got {game_of_slot.dtype} {game_of_slot.shape}")
    if (game_of_slot < 0).any() or (game_of_slot >= num_games).any():
        raise ValueError(f"load_deals: game_of_slot values must be game indices 0..{num_games - 1}")
    if owners.shape != (B, NUM_CARDS) or not np.issubdtype(owners.dtype, np.integer):
        raise ValueError(f"load_deals: owners must be an int array of shape ({B}, {NUM_CARDS}), got {owners.dtype} {owners.shape}")
    if (owners < -2).any() or (owners >= n).any():
        raise ValueError(f"load_deals: owners values must be -2 (not dealt), -1 (no hand) or a seat 0..{n - 1}")
    if stock_sizes.shape != (num_games,) or not np.issubdtype(stock_sizes.dtype, np.integer) or (stock_sizes < 0).any():
        raise ValueError(f"load_deals: stock_sizes must be {num_games} ints >= 0 (one per game), got {stock_sizes!r:.80}")
    for i, g in enumerate(games):
        check_game(env, i, g, "load_deals", "game")
    # the cards each game already places: a dealt card must be none of them
    placed = np.array([cards_to_bits(np.array(sorted(set().union(*g.hands, g.played, g.thrown, g.stock,
                                                                {c for _, c in g.trick})), np.int64))
                       for g in games], np.uint64)
    clash = np.flatnonzero(bool_to_bits(owners >= -1) & placed[game_of_slot])
    if len(clash):
        i = int(clash[0])
        card = int(np.flatnonzero(bits_to_bool(placed[game_of_slot[i]]) & (owners[i] >= -1))[0])
        raise ValueError(f"load_deals: slot {i} deals card {card}, which its game {int(game_of_slot[i])} already places")
    rest = owners == -1
    k = stock_sizes[game_of_slot]
    short = np.flatnonzero(rest.sum(1) < k)
    if len(short):
        i = int(short[0])
        raise ValueError(f"load_deals: slot {i} has {int(rest[i].sum())} cards in no hand, its game's stock size asks for {int(k[i])}")
    load_games(env, games, np.arange(num_games))
    env._raw[:] = env._raw[:num_games][game_of_slot]  # the fancy index copies first
    env.dq = env.dq[game_of_slot]
    for s in range(n):
        env.hands[:, s] |= bool_to_bits(owners == s)
    pos = np.cumsum(rest, 1) - 1
    to_stock = rest & (pos < k[:, None])
    rows, cards = np.nonzero(to_stock)
    start = env.stock_pos.astype(np.int64) + env.stock_len.astype(np.int64)
    env.deck[rows, start[rows] + pos[rows, cards]] = cards
    env.stock_len[:] += k.astype(env.stock_len.dtype)
    env.thrown |= bool_to_bits(rest & ~to_stock)


def check_game(env, b: int, g: G.Game, caller: str = "load_games", what: str = "the game for slot") -> None:
    """``ValueError`` unless ``g`` can be loaded into slot ``b`` of ``env`` (messages name the
    ``caller`` and ``what`` ``b`` counts)."""
    if not isinstance(g, G.Game):
        raise ValueError(f"{caller}: expected redbeard_env.redbeard.game.Game objects, got {type(g).__name__}")
    if g.num_players != env.num_players or g.rules != env.rules:
        raise ValueError(f"{caller}: {what} {b} has other rules or player count than this env")
    if g.game_over or g.phase == "done":
        raise ValueError(f"{caller}: {what} {b} is over")
    if any(not -SCORE_LIMIT <= s <= SCORE_LIMIT for s in g.scores):
        raise ValueError(f"{caller}: {what} {b} has scores outside -{SCORE_LIMIT}..{SCORE_LIMIT}")


def load_game(env, b: int, g: G.Game) -> None:
    """Write ``g`` into slot ``b`` of ``env`` (checked by :func:`check_game`; the deck
    queue must be long enough, see :func:`load_games`)."""
    n = env.num_players
    env.phase[b] = PHASE_NAMES.index(g.phase)
    env.to_act[b] = g.to_act
    env.dealer[b] = g.dealer
    env.declarer[b] = g.declarer
    env.leader[b] = g.leader
    env.high_level[b] = g.high_level
    env.thrower[b] = g.thrower
    env.tricks_done[b] = g.tricks_done
    env.join_state[b] = JOIN_STATES.index(g.join_state)
    env.redeals_open[b] = g.redeals_open
    env.reshuffled[b] = g.reshuffled
    env.in_duel[b] = bool(g.duellists)
    env.tied_duels[b] = g.tied_duels
    env.rounds_played[b] = g.rounds_played
    env.deck[b] = 0
    env.deck[b, : len(g.stock)] = g.stock
    env.stock_pos[b] = 0
    env.stock_len[b] = len(g.stock)
    rank = np.arange(NUM_CARDS) if g.reshuffle_rank is None else np.asarray(g.reshuffle_rank)
    env.rank[b] = rank
    env.trick_cards[b] = cards_to_bits(np.array([c for _, c in g.trick], np.int64).reshape(-1))
    env.trick_len[b] = len(g.trick)
    env.trick_played[b] = False
    env.trick_card[b] = -1
    env.trick_first[b] = g.trick[0][0] if g.trick else -1
    if g.trick:
        led = g.trick[0][1] // NUM_RANKS
        best_card, best_seat = max((c, s) for s, c in g.trick if c // NUM_RANKS == led)
        env.trick_led[b], env.trick_best[b], env.trick_win[b] = led, best_card, best_seat
        for s, c in g.trick:
            env.trick_played[b, s] = True
            env.trick_card[b, s] = c
    else:
        env.trick_led[b] = env.trick_best[b] = env.trick_win[b] = -1
    env.played[b] = cards_to_bits(np.array(sorted(g.played), np.int64))
    env.thrown[b] = cards_to_bits(np.array(g.thrown, np.int64))
    env.thrown_hand[b] = cards_to_bits(np.array(g.thrown_hand, np.int64))
    env.winner[b] = -1
    env.terminated[b] = env.truncated[b] = False
    env.scores[b] = g.scores
    env.active[b] = g.active
    env.in_round[b] = g.in_round
    env.tricks[b] = g.tricks
    env.calls[b] = [NO_CALL if c is None else c for c in g.calls]
    env.joiner[b] = g.joiner
    env.bounced[b] = g.bounced
    env.throws[b] = np.minimum(g.throws, 127)
    env.void_bits[b] = sum(1 << (4 * s + u) for s in range(n) for u in range(4) if g.voids[s][u])
    for s in range(n):
        env.hands[b, s] = cards_to_bits(np.array(sorted(g.hands[s]), np.int64))
        env.seen[b, s] = cards_to_bits(np.array(sorted(g.seen_thrown[s]), np.int64))
    env.dq_pos[b] = 0
    env.dq_len[b] = len(g.deck_queue)
    for q, (deck, rk) in enumerate(g.deck_queue):
        env.dq[b, q, 0] = deck
        env.dq[b, q, 1] = np.arange(NUM_CARDS) if rk is None else rk


def export_game(env, b: int, rng: np.random.Generator | None = None) -> G.Game:
    """Game ``b`` of ``env`` as a reference Game (see ``VectorEnv.export_game``)."""
    n = env.num_players
    b = int(b)
    ph = PHASE_NAMES[env.phase[b]]
    bits = bits_to_bool
    g = G.Game(
        rules=env.rules,
        num_players=n,
        rng=np.random.default_rng() if rng is None else rng,
        scores=env.scores[b].tolist(),
        dealer=int(env.dealer[b]),
    )
    g.active = env.active[b].tolist()
    g.rounds_played = int(env.rounds_played[b])
    g.phase = ph
    g.to_act = int(env.to_act[b])
    g.hands = [set(np.flatnonzero(bits(env.hands[b, s])).tolist()) for s in range(n)]
    lo = int(env.stock_pos[b])
    g.stock = env.deck[b, lo : lo + int(env.stock_len[b])].tolist()
    rank = env.rank[b].astype(np.int64)
    g.thrown = sorted(np.flatnonzero(bits(env.thrown[b])).tolist(), key=lambda c: rank[c])
    g.reshuffle_rank = rank
    g.redeals_open = bool(env.redeals_open[b])
    g.reshuffled = bool(env.reshuffled[b])
    g.throws = env.throws[b].astype(int).tolist()
    g.seen_thrown = [set(np.flatnonzero(bits(env.seen[b, s])).tolist()) for s in range(n)]
    g.thrower = int(env.thrower[b])
    g.thrown_hand = np.flatnonzero(bits(env.thrown_hand[b])).tolist() if g.thrower >= 0 else []
    g.calls = [None if c == NO_CALL else int(c) for c in env.calls[b]]
    g.high_level = int(env.high_level[b])
    g.declarer = int(env.declarer[b])
    g.in_round = env.in_round[b].tolist()
    g.tricks = env.tricks[b].astype(int).tolist()
    g.tricks_done = int(env.tricks_done[b])
    g.leader = int(env.leader[b])
    g.played = set(np.flatnonzero(bits(env.played[b])).tolist())
    g.voids = [[bool(int(env.void_bits[b]) >> (4 * s + u) & 1) for u in range(4)] for s in range(n)]
    g.join_state = JOIN_STATES[env.join_state[b]]
    g.joiner = env.joiner[b].tolist()
    g.bounced = env.bounced[b].tolist()
    g.duellists = np.flatnonzero(env.in_round[b]).tolist() if env.in_duel[b] else []
    g.tied_duels = int(env.tied_duels[b])
    g.winner = int(env.winner[b]) if env.winner[b] >= 0 else None
    g.terminated = bool(env.terminated[b])
    g.truncated = bool(env.truncated[b])
    # the current (or just finished) trick in play order: its leader, then clockwise
    if env.trick_len[b]:
        first = int(env.trick_first[b])
        order = [first] + [s for s in ((first + k) % n for k in range(1, n)) if env.trick_played[b, s]]
        g.trick = [(s, int(env.trick_card[b, s])) for s in order]
    g.deck_queue = [
        (env.dq[b, q, 0].tolist(), env.dq[b, q, 1].astype(np.int64))
        for q in range(int(env.dq_pos[b]), int(env.dq_len[b]))
    ]
    # the queue of seats still to decide in this phase
    if ph == "redeal" or (ph == "bid" and env.rules.auction == "single"):
        order = g.seats_from(g.dealer)
        g.queue = order[order.index(g.to_act) :]
    elif ph == "bid":
        g.queue = g.seats_from(g.dealer)
    elif ph == "look":
        order = g.seats_from(g.thrower, [a and s != g.thrower for s, a in enumerate(g.active)])
        g.queue = order[order.index(g.to_act) :]
        redeal = g.seats_from(g.dealer)
        g.resume_queue = redeal[redeal.index(g.thrower) :]
    elif ph == "join":
        order = g.seats_from(g.declarer, [a and s != g.declarer for s, a in enumerate(g.in_round)])
        g.queue = order[order.index(g.to_act) :]
    return g

