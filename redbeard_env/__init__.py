"""Rödskägg and its family of trick-taking games with bidding: for each game its rules, a
PettingZoo AEC environment and a compiled batch engine, behind one registry.

```python
import redbeard_env
redbeard_env.registered_games()                  # ('redbeard', 'sortskaeg', 'oh_hell')
env = redbeard_env.make("sortskaeg", num_players=4)
redbeard_env.register(game)                      # a game defined elsewhere (its contract checked)
env = redbeard_env.env(num_players=4, rules="classic")   # Rödskägg's env (SPEC §3)
```

Games are plug-ins (:mod:`redbeard_env.registry`; what each part provides:
:mod:`redbeard_env.contract`): each lives in its own folder (:mod:`redbeard_env.redbeard`,
:mod:`redbeard_env.sortskaeg`, :mod:`redbeard_env.oh_hell`); the modules here are what they
share. The names below that are not about the registry are Rödskägg's, the first
game, kept where SPEC §3 puts them.
"""

from .redbeard.cards import action_id, action_name, card_name, parse_card
from .redbeard.env import env, raw_env
from .redbeard.observation import OBS_BLOCKS, OBS_SIZE
from .redbeard.rules import PRESETS, Rules, make_rules
from .registry import LEGACY_GAME, Game, game_named, game_of_rules, make, register, registered_games

__all__ = ["registered_games", "make", "game_named", "game_of_rules", "Game", "register", "LEGACY_GAME",
           "env", "raw_env", "Rules", "PRESETS", "make_rules",
           "action_id", "action_name", "card_name", "parse_card", "OBS_SIZE", "OBS_BLOCKS"]
