"""Rödskägg (Redbeard / Fem opp / Raudskjegg): rules, a PettingZoo AEC environment and a
batched numpy engine. See ``redbeard_env.env`` for the environment's documentation."""

from .cards import action_id, action_name, card_name, parse_card
from .env import env, raw_env
from .observation import OBS_BLOCKS, OBS_SIZE
from .rules import PRESETS, Rules, make_rules
from .single_agent import SingleAgentEnv, register_gymnasium_envs, single_agent_env

register_gymnasium_envs()

__all__ = ["env", "raw_env", "single_agent_env", "SingleAgentEnv", "Rules", "PRESETS", "make_rules",
           "action_id", "action_name", "card_name", "parse_card", "OBS_SIZE", "OBS_BLOCKS"]
