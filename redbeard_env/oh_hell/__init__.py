"""Oh Hell (SPEC §7): OpenSpiel's ``oh_hell``, parameter for parameter -- one deal, a turned
card for trumps, exact bids with the dealer's hook -- played on the engines of the family
(:mod:`redbeard_env.family`), as Sortskæg is.

```python
import redbeard_env
env = redbeard_env.make("oh_hell", num_players=4, num_tricks=5, off_bid_penalty=True)
env.reset(seed=7, options={"dealer": 0, "hands": [[...], ...], "trump_card": "QH"})
redbeard_env.oh_hell.action_name(55), redbeard_env.oh_hell.action_id("play:AS")   # 'bid:3', 38
venv = redbeard_env.oh_hell.VectorEnv(num_envs=1024, num_players=4, num_tricks=5)
```

Parts: :mod:`~.rules` (``Rules``: OpenSpiel's parameter names; the ``oh_hell`` preset),
:mod:`~.cards` (names ``AS``, ``TD``, ``2C``; OpenSpiel's numbering), :mod:`~.observation`,
the AEC env :mod:`~.env`, the batch engine :mod:`~.vector`, :mod:`~.records`, :mod:`~.metrics`
and :mod:`~.views`. The rules engines are the family's: :mod:`redbeard_env.family.game`
(reference) and :mod:`redbeard_env.family.vector_rules` (compiled), reading
:func:`~.rules.family_of`.
"""

from .cards import NUM_ACTIONS, NUM_CARDS, action_id, action_name, card_name, parse_card
from .env import env, raw_env
from .observation import OBS_BLOCKS, OBS_SIZE
from .rules import PRESETS, Rules, make_rules
from .vector import VectorEnv

__all__ = ["env", "raw_env", "VectorEnv", "Rules", "PRESETS", "make_rules", "action_id", "action_name",
           "card_name", "parse_card", "NUM_ACTIONS", "NUM_CARDS", "OBS_SIZE", "OBS_BLOCKS"]


from ..registry import Game  # noqa: E402
from .parts import OH_HELL  # noqa: E402

GAME = Game.in_folder(__name__, title="Oh Hell", parts=OH_HELL, default_rules="oh_hell", deck_parts=2,
                      decks_per_game=lambda rules: 1, start_score=lambda rules: 0)
