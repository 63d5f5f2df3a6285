"""``pimc``: determinised search (perfect-information Monte Carlo) over a rollout bot.

At each decision with more than one legal action in the auction, the ask and join
questions and card play (the redeal and look questions and duels are left to the
rollout bot):

1. **Sample** ``samples`` deals of the hidden cards consistent with everything the player
   has seen: its hand, the cards played (finished tricks and the current one), thrown-in
   cards it has seen, each player's hand size, and the voids revealed by not following
   suit. Cards are dealt uniformly subject to those constraints (players with voids first).
   Each sample becomes a complete game state (:func:`world_game`, seat 0 = the searching
   player, seats = its relative positions).
2. **Play out** every (sample, candidate action) pair to the end of the round on the batch
   engine (:class:`redbeard_env.redbeard.vector.VectorEnv`, loaded with ``stop_at_round_end``): the
   candidate action first, then the rollout bot (``heuristic``) in every seat through its
   ordinary ``act_batch``; a seat with a single legal action plays it without asking.
   The samples of all rows of a call are loaded once; each candidate index plays on its
   own copy of that engine, and every step asks the rollout bot once for all of them.
3. **Choose** the action with the best mean outcome over the samples (common random
   numbers: every action sees the same samples). A playout is worth the utility of the
   player's score at the round's end (:func:`agents.redbeard.heuristic.score_utility`: minus the
   distance to 0, ``win_value`` for exactly 0, ``-elim_value`` for an elimination); when
   the game is close to its end (an active score at most ``close_at``, or
   ``horizon=game``) it is worth the game result decided at the round's end: +win, -win
   when someone else finishes, a share of the win when several do.

A view whose hidden cards cannot fill the hands it says they hold (contradictory
information) raises ``ValueError`` when its worlds are loaded rather than searching
impossible deals.

Cost per decision is about ``samples x min(legal actions, max_actions) x`` (remaining
decisions of the round) rollout-bot decisions; ``samples`` is the knob
(``pimc:samples=128``). The bot counts the decisions it searched in ``decisions``.
"""

from __future__ import annotations

import copy
import warnings
from collections import OrderedDict

import numpy as np

from redbeard_env.redbeard.cards import NUM_CARDS, PASS, suit_of
from redbeard_env.redbeard.game import JOIN_STATES, NO_CALL, PHASE_NAMES, Game
from redbeard_env.redbeard.rules import HAND_SIZE, Rules, make_rules
from redbeard_env.redbeard.vector import VectorEnv
from redbeard_env.redbeard.vector_kernels import GAME

from . import playout_kernels as PK
from ..base import Agent, check_batch
from ..params import SEED, Bot, Choice, Int, RulesParam, set_numbers
from .decode import PHASE, ObsBatch, decode_batch, led_suit, rules_from_obs, rules_groups, suit_counts
from .heuristic import ELIM_VALUE, NEG_EXTRA, WIN_VALUE, HeuristicAgent, score_utility
from ..registry import make_agent
from ..search import weighted_keys

CARD_SUITS = suit_of(np.arange(NUM_CARDS))  # the suit of every card id
SEARCH_PHASES = ("bid", "ask", "join", "play")  # redeal, look and duels: the rollout bot decides
MAX_PLAYOUT_STEPS = 400  # decisions to a round's end: far more than any round takes
COPY_FROM = 128  # sampled worlds per search from which the engine is copied per candidate (see _play_out)
PLAYOUT_CALLS = 5  # decisions of its rollout bot a playout costs, measured (agents.params)


# ====================================================================== sampling
def hand_sizes(view: ObsBatch, rules: Rules) -> np.ndarray:
    """int [B, 7]: cards each other position holds (0 for the observer and non-players)."""
    phase = view.phase
    in_play = np.isin(phase, [PHASE[p] for p in ("ask", "join", "play", "duel")])
    trick_live = np.isin(phase, [PHASE["play"], PHASE["duel"]])
    left = (HAND_SIZE - view.tricks_done)[:, None]
    played_now = view.trick_played & trick_live[:, None]
    playing = np.where(view.in_round, left - played_now, 0)
    folded = view.active & ~view.in_round & (phase != PHASE["duel"])[:, None]
    sizes_play = np.where(folded, np.minimum(left, max(rules.join_at, 0)), playing)
    sizes_deal = np.where(view.active, HAND_SIZE, 0)
    sizes = np.where(in_play[:, None], sizes_play, sizes_deal)
    sizes = np.where(np.arange(7)[None, :] < view.num_players[:, None], np.maximum(sizes, 0), 0)
    sizes[:, 0] = 0
    return sizes


