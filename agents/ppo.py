"""The PPO policy: one network for every phase and player count of a game.

features -> torso (MLP) -> masked policy logits [A] + value [1]

The features are the game's observation, the game's extra block (its bots package's
``TRAINING`` module, e.g. :mod:`agents.redbeard.training`: Rödskägg adds a hand-strength
block of 14, Sortskæg nothing), then a prior block of A (the game's number of actions):

* prior (e.g. ``prior="heuristic"``; zeros without a prior): the prior bot's utility
  of each action relative to its best legal one, ``clip(u - max u, -10, 0) / 10``
  (illegal actions -1). The network adds ``a * 10 * prior + b * [the bot's choice]`` to
  its logits, with learned scales ``a, b`` (``prior_log_scale``): a policy that starts as
  a softened copy of the bot and learns corrections on top (residual policy learning).
  The torso sees the block too, so the corrections can depend on how close the bot's
  options are.

Illegal actions get the dtype's most negative logit before the softmax, so sampling can
never pick one (a row with no legal action is an error, not a silent fallback).

A checkpoint is a self-describing dict saved with ``torch.save``::

    {"format": "redbeard-ppo", "version": 3, "game": "redbeard", "obs_size": 625, "num_actions": 69,
     "hidden": [256, 256], "critic": "shared" or "privileged", "belief": false,
     "prior": "heuristic" or "", "rules": {...Rules fields...}, "num_players": 4 or None,
     "identity": {"prior_spec": "heuristic:win_value=10.0,...", "obs_layout": <hash>, ...the game's features},
     "config": {...training config...}, "state_dict": {...}, "meta": {...}}

(``obs_size`` is the feature size; a file without ``game`` is Rödskägg's.) It holds tensors
and plain data only and is read with ``torch.load(weights_only=True)``: a file with
anything else (a pickle that could run code) is refused. Loading also refuses non-finite
weights and a policy whose ``identity`` differs from this code's (another prior default,
hand-evaluation table or observation layout would change its play silently).

``PPOAgent`` wraps a checkpoint behind the bot interface (``act`` / ``act_batch``) and is
what the registry builds for ``ppo:<name or path>`` in every game. A name
(:func:`named_checkpoint`: letters, digits, ``_+-``, never a path) is a shipped policy
(``agents/pretrained/<name>.pt``), else one of the bot folders a program was given
(``--bots DIR``, :func:`set_bot_folders`): ``DIR/NAME.pt``, ``DIR/NAME/final.pt`` (a recipe
pipeline), ``DIR/NAME/policy.pt`` (a single run). Anything else is a path
(``ppo:runs/NAME/final.pt``).

A checkpoint records the table it was trained at (its ``config``: game, rules preset,
overrides, player counts; older files the ``rules`` fields and ``num_players``):
:func:`trained_table` reads it, :func:`fits_table` says whether a policy was trained at a
given game, ``Rules`` and player count, and :func:`misfit_note` says so in a line when not
(``evaluate.py``, ``redbeard-play`` and the web table label such a bot).
"""

from __future__ import annotations

import dataclasses
import inspect
import pickle
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterable

import numpy as np
import torch
from torch import nn

from redbeard_env.registry import LEGACY_GAME, Game, as_game, game_of_data

from .base import Agent, check_batch
from .params import SEED, Bool, Choice, Text
from .registry import make_agent, parse_spec, resolve, training_of

FORMAT = "redbeard-ppo"
VERSION = 3
PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"
PRIOR_CLIP = 10.0  # utility points below the best action where the prior stops caring
MAX_LAYERS, MAX_WIDTH = 8, 8192  # a checkpoint's network beyond these is refused unread
_prior_bots: dict[tuple[str, str], Any] = {}


def feature_size(game: "Game | str") -> int:
    """The network's input size for ``game``: observation + extra block + prior block."""
    info = as_game(game)
    return info.obs_size + training_of(info).EXTRA_SIZE + info.num_actions


def check_prior(prior: str, game: "Game | str") -> str:
    info = as_game(game)
    if prior not in (priors := training_of(info).PRIORS):
        raise ValueError(f"unknown policy prior {str(prior)[:100]!r} for {info.name}; allowed: "
                         f"{', '.join(repr(p) for p in priors)}")
    return prior


def prior_agent(prior: str, game: "Game | str"):
    """The bot behind a prior (one shared, deterministic instance per game and name)."""
    info = as_game(game)
    check_prior(prior, info)
    if (info.name, prior) not in _prior_bots:
        _prior_bots[(info.name, prior)] = make_agent(prior, game=info)
    return _prior_bots[(info.name, prior)]


