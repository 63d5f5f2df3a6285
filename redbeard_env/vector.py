"""``redbeard_env.vector.VectorEnv``: Rödskägg's batch engine under the name SPEC §3b gives
it (outside code imports it from here). The engine lives in :mod:`redbeard_env.redbeard.vector`;
for any game use ``redbeard_env.game_named(name).vector_env``."""

from .redbeard.vector import PHASE_NAMES, VectorEnv, random_legal_actions  # noqa: F401

__all__ = ["VectorEnv", "random_legal_actions", "PHASE_NAMES"]
