"""Oh Hell's batch engine: B games in lock-step, compiled with numba (the SPEC §3b contract).

```python
from redbeard_env.oh_hell import VectorEnv
venv = VectorEnv(num_envs=4096, num_players=4, rules="oh_hell", seed=0, num_tricks=5)
obs, mask, seat = venv.reset()        # float32 [B, 1012], int8 [B, 70], int64 [B]
obs, mask, seat, rewards, terminated, truncated, info = venv.step(actions)   # actions int [B]
```

It is the family's compiled engine (:class:`redbeard_env.family.vector.FamilyVectorEnv`: its
docstring is the reference for the API, rewards, auto-reset, info, loads and randomness)
with Oh Hell's rules, layout and cards; it agrees with the reference engine step for step on
the same deals and actions (``tests/test_oh_hell_vector.py``). A deck row here is 104 ids: the
52 card ids top first, then a permutation of 0..51 that draws a drawn hand size
(``num_tricks=-1``; :func:`redbeard_env.family.family.drawn_size`).
"""

from __future__ import annotations

from ..family.vector import FamilyVectorEnv, random_legal_actions
from . import cards as _cards
from . import observation as _observation
from . import rules as _rules

__all__ = ["VectorEnv", "random_legal_actions"]


class VectorEnv(FamilyVectorEnv):
    """Oh Hell's batch engine: ``VectorEnv(num_envs, num_players=4, rules="oh_hell", seed=None,
    reward="win", auto_reset=True, **overrides)`` (overrides: the Rules fields, OpenSpiel's
    parameter names)."""

    rules_module = _rules
    layout = _observation.LAYOUT
    cards = _cards
    default_rules = "oh_hell"