def sample_owners(unseen: np.ndarray, sizes: np.ndarray, voids: np.ndarray, rng: np.random.Generator,
                  weights: np.ndarray | None = None) -> np.ndarray:
    """Deal hidden cards: ``unseen`` bool [N, 52], ``sizes`` int [N, 7], ``voids`` bool
    [N, 7, 4] -> owner int [N, 52] (position, -1 = not in a hand, -2 = not hidden).
    Players with more voids are dealt first; a player who cannot be served within its
    voids (contradictory information) gets any remaining cards. Cards are dealt uniformly,
    or with ``weights`` float [N, 7, 52] (> 0) each position's cards one after another in
    proportion to its weights (:func:`agents.search.weighted_keys`)."""
    N = len(unseen)
    keys = rng.random((N, NUM_CARDS)) if weights is None else None
    owner = np.where(unseen, -1, -2)
    available = unseen.copy()
    order = np.argsort(-voids.sum(2) * 8 - sizes, axis=1, kind="stable")  # most constrained first
    rows = np.arange(N)
    for r in range(7):
        p = order[:, r]
        k = sizes[rows, p]
        if not k.any():
            continue
        allowed = available & ~voids[rows, p][:, CARD_SUITS]
        short = allowed.sum(1) < k
        allowed[short] = available[short]
        own = keys if weights is None else weighted_keys(rng, weights[rows, p], (N, NUM_CARDS))
        masked = np.where(allowed, own, np.inf)
        pick = np.argsort(masked, axis=1)[:, :HAND_SIZE]
        take = np.arange(HAND_SIZE)[None, :] < k[:, None]
        rr = np.broadcast_to(rows[:, None], pick.shape)[take]
        cc = pick[take]
        owner[rr, cc] = np.repeat(p, take.sum(1))
        available[rr, cc] = False
    return owner


# ====================================================================== sampled worlds as games
_NO_RNG = np.random.default_rng(0)  # a loaded game's own generator is never drawn from


def trick_led_suit(view: ObsBatch, legal: np.ndarray) -> np.ndarray:
    """int [B]: a suit led to the trick on the table (-1: none) that agrees with everything
    the observation says about it. :func:`~agents.redbeard.decode.led_suit` infers it; where that
    suit cannot be the led one -- the observer's legal cards say it follows another suit
    or cannot follow, or the trick's winner is not its leader and the suit has a single
    card on the table -- the suit with most cards on the table that fits is taken."""
    led = led_suit(view, legal)
    on_table = suit_counts(view.trick)[:, :4]
    held = suit_counts(view.hand)
    allowed = suit_counts(legal[:, :NUM_CARDS])
    playing = (view.phase == PHASE["play"])[:, None]
    # the observer's legal cards if suit s was led: its cards of s, or all of them
    mask_fits = np.where(held[:, :4] > 0, (allowed[:, :4] == held[:, :4]) & (allowed[:, 4:] == held[:, :4]),
                         allowed[:, 4:] == held[:, 4:])
    led_wins = (view.leader == view.trick_winning)[:, None]
    fits = (on_table > 0) & (led_wins | (on_table > 1)) & (mask_fits | ~playing)
    rows = np.arange(len(led))
    bad = (led >= 0) & ~fits[rows, np.maximum(led, 0)] & fits.any(1)
    led[bad] = np.where(fits, on_table, -1)[bad].argmax(1)
    return led


