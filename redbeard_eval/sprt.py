"""Promotion by sequential test: a candidate against the incumbent on duplicate deals until a
sequential probability ratio test decides between two win-rate hypotheses.

    python evaluate.py --sprt 0.25 0.28 --agents ppo:runs/new/policy.pt ppo:classic_4p --players 4 --games 20000

The table is the candidate in one seat and the incumbent in the others, every deal played in
every seating (so the candidate plays each seat's cards once per deal). H0: the candidate's
win rate is ``p0``; H1: it is ``p1``. Two kinds of test are allowed:

* a gain test, parity 1/n <= ``p0`` < ``p1``: H0 includes "no better than the incumbent", so
  accepting H1 says the candidate is stronger (``--sprt 0.25 0.28`` at 4 players);
* a non-regression test, ``p0`` < ``p1`` = parity: H0 is "worse by parity - p0", H1 "as
  good", for a candidate that is simpler rather than stronger (fishtest's test for
  simplifications; e.g. a bot that needs no hand-written bot at play: ``--sprt 0.23 0.25``).

Any other pair (``p0`` below parity with ``p1`` off it) is refused: an equal candidate
would sit between the hypotheses and the decision would say nothing. The
test (Wald's SPRT, as Stockfish's fishtest runs it) accepts H1 when the log-likelihood ratio
reaches ``log((1 - beta) / alpha)`` and H0 when it falls to ``log(beta / (1 - alpha))``; ``alpha``
and ``beta`` are the chances of a false promotion and of missing a real improvement.

The observations are whole deals, not games: the seatings of one deal share its cards, so
their results are not independent. Each deal gives the candidate's win share x (mean over
its seatings; a shared win counts its share), and the log-likelihood ratio of the deals so
far is the normal approximation fishtest uses for such scores (its pentanomial model reduces
to it): ``LLR = (p1 - p0) / var * sum(x - (p0 + p1) / 2)``, with ``var`` the deals' sample
variance. The deals are played in shards (batches of whole deals, seeded as in any
tournament: the same seed gives the same deals and the same decision); the LLR is printed
after each shard, and the test stops at the first bound crossed or at ``--games``
(inconclusive). No decision is taken on fewer than 20 deals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .tournament import Tournament, play_shard, prepare_tournament

__all__ = ["SprtResult", "llr", "bounds", "run_sprt"]

MIN_DEALS = 20  # no decision on fewer deals: the variance estimate needs some

@dataclass
class SprtResult:
    decision: str  # "H1" (promote), "H0" (keep the incumbent) or "inconclusive"
    llr: float
    lower: float
    upper: float
    deals: int
    games: int
    win_rate: float
    players: int = 0
    game: str = ""
    rules: str = ""
    history: list = field(default_factory=list)  # (games, llr) after each shard

    @property
    def parity(self) -> float:
        return 1.0 / self.players if self.players else float("nan")

    def as_dict(self) -> dict:
        return dict(decision=self.decision, llr=self.llr, lower=self.lower, upper=self.upper, deals=self.deals,
                    games=self.games, win_rate=self.win_rate, players=self.players, parity=self.parity,
                    game=self.game, rules=self.rules, history=[list(h) for h in self.history])


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds (lower: accept H0, upper: accept H1)."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def llr(shares: np.ndarray, p0: float, p1: float) -> float:
    """The log-likelihood ratio of H1 (mean p1) against H0 (mean p0) for per-deal scores
    ``shares`` in [0, 1], normal approximation with their sample variance (0 while fewer
    than two deals or no spread)."""
    shares = np.asarray(shares, dtype=float)
    if len(shares) < 2:
        return 0.0
    var = shares.var(ddof=1)
    if var <= 0:  # every deal alike so far: a small variance (1/4 of a Bernoulli's), so the LLR moves fast
        var = max(p0 * (1 - p0), p1 * (1 - p1)) / 4
    return float((p1 - p0) / var * np.sum(shares - (p0 + p1) / 2))


def check_hypotheses(p0: float, p1: float, alpha: float, beta: float) -> None:
    for name, p in (("p0", p0), ("p1", p1)):
        if not (isinstance(p, (int, float)) and 0 < p < 1):
            raise ValueError(f"{name} must be a win rate strictly between 0 and 1, got {p!r}")
    if not p0 < p1:
        raise ValueError(f"the hypotheses must be p0 < p1 (H1: the candidate is better), got {p0} and {p1}")
    for name, x in (("alpha", alpha), ("beta", beta)):
        if not (isinstance(x, (int, float)) and 0 < x < 0.5):
            raise ValueError(f"{name} must be in (0, 0.5), got {x!r}")


def run_sprt(candidate: str, incumbent: str, p0: float, p1: float, *, alpha: float = 0.05, beta: float = 0.05,
             max_games: int = 20000, report: Callable[[str], None] | None = print, **tournament_kwargs) -> SprtResult:
    """Play the candidate against the incumbent (see the module docstring) until the test
    decides or ``max_games`` are played; ``tournament_kwargs`` go to
    :func:`~redbeard_eval.tournament.prepare_tournament` (``game``, ``rules``, ``players``,
    ``seed``, ``batch_size``, ``overrides``, ...). ``report`` gets one line per shard."""
    check_hypotheses(p0, p1, alpha, beta)
    players = tournament_kwargs.pop("players", None)
    tr: Tournament = prepare_tournament([candidate, incumbent], players=players, games=max_games, **tournament_kwargs)
    if tr.unique[0] == tr.unique[-1]:
        raise ValueError("the candidate and the incumbent are the same spec; nothing to test")
    parity = 1.0 / tr.num_players
    if p0 < parity - 1e-9 and abs(p1 - parity) > 1e-4:  # 1e-4: parity as typed, e.g. 0.3333
        # below parity an equal candidate (win rate 1/n) sits between the hypotheses: only
        # the non-regression form, whose H1 is parity itself, says something about it
        raise ValueError(f"p0 ({p0}) is below parity 1/{tr.num_players} = {parity:.4f} at this {tr.num_players}-player "
                         f"table; take p0 >= parity for a gain test (e.g. --sprt {parity:.4f} {parity + 0.03:.4f}) "
                         f"or p1 = parity for a non-regression test (e.g. --sprt {parity - 0.02:.4f} {parity:.4f})")
    lower, upper = bounds(alpha, beta)
    shares: list[float] = []
    history = []
    for shard in range(tr.num_shards):
        result = play_shard(tr, shard)
        by_deal: dict[int, list[float]] = {}
        for row in result.rec.seat_rows:
            if row["agent"] == tr.unique[0]:
                by_deal.setdefault(row["deal"], []).append(float(row["won"]))
        shares += [float(np.mean(v)) for _, v in sorted(by_deal.items())]
        value = llr(np.array(shares), p0, p1)
        games = len(shares) * len(tr.rotations)
        history.append((games, value))
        if report is not None:
            report(f"sprt: {games} games ({len(shares)} deals), win rate {np.mean(shares):.4f}, "
                   f"LLR {value:+.3f} in ({lower:.3f}, {upper:.3f})")
        if len(shares) >= MIN_DEALS and (value >= upper or value <= lower):
            break
    decided = len(shares) >= MIN_DEALS
    decision = "H1" if decided and value >= upper else "H0" if decided and value <= lower else "inconclusive"
    return SprtResult(decision, value, lower, upper, len(shares), len(shares) * len(tr.rotations),
                      float(np.mean(shares)) if shares else float("nan"), tr.num_players, tr.game.name, tr.rules_name,
                      history)
