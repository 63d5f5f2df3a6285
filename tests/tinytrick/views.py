"""Tiny Trick's table views: the shared defaults (:class:`redbeard_env.viewparts.TableViews`)
with its introduction and what a bid would score."""

from __future__ import annotations

from redbeard_env.viewparts import TableViews

from . import cards
from .rules import PRESETS


class TinyViews(TableViews):
    INTRO = ("Bid how many tricks you will take, then take exactly that many: follow the led suit if you can, "
             "the highest card of the led suit wins. An exact bid k scores 10 + k; a miss loses a point per trick off.")

    def stakes(self, g, seat: int) -> list[dict]:
        if g.game_over or g.to_act != seat or g.phase != "bid":
            return []
        return [{"action": f"bid:{k}", "text": f"Bid {k}: exactly {k} tricks scores {10 + k}"}
                for k in range(g.rules.hand_size + 1)]


VIEWS = TinyViews(cards, PRESETS)