def current_trick(view: ObsBatch, i: int, led: int) -> list[tuple[int, int]]:
    """The trick on the table in row ``i`` as ``(position, card)`` in play order, the form
    a :class:`~redbeard_env.redbeard.game.Game` keeps it in. The observation shows the trick's cards
    as a set with who played, who leads and who holds the winning card, not which card
    each played; this gives the winner the best card of the led suit ``led``, the first
    player another card of that suit (it led it) and the others the rest, which is all
    the engine reads (led suit, best card, its holder)."""
    cards = np.flatnonzero(view.trick[i]).tolist()
    if not cards:
        return []
    n = int(view.num_players[i])
    played = view.trick_played[i]
    start = int(view.leader[i]) if view.leader[i] >= 0 else 0
    order = [p for p in ((start + k) % n for k in range(n)) if played[p]]
    of_led = [c for c in cards if suit_of(c) == led]
    winner = int(view.trick_winning[i])
    if not of_led or winner not in order:  # nothing to go on (contradictory view): keep the set
        return list(zip(order, cards))
    best = max(of_led)
    rest = [c for c in cards if c != best]
    hand_out = {winner: best}
    if order[0] != winner:
        lead = max(c for c in rest if suit_of(c) == led) if len(of_led) > 1 else rest[0]
        hand_out[order[0]] = lead
        rest.remove(lead)
    for p in order:
        if p not in hand_out:
            hand_out[p] = rest.pop(0)
    return [(p, hand_out[p]) for p in order]


def world_game(view: ObsBatch, i: int, led: int, rules: Rules) -> Game:
    """Row ``i`` of a decoded view as a reference game with seat 0 = the observer and seats
    = relative positions, everything the observer knows filled in; the hidden hands are
    left empty (set them per sample: ``hands[p]``, and ``stock``)."""
    n = int(view.num_players[i])
    g = Game(rules=rules, num_players=n, rng=_NO_RNG, scores=view.score[i, :n].tolist(),
             dealer=int(view.dealer[i]))
    g.active = view.active[i, :n].tolist()
    g.rounds_played = int(round(float(view.progress[i]) * rules.max_rounds))
    g.phase = PHASE_NAMES[int(view.phase[i])]
    g.to_act = 0
    g.redeals_open = bool(view.redeals_open[i])
    g.reshuffled = bool(view.reshuffled[i])
    g.throws = view.throws[i, :n].tolist()
    g.seen_thrown = [set(np.flatnonzero(view.seen_thrown[i]).tolist())] + [set() for _ in range(n - 1)]
    g.calls = [None if c == NO_CALL else int(c) for c in view.call[i, :n]]
    g.high_level = int(view.high_bid[i])
    g.declarer = int(view.declarer[i])
    g.in_round = view.in_round[i, :n].tolist()
    g.tricks = view.tricks[i, :n].tolist()
    g.tricks_done = int(view.tricks_done[i])
    g.leader = int(view.leader[i])
    g.trick = current_trick(view, i, led)
    g.played = set(np.flatnonzero(view.played[i]).tolist())
    g.voids = view.voids[i, :n].tolist()
    g.join_state = JOIN_STATES[int(view.join_state[i])]
    g.joiner = view.joiner[i, :n].tolist()
    g.bounced = view.bounced[i, :n].tolist()
    g.tied_duels = int(view.tied_duels[i])
    return g


def world_templates(view: ObsBatch, legal: np.ndarray, rules: Rules) -> list[Game]:
    """One game per row of decoded observations ``view`` with legal actions ``legal`` bool
    [B, 69]: everything the observer knows (its hand, the thrown-in cards it has seen), the
    hidden cards left out (:func:`sample_owners` deals them; see :func:`sampled_worlds`)."""
    templates = []
    n = int(view.num_players[0])
    seen_thrown = view.seen_thrown & ~view.reshuffled[:, None]
    led = trick_led_suit(view, legal)
    for i in range(len(view)):
        g = world_game(view, i, int(led[i]), rules)
        g.hands = [set(np.flatnonzero(view.hand[i]).tolist())] + [set() for _ in range(1, n)]
        g.stock, g.thrown = [], np.flatnonzero(seen_thrown[i]).tolist()
        templates.append(g)
    return templates