def prior_block(obs: np.ndarray, mask: np.ndarray, prior: str, values: np.ndarray | None = None,
                game: "Game | str" = LEGACY_GAME) -> np.ndarray:
    """float32 [B, A]: the prior bot's action utilities relative to its best legal
    action, in [-1, 0]; exactly 0 only at the bot's choice (see the module docstring).
    ``values`` are the bot's ``action_values`` for these rows when the caller already has
    them (the trainer shares one call between the prior and heuristic opponents)."""
    actions = as_game(game).num_actions
    if values is None:
        values = prior_agent(prior, game).action_values(obs, mask)
    elif values.shape != (len(obs), actions):
        raise ValueError(f"prior values must have shape {(len(obs), actions)}, got {values.shape}")
    best = values.argmax(1)
    rel = values - values[np.arange(len(values)), best][:, None]
    # only the bot's own choice sits at 0 (ties broken as it does); illegal actions at -1
    rel = np.clip(np.nan_to_num(rel, neginf=-PRIOR_CLIP), -PRIOR_CLIP, -1e-6)
    rel[np.arange(len(rel)), best] = 0.0
    return (rel / PRIOR_CLIP).astype(np.float32)


def policy_features(obs: np.ndarray, mask: np.ndarray | None = None, prior: str = "",
                    prior_values: np.ndarray | None = None, game: "Game | str" = LEGACY_GAME) -> np.ndarray:
    """Observations [B, D] of ``game`` (and the action masks [B, A], needed with a prior)
    -> network input [B, feature_size(game)] (see the module docstring). ``prior_values``:
    the prior bot's ``action_values`` for these rows, if already computed."""
    info = as_game(game)
    spec = training_of(info)
    obs = np.asarray(obs, dtype=np.float32)
    if obs.ndim != 2 or obs.shape[1] != info.obs_size:
        raise ValueError(f"{info.name} observations have shape [B, {info.obs_size}], got {tuple(obs.shape)}")
    out = np.zeros((len(obs), feature_size(info)), dtype=np.float32)
    out[:, :info.obs_size] = obs
    prior_at = info.obs_size + spec.EXTRA_SIZE
    if spec.EXTRA_SIZE:
        out[:, info.obs_size:prior_at] = spec.extra(obs)
    if check_prior(prior, info):
        if mask is None:
            raise ValueError(f"the {prior!r} prior needs the action mask")
        if len(obs):
            out[:, prior_at:] = prior_block(obs, mask, prior, prior_values, info)
    return out


def _layer(n_in: int, n_out: int, gain: float) -> nn.Linear:
    layer = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


CRITICS = ("shared", "privileged")


def _mlp(n_in: int, hidden: tuple[int, ...], n_out: int, out_gain: float) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in hidden:
        layers += [_layer(n_in, width, np.sqrt(2)), nn.Tanh()]
        n_in = width
    return nn.Sequential(*layers, _layer(n_in, n_out, out_gain))


def belief_log_probs(belief: torch.Tensor) -> torch.Tensor:
    """``log_softmax`` over the belief's last dim (seats + 1, a handful of entries) in plain
    elementwise steps: torch's CPU softmax kernels over so short a dim take 2-4x as long,
    a large share of the recipe's update (what :mod:`redbeard_train.loop` learns the belief
    with, and its probabilities the policy's input)."""
    shifted = belief - belief.amax(-1, keepdim=True)
    return shifted - shifted.exp().sum(-1, keepdim=True).log()


def _run(net: nn.Sequential, x: torch.Tensor) -> torch.Tensor:
    """``net`` on ``x``; bfloat16 input goes through the first (largest) layer in bfloat16
    and the rest of ``net`` in float32."""
    if x.dtype != torch.bfloat16:
        return net(x)
    first = net[0]
    return net[1:](nn.functional.linear(x, first.weight.to(x.dtype)).float() + first.bias)


