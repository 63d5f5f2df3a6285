"""Bots behind one small interface (see :mod:`agents.base`):

* ``act(observation, action_mask) -> action`` for the AEC env,
* ``act_batch(obs[B], mask[B]) -> actions[B]`` for the batch engine.

Build them from spec strings (:mod:`agents.registry`), within a game::

    from agents import make_agent
    bot = make_agent("heuristic")                    # the first game's (Rödskägg); or "random",
                                                     # "pimc:samples=64", "ppo:<checkpoint>"
    bot = make_agent("pimc", game="sortskaeg")       # Sortskæg's
    action = bot.act(obs, obs["action_mask"])        # obs from the game's AEC env

Each game's bots live in ``agents/<game>/`` with a decoder of its observation
(:mod:`agents.redbeard.decode`, :mod:`agents.sortskaeg.decode`).
"""

from .base import Agent
from .registry import available_agents, make_agent, parse_spec, register
from .single_agent import SingleAgentEnv, register_gymnasium_envs, single_agent_env

register_gymnasium_envs()

__all__ = ["Agent", "available_agents", "make_agent", "parse_spec", "register", "SingleAgentEnv", "single_agent_env"]