def sampled_worlds(view: ObsBatch, legal: np.ndarray, owners: np.ndarray, samples: int, rules: Rules) -> list[Game]:
    """One game per (row, sample) of decoded observations ``view`` with legal actions
    ``legal`` bool [B, 69]: row ``i``'s samples are ``owners[i * samples : (i + 1) *
    samples]`` (owner positions of every card, as :func:`sample_owners` deals them). The
    hidden cards in no hand make up the stock (as many as the observation says) and the
    thrown-in pile, with the thrown-in cards the observer has seen. (The search loads the
    same states without building these games: ``VectorEnv.load_deals`` of the templates.)"""
    games = []
    n = int(view.num_players[0])
    for i, template in enumerate(world_templates(view, legal, rules)):
        stock_size = int(view.stock_size[i])
        for owner in owners[i * samples : (i + 1) * samples]:
            g = copy.copy(template)  # the engine's loader only reads: the other fields can be shared
            g.hands = [template.hands[0]] + [set(np.flatnonzero(owner == p).tolist()) for p in range(1, n)]
            rest = np.flatnonzero(owner == -1).tolist()
            g.stock, g.thrown = rest[:stock_size], rest[stock_size:] + template.thrown
            games.append(g)
    return games


# ====================================================================== the agent
class PimcAgent(Agent):
    """Determinised search; see the module docstring. Parameters:

    ``samples`` deals per decision; ``max_actions`` candidate actions searched (the
    rollout bot's choice and its nearest alternatives by action id); ``rollout`` the spec
    of the bot playing every seat in the playouts (any registered bot); ``horizon``
    ``auto`` | ``round`` | ``game``: under ``round`` a playout is worth the utility of the
    player's score at the round's end (``win_value`` for exactly 0); under ``game`` someone
    else finishing counts as a loss (``-win_value``) and a shared finish as a share of the
    win; ``auto`` uses ``game`` when an active player's score is at most ``close_at`` (the
    game may end this round) and ``round`` otherwise; ``win_value``, ``neg_extra``,
    ``elim_value``: the utility of a round's end (:func:`agents.redbeard.heuristic.score_utility`;
    the heuristic's defaults); ``chunk`` playouts per batch."""

    game = "redbeard"
    value_units = "points"  # action_values: the round's expected utility
    #: the spec's parameters (agents.params); a decision costs samples x max_actions playouts,
    #: a playout about PLAYOUT_CALLS decisions of the rollout bot
    PARAMS = {
        "samples": Int(1, 4096, per=1, help="deals sampled per decision"),
        "max_actions": Int(2, 16, per=1, help="candidate actions searched (at most 8 are ever legal at once)"),
        "rollout": Bot(calls=PLAYOUT_CALLS, help="the bot playing every seat of the playouts"),
        "horizon": Choice("auto", "round", "game", help="what a playout is worth (it costs the same)"),
        "close_at": Int(0, 1000, help="under horizon=auto: a score at which the game may end this round"),
        "win_value": HeuristicAgent.PARAMS["win_value"],
        "neg_extra": HeuristicAgent.PARAMS["neg_extra"],
        "elim_value": HeuristicAgent.PARAMS["elim_value"],
        "chunk": Int(1, 65536, help="playouts per batch (bounds the engine's memory)"),
        "seed": SEED,
        "rules": RulesParam(),
    }
    COST = 1.0  # cost units (agents.params) per sample, candidate and rollout decision

    def __init__(
        self,
        samples: int = 16,
        max_actions: int = 4,
        rollout: str = "heuristic",
        horizon: str = "auto",
        close_at: int = 6,
        win_value: float = WIN_VALUE,
        neg_extra: float = NEG_EXTRA,
        elim_value: float = ELIM_VALUE,
        chunk: int = 16384,
        seed: int | None = 0,
        rules: Rules | None = None,
    ):
        set_numbers(self, PimcAgent.PARAMS, samples=samples, max_actions=max_actions, close_at=close_at,
                    win_value=win_value, neg_extra=neg_extra, elim_value=elim_value, chunk=chunk)
        self.horizon = PimcAgent.PARAMS["horizon"].check("horizon", horizon)
        self.policy = make_agent(rollout, game=self.game, seed=seed)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.rules = rules if rules is None else make_rules(rules)  # ValueError for bad rules
        self.decisions = 0  # searched decisions (for cost reports)
        self._engines: OrderedDict = OrderedDict()  # (rules, players, slots) -> VectorEnv

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self.seed if seed is None else seed)
        self.policy.reset(seed)

    # -------------------------------------------------------------- entry
    def searches(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """bool [B]: the rows this bot searches; its rollout bot decides the others."""
        obs, legal = check_batch(obs, mask, self.game)
        return self._searched(decode_batch(obs), legal)

    @staticmethod
    def _searched(view: ObsBatch, legal: np.ndarray) -> np.ndarray:
        return np.isin(view.phase, [PHASE[p] for p in SEARCH_PHASES]) & (legal.sum(1) > 1)

    def _base_actions(self, obs: np.ndarray, mask: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """int [B]: the rollout bot's choices (the search keeps one unless another is better)."""
        return np.asarray(self.policy.act_batch(obs, np.asarray(mask)), dtype=np.int64)

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, legal = check_batch(obs, mask, self.game)
        base = self._base_actions(obs, mask, legal)
        view = decode_batch(obs)
        search = self._searched(view, legal)
        out = base.copy()
        rows_all = np.flatnonzero(search)
        if not len(rows_all):
            return out
        for group in rules_groups(view.rows(rows_all)):
            rows = rows_all[group]
            sub = view.rows(rows)
            rules = self.rules if self.rules is not None else rules_from_obs(sub)
            # rows per chunk so that a chunk's playouts stay below ``chunk``
            per_row = self.samples * min(self.max_actions, int(legal[rows].sum(1).max()))
            step = max(1, self.chunk // max(per_row, 1))
            for lo in range(0, len(rows), step):
                part = np.arange(lo, min(lo + step, len(rows)))
                out[rows[part]] = self._search(sub.rows(part), legal[rows[part]], base[rows[part]], rules, rows[part])
        return out

    def action_values(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """float [B, 69]: the mean worth of every legal action over the sampled deals (the
        utility of the round's end, in points as :func:`~agents.redbeard.heuristic.score_utility`
        counts them), every legal action searched; ``-inf`` for illegal actions and ``nan``
        for the legal actions of decisions pimc leaves to its rollout bot (redeal, look,
        duels) or that have one legal action."""
        obs, legal = check_batch(obs, mask, self.game)
        base = self._base_actions(obs, mask, legal)
        view = decode_batch(obs)
        out = np.where(legal, np.nan, -np.inf)
        search = self._searched(view, legal)
        rows_all = np.flatnonzero(search)
        for group in rules_groups(view.rows(rows_all)) if len(rows_all) else []:
            rows = rows_all[group]
            sub = view.rows(rows)
            rules = self.rules if self.rules is not None else rules_from_obs(sub)
            table, mean = self._search_values(sub, legal[rows], base[rows], rules, rows, every_action=True)
            for i, r in enumerate(rows):
                ok = table[i] >= 0
                out[r, table[i][ok]] = mean[i][ok]
        return out

    def _candidates(self, row: int, legal_row: np.ndarray, base_action: int, every_action: bool = False) -> list[int]:
        """The legal actions, or when there are more than ``max_actions`` (and not
        ``every_action``): the policy's choice, passing (in the auction) and the actions
        nearest the choice by id (the neighbouring bids, the neighbouring cards of a suit)."""
        acts = np.flatnonzero(legal_row)
        if every_action or len(acts) <= self.max_actions:
            return [int(a) for a in acts]
        keep = [base_action] + ([PASS] if legal_row[PASS] and base_action != PASS else [])
        near = sorted((int(a) for a in acts if a not in keep), key=lambda a: (abs(a - base_action), a))
        return sorted(keep + near[: self.max_actions - len(keep)])

    def _owner_weights(self, rows: np.ndarray) -> np.ndarray | None:
        """float [len(rows), 7, 52]: how to weigh each position's cards when dealing the
        worlds of batch rows ``rows`` (None: uniformly)."""
        return None

    def _search(self, view: ObsBatch, legal: np.ndarray, base: np.ndarray, rules: Rules,
                rows: np.ndarray) -> np.ndarray:
        """The chosen actions of the decoded rows ``view`` (``rows``: their places in the
        batch)."""
        table, mean = self._search_values(view, legal, base, rules, rows)
        mean = np.where(table >= 0, mean + 1e-9 * (table == base[:, None]), -np.inf)  # ties: the policy's choice
        return table[np.arange(len(view)), mean.argmax(1)]

    def _search_values(self, view: ObsBatch, legal: np.ndarray, base: np.ndarray, rules: Rules, rows: np.ndarray,
                       every_action: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The candidate actions of each row ``table`` [B, C] (-1: none) and their mean
        worth over the samples ``mean`` [B, C]."""
        B, S = len(view), self.samples
        cands = [self._candidates(int(rows[i]), legal[i], int(base[i]), every_action) for i in range(B)]
        counts = np.array([len(c) for c in cands])
        C = int(counts.max())
        # deal the hidden cards: S samples per row, shared by all candidate actions
        seen_thrown = view.seen_thrown & ~view.reshuffled[:, None]
        unseen = ~(view.hand | view.played | view.trick | seen_thrown)
        rep = np.repeat(np.arange(B), S)
        owners = sample_owners(unseen[rep], hand_sizes(view, rules)[rep], view.voids[rep], self.rng,
                               self._owner_weights(rows[rep]))  # [B*S, 52]
        try:
            templates = world_templates(view, legal, rules)
        except IndexError as exc:  # a trick no game state has
            raise ValueError(f"pimc: the observation does not describe a game state ({str(exc)[:80]})") from None
        deals = (templates, rep, owners, view.stock_size.astype(np.int64))
        # first[c, w]: candidate c of world w's row (-1: that row has fewer candidates)
        table = np.full((B, C), -1, np.int64)
        for i, c in enumerate(cands):
            table[i, : len(c)] = c
        first = table[rep].T
        result = self._play_out(deals, first, rules, int(view.num_players[0]))
        values = self._values(result, view, rep, rules)  # [C, B*S]
        self.decisions += B
        return table, np.where(first >= 0, values, 0.0).reshape(C, B, S).mean(2).T  # [B, C]

    # -------------------------------------------------------------- playouts
    def _engine(self, rules: Rules, n: int, slots: int) -> VectorEnv:
        """An engine with ``slots`` games (kept between calls, every slot is reloaded: building
        the seat tables costs more than a small search)."""
        key = (rules, n, slots)
        env = self._engines.pop(key, None)
        if env is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # a player count outside the sheet: warned by the game
                env = VectorEnv(slots, n, rules, seed=0, auto_reset=False)
        self._engines[key] = env
        if len(self._engines) > 8:
            self._engines.popitem(last=False)
        return env

    def _play_out(self, deals: tuple, first: np.ndarray, rules: Rules, n: int) -> dict:
        """Play world w with candidate ``first[c, w]`` first to the round's end, for every c
        with ``first[c, w] >= 0``; world w is template ``row[w]`` with the hidden cards
        ``owners[w]`` deals (``deals = (templates, row, owners, stock_sizes)``, as
        :meth:`VectorEnv.load_deals` takes them). Returns per (c, w): ``scores`` [C, W, n] at
        the round's end, ``winner`` [C, W] (a game won in the round, else -1), ``eliminated``
        [C, W, n].

        An engine step has a fixed cost of about 400 slots: few worlds are loaded once per
        (world, candidate) into one engine; many are loaded once, into an engine copied for
        each candidate index."""
        templates, row, owners, stock_sizes = deals
        C, W = first.shape
        if type(self.policy) is HeuristicAgent:  # the compiled playouts (agents.redbeard.playout_kernels)
            return self._play_out_compiled(deals, first, rules, n)
        if W >= COPY_FROM:
            slots = [(np.full(W, c), np.arange(W)) for c in range(C)]  # per engine: candidate, world
        else:
            slots = [np.nonzero(first >= 0)]
        cand, world = slots[0]
        base_env = self._engine(rules, n, len(world))
        obs, mask, _ = base_env.load_deals(templates, row[world], owners[world], stock_sizes, stop_at_round_end=True)
        envs = [base_env] + [copy.deepcopy(base_env) for _ in slots[1:]]
        states = [(obs, mask)] + [(obs.copy(), mask.copy()) for _ in slots[1:]]
        firsts = [first[c, w] for c, w in slots]
        scores = np.zeros((C, W, n), np.int64)
        winner = np.full((C, W), -1, np.int64)
        eliminated = np.zeros((C, W, n), bool)
        running = list(range(len(envs)))
        step = 0
        while running:
            actions = {e: states[e][1].argmax(1) for e in running}  # the first legal action (halted: ignored)
            if step == 0:
                for e in running:
                    actions[e] = np.where(firsts[e] >= 0, firsts[e], actions[e])
            else:  # the rollout bot for every real choice of every engine, in one call
                asks = {e: np.flatnonzero((firsts[e] >= 0) & (np.count_nonzero(states[e][1], 1) > 1))
                        for e in running}
                total = sum(len(a) for a in asks.values())
                if total:
                    o = np.empty((total, states[0][0].shape[1]), np.float32)
                    m = np.empty((total, states[0][1].shape[1]), np.int8)
                    at = 0
                    for e in running:
                        k = len(asks[e])
                        np.take(states[e][0], asks[e], 0, out=o[at : at + k])
                        np.take(states[e][1], asks[e], 0, out=m[at : at + k])
                        at += k
                    acts = np.asarray(self.policy.act_batch(o, m), dtype=np.int64)
                    at = 0
                    for e in running:
                        actions[e][asks[e]] = acts[at : at + len(asks[e])]
                        at += len(asks[e])
            for e in list(running):
                env, (cand, world) = envs[e], slots[e]
                was_halted = env.halted
                obs, mask, _, _, term, _, info = env.step(actions[e])
                states[e] = (obs, mask)
                eliminated[cand, world] |= info["eliminated"]
                ended = np.flatnonzero(env.halted & ~was_halted)
                scores[cand[ended], world[ended]] = info["score"][ended]
                winner[cand[ended], world[ended]] = np.where(term[ended], info["winner"][ended], -1)
                if env.halted[firsts[e] >= 0].all():
                    running.remove(e)
            step += 1
            if step > MAX_PLAYOUT_STEPS:
                raise ValueError("pimc: a playout did not reach the round's end: the observation does not describe "
                                 "a game state")
        return {"scores": scores, "winner": winner, "eliminated": eliminated}

    def _play_out_compiled(self, deals: tuple, first: np.ndarray, rules: Rules, n: int) -> dict:
        """:meth:`_play_out` for the heuristic rollout bot: the worlds loaded once, each
        (candidate, world) played to its round's end by :func:`agents.redbeard.playout_kernels.play_out`
        (same results, no per-step Python)."""
        templates, row, owners, stock_sizes = deals
        C, W = first.shape
        env = self._engine(rules, n, W)
        env.load_deals(templates, row, owners, stock_sizes, stop_at_round_end=True)
        raw, dq, params, layout, prefix, rng = env.kernel_state()
        work_raw = np.zeros((1, raw.shape[1]), np.uint8)
        scores = np.zeros((C, W, n), np.int64)
        winner = np.full((C, W), -1, np.int64)
        eliminated = np.zeros((C, W, n), np.bool_)
        bad = PK.play_out(raw, work_raw, work_raw.view(GAME)[:, 0], dq, params, layout, prefix, rng,
                          np.ascontiguousarray(first, dtype=np.int64), *self.policy.kernel_numbers(rules),
                          MAX_PLAYOUT_STEPS, scores, winner, eliminated)
        if bad >= 0:
            c, w = divmod(bad, W)
            raise ValueError(f"pimc: candidate action {int(first[c, w])} is illegal in sampled world {w}")
        if bad < -1:
            raise ValueError("pimc: a playout did not reach the round's end: the observation does not describe a "
                             "game state")
        return {"scores": scores, "winner": winner, "eliminated": eliminated}

    def _values(self, res: dict, view: ObsBatch, rep: np.ndarray, rules: Rules) -> np.ndarray:
        """float [C, W]: the worth of each finished playout for the searching player (seat 0)."""
        win, n = self.win_value, int(view.num_players[0])
        my = res["scores"][:, :, 0]
        value = score_utility(my, rules, win, self.neg_extra, self.elim_value)
        active = view.active[rep, :n] & ~res["eliminated"]  # [C, W, n]
        scores = view.score[:, :n]
        close = (np.where(view.active[:, :n], scores, 10**6) <= self.close_at).any(1)
        game = (np.full(len(view), self.horizon == "game") | ((self.horizon == "auto") & close))[rep]
        on_zero = (res["scores"] == 0) & active
        k = on_zero.sum(2)
        shared = np.where(on_zero[:, :, 0], win / np.maximum(k, 1), -win)
        value = np.where(game & on_zero.any(2), shared, value)
        w = res["winner"]
        value = np.where(w == 0, win, np.where(w > 0, np.where(game, -win, value), value))
        return np.where(res["eliminated"][:, :, 0], -self.elim_value, value)


