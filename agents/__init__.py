"""Bots behind one small interface (see :mod:`agents.base`):

* ``act(observation, action_mask) -> action`` for the AEC env,
* ``act_batch(obs[B], mask[B]) -> actions[B]`` for the batch engine.

Build them from spec strings (:mod:`agents.registry`)::

    from agents import make_agent
    bot = make_agent("heuristic")            # or "random", "pimc:samples=64", "ppo:<ckpt>"
    action = bot.act(obs, obs["action_mask"])   # obs from the AEC env

Read observations with :mod:`agents.redbeard.decode` (``decode`` / ``decode_batch``).
"""

from .base import Agent
from .redbeard.decode import ObsBatch, Observation, decode, decode_batch, legal_actions, rules_from_obs
from .registry import available_agents, make_agent, parse_spec, register
from .single_agent import SingleAgentEnv, register_gymnasium_envs, single_agent_env

register_gymnasium_envs()

__all__ = [
    "Agent",
    "ObsBatch",
    "Observation",
    "available_agents",
    "decode",
    "decode_batch",
    "legal_actions",
    "make_agent",
    "parse_spec",
    "register",
    "rules_from_obs",
    "SingleAgentEnv",
    "single_agent_env",
]
