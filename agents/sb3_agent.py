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
from typing import Any

import numpy as np

from redbeard_env.registry import Game

from .base import Agent, check_batch
from .params import Choice, Text


def _plain(value) -> bool:
    if isinstance(value, dict):
        return ":serialized:" not in value and all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


MAX_DATA_BYTES, MAX_WEIGHT_BYTES = 2**20, 256 * 2**20  # a saved model's parts beyond these are refused unread
MAX_LAYERS, MAX_WIDTH = 8, 8192  # net_arch beyond these is refused before the policy is built
KWARGS = ("net_arch", "ortho_init", "log_std_init", "normalize_images", "share_features_extractor")


def check_net_arch(net_arch: Any, where: str) -> None:
    """``net_arch`` as sb3 takes it (a list of widths, or a dict of ``pi`` / ``vf`` lists),
    within MAX_LAYERS layers of MAX_WIDTH units; else a ``ValueError``."""
    lists = list(net_arch.values()) if isinstance(net_arch, dict) else [net_arch]
    if isinstance(net_arch, dict) and not set(net_arch) <= {"pi", "vf"}:
        raise ValueError(f"{where}: net_arch keys are pi and vf, got {sorted(net_arch)[:5]}")
    for widths in lists:
        if not (isinstance(widths, list) and len(widths) <= MAX_LAYERS
                and all(isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= MAX_WIDTH for w in widths)):
            raise ValueError(f"{where}: net_arch must list at most {MAX_LAYERS} widths in 1..{MAX_WIDTH}, "
                             f"got {str(net_arch)[:80]}")


class MaskablePPOAgent(Agent):
    #: the spec's parameters (agents.params)
    PARAMS = {
        "path": Text(help="the saved model (.zip)"),
        "device": Choice("cpu", "cuda", *(f"cuda:{i}" for i in range(16)), shown="'cpu' or 'cuda[:N]'",
                         help="where the network runs"),
    }
    COST = 5.0  # cost units (agents.params): a decision among many in a batch

    def __init__(self, path: str, device: str = "cpu", game: "Game | str | None" = None):
        try:
            import torch
            from sb3_contrib.common.maskable.policies import MaskableMultiInputActorCriticPolicy
        except ImportError as exc:
            raise ValueError("the sb3 bot needs sb3-contrib: pip install -e '.[sb3]'") from exc
        from agents.single_agent import single_agent_env

        try:
            is_model = Path(path).is_file() and zipfile.is_zipfile(path)
        except (OSError, ValueError):  # a name too long for the file system, a NUL byte
            is_model = False
        if not is_model:
            raise ValueError(f"no saved MaskablePPO model at {path!r} (a .zip written by model.save)")
        with zipfile.ZipFile(path) as z:
            try:
                sizes = {name: z.getinfo(name).file_size for name in ("data", "policy.pth")}
                if sizes["data"] > MAX_DATA_BYTES or sizes["policy.pth"] > MAX_WEIGHT_BYTES:
                    raise ValueError(f"parts too large ({sizes}; at most {MAX_DATA_BYTES} and {MAX_WEIGHT_BYTES} bytes)")
                data = json.loads(z.read("data"))
                weights = z.read("policy.pth")
            except (KeyError, ValueError, RecursionError) as exc:
                raise ValueError(f"{path} is not a saved sb3 model: {str(exc)[:200]}") from None
        kwargs = data.get("policy_kwargs") or {} if isinstance(data, dict) else None
        if not isinstance(kwargs, dict) or not _plain(kwargs):
            raise ValueError(f"{path}: its policy_kwargs are pickled objects (e.g. an activation_fn); "
                             f"only plain settings (net_arch, ...) can be loaded safely")
        unknown = sorted(set(kwargs) - set(KWARGS))
        if unknown:
            raise ValueError(f"{path}: policy_kwargs {unknown[:5]} cannot be loaded; allowed: {', '.join(KWARGS)}")
        if "net_arch" in kwargs:
            check_net_arch(kwargs["net_arch"], str(path))
        env = single_agent_env(opponents=lambda obs: 0, game=game)  # only for the spaces
        self.game = env.game.name
        self.policy = MaskableMultiInputActorCriticPolicy(env.observation_space, env.action_space, lr_schedule=lambda _: 0.0, **kwargs)
        try:
            state = torch.load(io.BytesIO(weights), map_location=device, weights_only=True)
            self.policy.load_state_dict(state)
        except Exception as exc:
            raise ValueError(f"{path}: the policy weights do not load safely into a default MaskablePPO policy: {exc}") from None
        self.policy.to(device).eval()

    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, legal = check_batch(obs, mask, self.game)
        actions, _ = self.policy.predict({"observation": obs, "action_mask": legal.astype(np.int8)},
                                         action_masks=legal, deterministic=True)
        return np.asarray(actions, dtype=np.int64)