class PolicyNet(nn.Module):
    """A policy torso and head, a value head and, when ``prior`` is set, the learned prior
    scales (CleanRL-style initialisation). The training recipe's parts, each switchable:

    * ``critic="shared"``: the value head sits on the policy's torso (what the shipped
      policies have); ``"privileged"``: an asymmetric critic, its own network over the
      features and every player's hand (``privileged``, from the engine during training
      only; the policy never sees it);
    * ``belief=True``: a belief head predicts from the features where each card is (which
      relative seat holds it, or none), trained on the true deal; its probabilities
      (detached) join the policy torso's input.

    Checkpoints of the default settings have exactly the shipped policies' weights."""

    def __init__(self, obs_size: int | None = None, hidden: tuple[int, ...] = (256, 256),
                 num_actions: int | None = None, prior: str = "", prior_scale: float = 2.0,
                 game: "Game | str" = LEGACY_GAME, critic: str = "shared", belief: bool = False):
        super().__init__()
        info = as_game(game)
        self.info, self.game = info, info.name
        obs_size = feature_size(info) if obs_size is None else obs_size
        num_actions = info.num_actions if num_actions is None else num_actions
        self.obs_size, self.hidden, self.num_actions = obs_size, tuple(hidden), num_actions
        self.prior_offset = obs_size - num_actions  # the prior block closes the features
        self.prior = check_prior(prior, info)
        if critic not in CRITICS:
            raise ValueError(f"critic must be one of {CRITICS}, got {str(critic)[:40]!r}")
        self.critic_kind, self.belief = critic, bool(belief)
        seats, cards = info.player_range[1], info.parts.cards.NUM_CARDS
        self.belief_shape = (cards, seats + 1)  # per card: the relative seat holding it, or none
        self.privileged_size = seats * cards
        if self.prior:
            if not prior_scale > 0:
                raise ValueError(f"prior_scale must be > 0, got {prior_scale}")
            self.prior_log_scale = nn.Parameter(torch.full((2,), float(np.log(prior_scale))))
        layers: list[nn.Module] = []
        n_in = obs_size + (cards * (seats + 1) if self.belief else 0)
        for width in hidden:
            layers += [_layer(n_in, width, np.sqrt(2)), nn.Tanh()]
            n_in = width
        self.torso = nn.Sequential(*layers)
        self.policy = _layer(n_in, num_actions, 0.01)
        if critic == "shared":
            self.value = _layer(n_in, 1, 1.0)
        else:
            self.critic = _mlp(obs_size + self.privileged_size, self.hidden, 1, 1.0)
        if self.belief:
            self.belief_net = _mlp(obs_size, self.hidden[:1], cards * (seats + 1), 0.01)

    def heads(self, obs: torch.Tensor, mask: torch.Tensor, prior_block: torch.Tensor | None = None,
              privileged: torch.Tensor | None = None) -> dict:
        """``logits`` [B, A] (masked), ``value`` [B] (None for a privileged critic without
        ``privileged``) and ``belief`` logits [B, cards, seats + 1] (None without the head).
        Features in bfloat16 go through the first layer of each network (torso, critic,
        belief head) in bfloat16 (weights rounded to it, products summed in float32 by the
        matrix units) and the rest in float32; the prior's block then comes as
        ``prior_block`` in float32, since it enters the logits directly."""
        belief = None
        x = obs
        if self.belief:
            belief = _run(self.belief_net, obs).view(len(obs), *self.belief_shape)
            x = torch.cat([obs, belief_log_probs(belief.detach()).exp().flatten(1).to(obs.dtype)], 1)
        h = _run(self.torso, x)
        logits = self.policy(h)
        if self.prior:
            rel = obs[:, self.prior_offset:] if prior_block is None else prior_block
            if rel.dtype != logits.dtype:
                raise ValueError(f"the prior's block must be {logits.dtype} (pass prior_block with bfloat16 features)")
            scale = self.prior_log_scale.exp()
            logits = logits + scale[0] * PRIOR_CLIP * rel + scale[1] * (rel >= 0).to(logits.dtype)
        # illegal actions at the float minimum, by adding it: a logit plus the minimum rounds
        # to the minimum, so the values are masked_fill's, at ~1/20 of its time on a CPU
        logits = logits + (~mask).to(logits.dtype) * torch.finfo(logits.dtype).min
        if self.critic_kind == "shared":
            value = self.value(h).squeeze(-1)
        elif privileged is not None:
            value = _run(self.critic, torch.cat([obs, privileged.to(obs.dtype)], 1)).squeeze(-1)
        else:
            value = None
        return {"logits": logits, "value": value, "belief": belief}

    def forward(self, obs: torch.Tensor, mask: torch.Tensor, prior_block: torch.Tensor | None = None,
                privileged: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Masked logits [B, A] and values [B] (see :meth:`heads`)."""
        out = self.heads(obs, mask, prior_block, privileged)
        return out["logits"], out["value"]

    def inputs(self, features: torch.Tensor, bfloat16: bool) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(features, prior_block) for :meth:`heads`: as they are, or in bfloat16 with the
        prior's block apart in float32 (it enters the logits directly)."""
        if not bfloat16:
            return features, None
        prior_block = features[:, self.prior_offset:].contiguous() if self.prior else None
        return features.to(torch.bfloat16), prior_block

    def features(self, obs: np.ndarray, mask: np.ndarray, prior_values: np.ndarray | None = None) -> np.ndarray:
        """This network's input for observations and masks (numpy, float32)."""
        return policy_features(obs, mask, self.prior, prior_values, self.info)

    def act(self, obs: torch.Tensor, mask: torch.Tensor, greedy: bool = False, generator=None,
            privileged: torch.Tensor | None = None, prior_block: torch.Tensor | None = None):
        """Sample (or argmax) legal actions; returns actions, log-probs, values (None for a
        privileged critic without ``privileged``). bfloat16 features as in :meth:`heads`."""
        if not bool(mask.any(-1).all()):
            raise ValueError("a row of the action mask has no legal action")
        logits, value = self(obs, mask, prior_block, privileged)
        logp_all = torch.log_softmax(logits, -1)
        # softmax, not logp_all.exp(): exp of the masked entries (far below -87) takes the
        # CPU's slow underflow path, ~50x the time of the whole softmax
        action = logits.argmax(-1) if greedy else sample_actions(torch.softmax(logits, -1), generator)
        return action, logp_all.gather(-1, action[:, None]).squeeze(-1), value


def privileged_view(held: np.ndarray, seat: np.ndarray, max_seats: int) -> tuple[np.ndarray, np.ndarray]:
    """What only training may know, from the acting seats' point of view: ``held`` bool [B,
    n, cards] (who holds what now, the engine's state) and ``seat`` int [B] ->
    (float32 [B, max_seats * cards]: every hand by relative seat, 0 = the acting one;
    int64 [B, cards]: each card's relative holder, ``max_seats`` = in no hand)."""
    B, n, cards = held.shape
    rel = (np.asarray(seat)[:, None] + np.arange(n)) % n  # [B, n]: the seat at each relative position
    hands = held[np.arange(B)[:, None], rel]  # [B, n, cards]
    priv = np.zeros((B, max_seats, cards), np.float32)
    priv[:, :n] = hands
    target = np.where(hands.any(1), hands.argmax(1), max_seats).astype(np.int64)
    return priv.reshape(B, max_seats * cards), target


def sample_actions(probs: torch.Tensor, generator=None) -> torch.Tensor:
    """One action per row of ``probs`` [B, A] (rows need not sum to 1 exactly), by the
    inverse of its cumulative distribution: one uniform draw per row. An action of
    probability 0 is never drawn (its step of the cumulative sum is empty). Same
    distribution as ``torch.multinomial(probs, 1)``, ~40x faster at 400 x 69 on a CPU."""
    cdf = probs.cumsum(-1)
    u = torch.rand((len(probs), 1), generator=generator, device=probs.device, dtype=probs.dtype) * cdf[:, -1:]
    action = torch.searchsorted(cdf, u, right=True).squeeze(-1)
    # u can round up to the total: then the last action of probability > 0
    last = probs.shape[-1] - 1 - (probs > 0).flip(-1).to(torch.uint8).argmax(-1)
    return torch.minimum(action, last)


def masked_entropy(logp: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy of each row's distribution over its legal actions, from its log-probabilities
    (``log_softmax`` of the masked logits, which the PPO loss needs anyway). Illegal entries
    are set to 0 before the exp: exp of their huge negative values takes the CPU's slow
    underflow path (~50x), and they add 0 either way."""
    legal_logp = logp * mask.to(logp.dtype)  # masked_fill's values (logp is finite), ~1/20 of its time
    return -(legal_logp.exp() * legal_logp).sum(-1)


# ------------------------------------------------------------------ checkpoints
def prior_spec(prior: str, game: "Game | str") -> str:
    """The prior bot's full spec, every parameter spelled out (``heuristic:win_value=10.0,...``):
    a checkpoint's play depends on all of them, so it records them."""
    if not check_prior(prior, game):
        return ""
    bot, _ = resolve(prior, game)
    params = inspect.signature(bot).parameters
    items = [f"{k}={p.default!r}" for k, p in params.items() if k not in ("rules", "seed", "game")]
    return f"{prior}:" + ",".join(items)


def behaviour_identity(prior: str, game: "Game | str" = LEGACY_GAME) -> dict[str, str]:
    """What a policy's play depends on besides its weights, as this code has it: the prior
    bot's full spec and the game's feature identity (observation and feature layout, and
    any table its extra block reads)."""
    return {"prior_spec": prior_spec(prior, game), **training_of(game).identity()}


def save_checkpoint(path: "str | Path", net: PolicyNet, *, rules=None, num_players=None,
                    config: dict | None = None, meta: dict | None = None) -> None:
    """Write a policy checkpoint (plain data and tensors only; see the module docstring)."""
    payload = {
        "format": FORMAT,
        "version": VERSION,
        "game": net.game,
        "features": training_of(net.info).DESCRIPTION,
        "prior": net.prior,
        "identity": behaviour_identity(net.prior, net.info),
        "obs_size": net.obs_size,
        "num_actions": net.num_actions,
        "hidden": list(net.hidden),
        "critic": net.critic_kind,
        "belief": net.belief,
        "rules": dataclasses.asdict(rules) if rules is not None else None,
        "num_players": num_players,
        "config": config or {},
        "meta": meta or {},
        "state_dict": {k: v.detach().cpu() for k, v in net.state_dict().items()},
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    torch.save(payload, tmp)
    tmp.replace(path)  # never leave a half-written checkpoint behind


def check_device(device: Any) -> str:
    """A torch device a policy can run on: ``cpu``, or ``cuda`` / ``cuda:N`` when torch sees
    that GPU; anything else is a ``ValueError``."""
    try:
        parsed = torch.device(device) if isinstance(device, str) else None
    except RuntimeError:
        parsed = None
    if parsed is None or parsed.type not in ("cpu", "cuda"):
        raise ValueError(f"device must be 'cpu' or 'cuda[:N]', got {str(device)[:40]!r}")
    if parsed.type == "cuda" and (not torch.cuda.is_available() or (parsed.index or 0) >= torch.cuda.device_count()):
        raise ValueError(f"device {device!r}: torch sees no such CUDA device")
    return device


# ------------------------------------------------------------------ names and bot folders
#: where ``ppo:NAME`` looks after the shipped policies: the bot folders a program was given
#: (``--bots DIR``). Only the command lines set them (:func:`set_bot_folders`); library code
#: never does, so a library call means the same whatever ran before it in the process.
_bot_folders: tuple[Path, ...] = ()
#: the files a name means in a bot folder, in this order: a policy file, a recipe
#: pipeline's bot, a single training run's policy
FOLDER_LAYOUTS = ("{name}.pt", "{name}/final.pt", "{name}/policy.pt")
NAME_CHARS = "letters, digits, _ + -"


def set_bot_folders(folders: Iterable["str | Path"]) -> tuple[Path, ...]:
    """Make ``ppo:NAME`` look in ``folders`` (in this order) after the shipped policies, as
    the command lines do with ``--bots DIR``; returns the folders set before (to put back).
    ``ValueError`` for a folder that does not exist."""
    global _bot_folders
    out = []
    for folder in folders:
        path = Path(folder)
        if not path.is_dir():
            raise ValueError(f"bot folder {str(folder)[:200]!r} is not a folder")
        out.append(path)
    before, _bot_folders = _bot_folders, tuple(out)
    return before


def bot_folders() -> tuple[Path, ...]:
    """The bot folders ``ppo:NAME`` searches after the shipped policies (:func:`set_bot_folders`)."""
    return _bot_folders


def is_plain_name(text: str) -> bool:
    """Whether ``text`` is a plain name (letters, digits, ``_+-``), never a path."""
    return bool(text) and len(text) <= 100 and all(ch.isascii() and (ch.isalnum() or ch in "_+-") for ch in text)


def check_name(name: Any) -> str:
    """``name`` if it is a policy's name (:func:`is_plain_name`: no path separator, no
    ``..``), else ``ValueError``."""
    if not isinstance(name, str) or not is_plain_name(name):
        raise ValueError(f"a policy's name is 1..100 {NAME_CHARS} (no path separators, no '..'), "
                         f"got {str(name)[:100]!r}")
    return name


def named_checkpoint(name: str) -> Path | None:
    """The file a policy's name means: the shipped policy of that name, else the first of
    ``DIR/NAME.pt``, ``DIR/NAME/final.pt``, ``DIR/NAME/policy.pt`` in each bot folder in
    turn (:func:`bot_folders`); None where there is none. Never a path: ``ValueError`` for a
    text that is not a name (:func:`check_name`)."""
    name = check_name(name)
    shipped = PRETRAINED_DIR / f"{name}.pt"
    if shipped.is_file():
        return shipped
    for folder in _bot_folders:
        for layout in FOLDER_LAYOUTS:
            path = folder / layout.format(name=name)
            if path.is_file():
                return path
    return None


def named_policies() -> dict[str, Path]:
    """Every policy a name reaches (:func:`named_checkpoint`): name -> file, the shipped
    ones first, then each bot folder's in turn (a name found earlier hides later ones)."""
    out = {p.stem: p for p in sorted(PRETRAINED_DIR.glob("*.pt")) if is_plain_name(p.stem)}
    for folder in _bot_folders:
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            name = entry.stem if entry.suffix == ".pt" else entry.name
            if is_plain_name(name) and name not in out:
                path = named_checkpoint(name)
                if path is not None:
                    out[name] = path
    return out


def searched_text() -> str:
    """Where a name is looked for, in words (for the errors)."""
    if not _bot_folders:
        return "the shipped policies (and no bot folder: --bots DIR adds one)"
    folders = ", ".join(str(f) for f in _bot_folders)
    return f"the shipped policies and the bot folders {folders} (as NAME.pt, NAME/final.pt, NAME/policy.pt)"


def resolve_checkpoint(name_or_path: str) -> Path:
    """The file of a policy's name (:func:`named_checkpoint`: shipped, then the bot
    folders) or of a path (anything that is not a name, e.g. ``runs/NAME/final.pt``). A
    name is only ever a name: it never means a file of the working directory."""
    text = str(name_or_path)
    if is_plain_name(text):
        path = named_checkpoint(text)
        if path is None:
            shipped = sorted(p.stem for p in PRETRAINED_DIR.glob("*.pt"))
            raise ValueError(f"no PPO checkpoint named {text!r} in {searched_text()}; shipped: "
                             f"{', '.join(shipped) or 'none'} (a file is ppo:<path>, e.g. ppo:./{text}.pt)")
        return path
    path = Path(text)
    try:
        if path.is_file():
            return path
    except (OSError, ValueError):  # a name too long for the file system, a NUL byte
        pass
    raise ValueError(f"no PPO checkpoint {text[:100]!r}: not a file, and not a name ({NAME_CHARS}) of "
                     f"{searched_text()}")


# ------------------------------------------------------------------ the table a policy was trained at
@dataclasses.dataclass(frozen=True)
class TrainedTable:
    """Where a policy was trained, as its checkpoint records it: the game, its ``Rules``
    (None: not recorded, or fields this code no longer has), the rule sheet and the fields
    set on top of it (as the trainer was given them; for files that record only the fields,
    the nearest sheet and the differences), and the player counts (empty: not recorded)."""

    game: str
    rules: Any
    preset: str | None
    overrides: dict
    players: tuple[int, ...]

    def text(self) -> str:
        """``"classic, 4 players"``, ``"classic with leader=trick_winner, 3/5 players"``."""
        sheet = table_text(self.preset, self.overrides) if self.preset else "rules it does not record"
        counts = f"{'/'.join(map(str, self.players))} players" if self.players else "player counts it does not record"
        return f"{sheet}, {counts}"


def table_text(preset: str, overrides: dict | None = None, players: int | None = None) -> str:
    """A table in words: ``"fem_opp, 5 players"``, ``"classic with zero_rule=bounce"``."""
    over = " ".join(f"{k}={_value_words(v)}" for k, v in (overrides or {}).items())
    return preset + (f" with {over}" if over else "") + (f", {players} players" if players is not None else "")


def _value_words(value: Any) -> str:
    return ",".join(map(str, value)) if isinstance(value, (tuple, list)) else str(value)


def rules_sheet(game: "Game | str", rules: Any) -> tuple[str, dict]:
    """The rule sheet (preset) of ``game`` nearest ``rules`` and the fields that differ from
    it (the fewest; ties go to the game's default sheet, then the sheets' order)."""
    info = as_game(game)
    fields = dataclasses.asdict(rules)
    best: tuple[str, dict] | None = None
    for preset in sorted(info.presets, key=lambda p: p != info.default_rules):
        sheet = dataclasses.asdict(info.presets[preset])
        diff = {k: v for k, v in fields.items() if sheet.get(k) != v}
        if best is None or len(diff) < len(best[1]):
            best = (preset, diff)
    assert best is not None
    return best


def trained_table(payload: dict) -> TrainedTable:
    """The table a checkpoint (its payload, :func:`read_payload`) was trained at: its
    ``config`` (game, rules preset, overrides, player counts) where it has one, else the
    ``rules`` fields and ``num_players`` older files record."""
    config = payload.get("config") if isinstance(payload.get("config"), dict) else {}
    info = game_of_data(payload)
    rules = preset = None
    overrides: dict = {}
    recorded, named = payload.get("rules"), config.get("rules")
    try:
        if isinstance(recorded, dict):
            rules = info.make_rules(recorded)
        elif isinstance(named, str):
            rules = info.make_rules(named, **(config.get("overrides") or {}))
    except (ValueError, TypeError):  # fields or values this code no longer has
        rules = None
    if isinstance(named, str) and named in info.presets:
        preset, overrides = named, dict(config.get("overrides") or {})
    elif rules is not None:
        preset, overrides = rules_sheet(info, rules)
    players = config.get("players")
    if not (isinstance(players, (list, tuple)) and players):
        players = [payload["num_players"]] if isinstance(payload.get("num_players"), int) else []
    return TrainedTable(info.name, rules, preset, overrides, tuple(int(n) for n in players))


def fits_table(trained: "TrainedTable | dict", game: "Game | str", rules: Any, num_players: int) -> bool:
    """Whether a policy (its :class:`TrainedTable`, or its checkpoint's payload) was trained
    at this table: the same game, equal ``Rules`` (a sheet with overrides that make the
    same fields is the same table) and ``num_players`` among its player counts. A file
    that does not record its table fits none."""
    if isinstance(trained, dict):
        trained = trained_table(trained)
    return (trained.game == as_game(game).name and trained.rules is not None and trained.rules == rules
            and num_players in trained.players)


def misfit_note(spec: str, trained: "TrainedTable | dict", game: "Game | str", rules: Any, num_players: int,
                preset: str | None = None) -> str | None:
    """``"ppo:X was trained at classic, 4 players; this table is fem_opp, 5 players"``, or
    None when the policy was trained at this table (:func:`fits_table`). ``preset``: the
    sheet the table was asked for (default: the sheet nearest ``rules``); the fields
    ``rules`` change on it are named."""
    if isinstance(trained, dict):
        trained = trained_table(trained)
    if fits_table(trained, game, rules, num_players):
        return None
    if preset is None:
        preset, overrides = rules_sheet(game, rules)
    else:
        sheet = dataclasses.asdict(as_game(game).make_rules(preset))
        overrides = {k: v for k, v in dataclasses.asdict(rules).items() if sheet.get(k) != v}
    return f"{spec} was trained at {trained.text()}; this table is {table_text(preset, overrides, num_players)}"


def spec_table(spec: str) -> TrainedTable | None:
    """The table the policy of a ``ppo`` spec was trained at (None: another bot's spec);
    ``ValueError`` for a checkpoint that cannot be read, as building the bot would be."""
    parsed = parse_spec(spec)
    checkpoint = parsed.args[0] if parsed.args else parsed.kwargs.get("checkpoint")
    if parsed.name != "ppo" or checkpoint is None:
        return None
    return trained_table(read_payload(resolve_checkpoint(str(checkpoint))))


def table_notes(specs: Iterable[Any], game: "Game | str", rules: Any, num_players: int,
                preset: str | None = None) -> list[str]:
    """:func:`misfit_note` for every ``ppo`` spec among ``specs`` (once each) whose policy
    was not trained at this table; other specs and bot objects are passed over."""
    notes = []
    for spec in dict.fromkeys(s for s in specs if isinstance(s, str)):
        trained = spec_table(spec)
        note = misfit_note(spec, trained, game, rules, num_players, preset) if trained is not None else None
        if note is not None:
            notes.append(note)
    return notes


def shown_path(path: Path) -> str:
    """A checkpoint as its errors name it: a shipped one by its name (an error never shows
    where the package is installed), one of a bot folder by its place in the folder (nor
    where a server keeps its folders), another by the path it was given."""
    if path.parent == PRETRAINED_DIR:
        return f"shipped policy {path.stem}"
    for folder in _bot_folders:
        if path.is_relative_to(folder):
            return f"policy {path.relative_to(folder)} of a bot folder"
    return str(path)


def read_payload(path: Path, device: str = "cpu") -> dict:
    """A checkpoint file's contents, unpickled with ``weights_only=True``: a file holding
    anything but tensors and plain data is refused (``ValueError``) without running it."""
    try:
        return torch.load(path, map_location=device, weights_only=True)
    except pickle.UnpicklingError as exc:
        if "weights only" in str(exc).lower() or "weights_only" in str(exc).lower():
            raise ValueError(f"{shown_path(path)} was refused: it holds objects other than tensors and plain data "
                             f"(an old or crafted file; unpickling it could run code)") from None
        raise ValueError(f"{shown_path(path)} is corrupt or not a torch checkpoint: {exc}") from None
    except Exception as exc:  # torch raises many kinds for a damaged file
        raise ValueError(f"{shown_path(path)} is corrupt or not a torch checkpoint: {exc}") from None


def load_checkpoint(name_or_path: str, device: str = "cpu") -> tuple[PolicyNet, dict]:
    """The network and the checkpoint's metadata; ``ValueError`` for an unsafe, corrupt or
    mismatched file, for non-finite weights, and for a policy trained under another prior
    bot, hand-evaluation table or observation layout than this code's (its play would
    change silently)."""
    path = resolve_checkpoint(str(name_or_path))
    payload = read_payload(path, device)
    where = shown_path(path)
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ValueError(f"{where} is not a redbeard PPO checkpoint (no format tag {FORMAT!r})")
    if payload.get("version") != VERSION:
        raise ValueError(f"{where} has checkpoint version {payload.get('version')}, this code reads {VERSION} "
                         f"(version 2 files do not record the prior bot, table and layout they were trained with)")
    try:
        game = game_of_data(payload)  # files from before games had names: LEGACY_GAME's
        size, num_actions = feature_size(game), game.num_actions
    except ValueError as exc:
        raise ValueError(f"{where} is for a game this code does not have: {exc}") from None
    if payload.get("obs_size") != size or payload.get("num_actions") != num_actions:
        raise ValueError(
            f"{where} was trained on observations of size {payload.get('obs_size')} / "
            f"{payload.get('num_actions')} actions; this code feeds {size} / {num_actions}"
        )
    prior = payload.get("prior", "")
    try:
        check_prior(prior, game)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    recorded, current = payload.get("identity") or {}, behaviour_identity(prior, game)
    differ = [k for k in current if recorded.get(k) != current[k]]
    if differ:
        what = "; ".join(f"{k}: trained with {recorded.get(k)!r}, this code has {current[k]!r}" for k in differ)
        raise ValueError(f"{where} would not play as trained: {what}")
    state = payload.get("state_dict")
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"{where}: state_dict must map names to tensors")
    for name, tensor in state.items():
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise ValueError(f"{where}: tensor {name!r} holds non-finite values (NaN or inf)")
    hidden = payload.get("hidden")
    if not (isinstance(hidden, list) and 1 <= len(hidden) <= MAX_LAYERS
            and all(isinstance(w, int) and not isinstance(w, bool) and 1 <= w <= MAX_WIDTH for w in hidden)):
        raise ValueError(f"{where}: hidden must be 1..{MAX_LAYERS} layer widths in 1..{MAX_WIDTH}, got {str(hidden)[:80]}")
    critic, belief = payload.get("critic", "shared"), payload.get("belief", False)  # older files: the defaults
    if critic not in CRITICS or not isinstance(belief, bool):
        raise ValueError(f"{where}: critic must be one of {CRITICS} and belief true or false, "
                         f"got {str(critic)[:40]!r}, {str(belief)[:40]!r}")
    try:
        net = policy_from_weights(state, tuple(hidden), prior, game, critic=critic, belief=belief)
    except (RuntimeError, KeyError) as exc:
        raise ValueError(f"{where}: weights do not match the recorded architecture: {exc}") from exc
    return net.to(device).eval(), payload


def policy_from_weights(state_dict: dict, hidden: tuple[int, ...], prior: str, game: "Game | str" = LEGACY_GAME,
                        critic: str = "shared", belief: bool = False) -> PolicyNet:
    """A network with these weights, built without touching the global torch generator:
    its layers are made on the meta device (no random initialisation, which the weights
    would overwrite at once), then given memory. Drawing would make a resumed training run
    diverge from an uninterrupted one, and saving and restoring the generator around the
    draws races when rollout threads build snapshots at the same time."""
    with torch.device("meta"):
        net = PolicyNet(hidden=tuple(hidden), prior=prior, game=game, critic=critic, belief=belief)
    # shapes first, on the meta device: a file whose widths disagree with its weights is
    # refused before any memory is taken for it
    want = {k: tuple(v.shape) for k, v in net.state_dict().items()}
    got = {k: tuple(v.shape) for k, v in state_dict.items()}
    if want != got:
        diff = sorted(set(want) ^ set(got)) or [k for k in want if want[k] != got[k]]
        raise RuntimeError(f"the weights do not fit hidden={list(hidden)}: {diff[0]} "
                           f"(expected {want.get(diff[0])}, got {got.get(diff[0])})")
    net = net.to_empty(device="cpu")
    net.load_state_dict(state_dict)
    return net


#: networks kept for sharing (:func:`shared_policy`): the least recently used is dropped beyond it
MAX_SHARED_POLICIES = 8
_shared: OrderedDict[tuple, tuple[PolicyNet, dict]] = OrderedDict()
_shared_lock = threading.Lock()


def shared_policy(name_or_path: str, device: str = "cpu") -> tuple[PolicyNet, dict]:
    """:func:`load_checkpoint`'s network and metadata (without the weights' copy), shared by
    every bot of the same file: 200 ``ppo:classic_4p,seed=N`` bots hold one network. Keyed
    by the file (resolved path, inode, size, modification time: a rewritten file is loaded
    afresh) and device; at most :data:`MAX_SHARED_POLICIES` networks are kept (a bot holds
    its own after its entry is dropped). The network is for playing only: nothing may
    train or change it."""
    path = resolve_checkpoint(str(name_or_path)).resolve()
    try:
        stat = path.stat()
    except OSError as exc:
        raise ValueError(f"{shown_path(path)} cannot be read: {exc.strerror}") from None
    key = (str(path), stat.st_ino, stat.st_size, stat.st_mtime_ns, device)
    with _shared_lock:
        if key in _shared:
            _shared.move_to_end(key)
            return _shared[key]
    net, payload = load_checkpoint(name_or_path, device)
    net.requires_grad_(False)
    entry = (net, {k: v for k, v in payload.items() if k != "state_dict"})
    with _shared_lock:
        entry = _shared.setdefault(key, entry)  # another thread may have loaded it meanwhile
        _shared.move_to_end(key)
        while len(_shared) > MAX_SHARED_POLICIES:
            _shared.popitem(last=False)
    return entry


class PPOAgent(Agent):
    """A trained policy behind the bot interface. ``greedy`` picks the most likely legal
    action (default); otherwise actions are sampled with a seeded generator. Bots of one
    checkpoint share its network (:func:`shared_policy`)."""

    #: the spec's parameters (agents.params)
    PARAMS = {
        "checkpoint": Text(help="a policy's name (shipped, or in a --bots folder) or a checkpoint's path"),
        "greedy": Bool(help="play the most likely action (else sample, seeded)"),
        "seed": SEED,
        "device": Choice("cpu", "cuda", *(f"cuda:{i}" for i in range(16)), shown="'cpu' or 'cuda[:N]'",
                         help="where the network runs"),
    }
    COST = 5.0  # cost units (agents.params): a decision among many in a batch

    def __init__(self, checkpoint: str, greedy: bool = True, seed: int = 0, device: str = "cpu",
                 game: "Game | str | None" = None):
        if not isinstance(greedy, bool):
            raise ValueError(f"greedy must be True or False, got {str(greedy)[:40]!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise ValueError(f"seed must be an int in 0..2**63-1, got {str(seed)[:40]!r}")
        device = check_device(device)
        self.net, self.meta = shared_policy(checkpoint, device)
        self.game = self.net.game
        if game is not None and as_game(game).name != self.game:
            raise ValueError(f"ppo:{str(checkpoint)[:100]} plays {self.game}, this table plays {as_game(game).name}")
        self.device = device
        self.greedy = greedy
        self.generator = torch.Generator(device=device).manual_seed(seed)
        self.name = f"ppo:{checkpoint}"

    @torch.no_grad()
    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs, legal = check_batch(obs, mask, self.game)  # 0/1 masks, one per observation, finite values in bounds
        o = torch.as_tensor(self.net.features(obs, legal), device=self.device)
        m = torch.as_tensor(legal, device=self.device)
        action, _, _ = self.net.act(o, m, greedy=self.greedy, generator=self.generator)
        return action.cpu().numpy()

    def __repr__(self) -> str:
        return f"PPOAgent({self.name!r}, greedy={self.greedy})"


