"""``sb3:<path>``: a saved sb3-contrib MaskablePPO model (trained on
:func:`agents.single_agent_env`, e.g. by examples/maskable_ppo.py) behind the bot
interface; greedy and masked. Needs the ``sb3`` extra.

sb3's own ``load`` unpickles parts of the file (cloudpickle), which could run code. This
bot reads only the plain parts: the policy settings from the file's JSON (refused if
they are pickled) and the weights with ``torch.load(weights_only=True)``; the spaces are
the env's, known here.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np

from .base import Agent, check_finite


def _plain(value) -> bool:
    if isinstance(value, dict):
        return ":serialized:" not in value and all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


class MaskablePPOAgent(Agent):
    def __init__(self, path: str, device: str = "cpu"):
        try:
            import torch
            from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
        except ImportError as exc:
            raise ValueError("the sb3 bot needs sb3-contrib: pip install -e '.[sb3]'") from exc
        from agents.single_agent import single_agent_env

        if not Path(path).is_file() or not zipfile.is_zipfile(path):
            raise ValueError(f"no saved MaskablePPO model at {path!r} (a .zip written by model.save)")
        with zipfile.ZipFile(path) as z:
            try:
                data = json.loads(z.read("data"))
                weights = z.read("policy.pth")
            except (KeyError, ValueError) as exc:
                raise ValueError(f"{path} is not a saved sb3 model: {exc}") from None
        kwargs = data.get("policy_kwargs") or {}
        if not _plain(kwargs):
            raise ValueError(f"{path}: its policy_kwargs are pickled objects (e.g. an activation_fn); "
                             f"only plain settings (net_arch, ...) can be loaded safely")
        env = single_agent_env(opponents=lambda obs: 0)  # only for the spaces
        self.policy = MaskableMultiInputActorCriticPolicy(env.observation_space, env.action_space, lr_schedule=lambda _: 0.0, **kwargs)
        try:
            state = torch.load(io.BytesIO(weights), map_location=device, weights_only=True)
            self.policy.load_state_dict(state)
        except Exception as exc:
            raise ValueError(f"{path}: the policy weights do not load safely into a default MaskablePPO policy: {exc}") from None
        self.policy.to(device).eval()

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        legal = np.asarray(mask) > 0
        obs = check_finite(np.asarray(obs, dtype=np.float32))
        actions, _ = self.policy.predict({"observation": obs, "action_mask": np.asarray(mask, np.int8)},
                                         action_masks=legal, deterministic=True)
        return np.asarray(actions, dtype=np.int64)
