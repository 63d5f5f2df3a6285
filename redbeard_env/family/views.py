"""The table views every game of the family shares (the web table and the terminal game,
:mod:`redbeard_web`): each game's ``views`` module builds on these with its own cards and
texts. Only what a seat may know goes in.
"""

from __future__ import annotations

from typing import Sequence

from ..viewparts import seat_label


def round_end(e: tuple, you: int | None, scores: Sequence[int], headline: str | None = None,
              text: str | None = None) -> list[dict]:
    """A ``round_end`` event of any game of the family as effects: each seat's score, then
    the round's end with every change and its reason (``headline`` and ``text``: how the
    game names a round; Sortskæg's "Round k (n cards):" by default)."""
    _, index, size, bids, tricks, deltas = e
    out = []
    changes = []
    for s, (b, t, d) in enumerate(zip(bids, tricks, deltas)):
        reason = "exact" if b == t else "missed"
        out.append({"type": "score", "seat": s, "delta": d, "reason": reason,
                    "text": f"{seat_label(s, you)} {d:+d} ({'bid ' + str(b) + ', took ' + str(t)})"})
        why = f"bid {b}, took {t}: " + ("exact" if b == t else f"{abs(t - b)} off")
        after = int(scores[s])
        changes.append({"seat": s, "before": after - d, "after": after,
                        "items": [{"reason": reason, "delta": d, "count": 1, "text": f"{d:+d} {why}"}],
                        "text": f"{seat_label(s, you)}: {after - d} → {after} ({d:+d}, {why})"})
    headline = headline or f"Round {index + 1} ({size} card{'s' if size != 1 else ''}):"
    end = {"type": "round_end", "round": index + 1, "hand_size": size, "bids": list(bids), "tricks": list(tricks),
           "points": list(deltas), "text": text or f"round {index + 1} over", "changes": changes, "headline": headline,
           "notes": [], "summary": f"{headline} " + "; ".join(c["text"] for c in changes) + "."}
    return out + [end]
