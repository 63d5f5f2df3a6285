"""Sortskæg's batch engine: B games in lock-step, compiled with numba (SPEC §6, the §3b contract).

```python
from redbeard_env.sortskaeg import VectorEnv
venv = VectorEnv(num_envs=4096, num_players=4, rules="sortskaeg", seed=0, **overrides)
obs, mask, seat = venv.reset()        # float32 [B, 671], int8 [B, 50], int64 [B]
obs, mask, seat, rewards, terminated, truncated, info = venv.step(actions)   # actions int [B]
```

It is the family's compiled engine (:class:`redbeard_env.family.vector.FamilyVectorEnv`: its
docstring is the reference for the API, rewards, auto-reset, info, loads and randomness) with
Sortskæg's rules, layout and cards; it agrees with the reference engine step for step on the
same deals and actions (``tests/test_sortskaeg_vector.py``). A deck row here is the 42 card
ids, top first; ``reset(decks=...)`` takes int [B, K, 42].
"""

from __future__ import annotations

from ..family.vector import FamilyVectorEnv, random_legal_actions
from . import cards as _cards
from . import observation as _observation
from . import rules as _rules

__all__ = ["VectorEnv", "random_legal_actions"]


class VectorEnv(FamilyVectorEnv):
    """Sortskæg's batch engine: ``VectorEnv(num_envs, num_players=4, rules="sortskaeg", seed=None,
    reward="win", auto_reset=True, **overrides)``."""

    rules_module = _rules
    layout = _observation.LAYOUT
    cards = _cards
    default_rules = "sortskaeg"
