"""The PPO policy: one network for every phase and for 3–7 players.

features [625] -> torso (MLP) -> masked policy logits [69] + value [1]

The features are the observation vector (542), a hand-strength block (14) and a prior
block (69):

* hand strength: the table estimate (:mod:`redbeard_env.redbeard.handeval`) of the probability
  of taking 0..6 tricks with the observer's hand as declarer (7) and as a follower (7),
  under the game's leader rule and player count, while the hand holds all six cards
  (zeros afterwards). Bidding most needs this and is the hardest to learn from 52 card
  bits alone.
* prior (``prior="heuristic"``; zeros without a prior): the ``heuristic`` bot's utility
  of each action relative to its best legal one, ``clip(u - max u, -10, 0) / 10``
  (illegal actions -1). The network adds ``a * 10 * prior + b * [the bot's choice]`` to
  its logits, with learned scales ``a, b`` (``prior_log_scale``): a policy that starts as
  a softened copy of the bot and learns corrections on top (residual policy learning).
  The torso sees the block too, so the corrections can depend on how close the bot's
  options are.

Illegal actions get the dtype's most negative logit before the softmax, so sampling can
never pick one (a row with no legal action is an error, not a silent fallback).

A checkpoint is a self-describing dict saved with ``torch.save``::

    {"format": "redbeard-ppo", "version": 3, "obs_size": 625, "num_actions": 69,
     "hidden": [256, 256], "prior": "heuristic" or "", "rules": {...Rules fields...}, "num_players": 4 or None,
     "identity": {"prior_spec": "heuristic:win_value=10.0,...", "handeval_table": <hash>, "obs_layout": <hash>},
     "config": {...training config...}, "state_dict": {...}, "meta": {...}}

It holds tensors and plain data only and is read with ``torch.load(weights_only=True)``:
a file with anything else (a pickle that could run code) is refused. Loading also refuses
non-finite weights and a policy whose ``identity`` differs from this code's (another
heuristic default, hand-evaluation table or observation layout would change its play
silently).

Sortskæg (``game: "sortskaeg"`` in the checkpoint; files without the key are Rödskägg's):
features = the Sortskæg observation (671) and the ``sortskaeg_heuristic`` prior block
(50) -> 721, logits [50]; the identity records the prior's spec and the layout (there is
no hand-evaluation table). ``ppo:sortskaeg_4p`` is the shipped Sortskæg policy.

``PPOAgent`` wraps a checkpoint behind the bot interface (``act`` / ``act_batch``) and is
what the registry builds for ``ppo:<path or shipped name>``; shipped checkpoints live in
``agents/pretrained/<name>.pt``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from redbeard_env.redbeard import handeval
from redbeard_env.redbeard.cards import NUM_ACTIONS
from redbeard_env.redbeard.observation import MIN_PLAYERS, OBS_SIZE, OFF, OBS_SLICES, RULES_SIZE
from redbeard_env.redbeard.rules import CHOICES
from redbeard_env.sortskaeg import cards as sortskaeg_cards, observation as sortskaeg_obs

from .base import Agent
from .registry import register

FORMAT = "redbeard-ppo"
VERSION = 3
PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"
HAND_FEATURES = 14
PRIOR_FEATURES = NUM_ACTIONS
FEATURE_SIZE = OBS_SIZE + HAND_FEATURES + PRIOR_FEATURES
PRIOR_OFFSET = OBS_SIZE + HAND_FEATURES
PRIOR_CLIP = 10.0  # utility points below the best action where the prior stops caring
PRIORS = ("", "heuristic")  # "" = no prior
_prior_bots: dict[str, Any] = {}

# Sortskæg's policies (game "sortskaeg"): features = observation (671) + prior block (50).
S_OBS_SIZE, S_NUM_ACTIONS = sortskaeg_obs.OBS_SIZE, sortskaeg_cards.NUM_ACTIONS
GAMES = {
    # game: (feature size, actions, priors, feature description)
    "redbeard": (FEATURE_SIZE, NUM_ACTIONS, PRIORS, "observation+handeval14+prior69"),
    "sortskaeg": (S_OBS_SIZE + S_NUM_ACTIONS, S_NUM_ACTIONS, ("", "sortskaeg_heuristic"), "observation+prior50"),
}


def check_game(game: str) -> str:
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; allowed: {', '.join(map(repr, GAMES))}")
    return game


def prior_game(prior: str) -> str:
    """The game a prior bot plays (``""``: Rödskägg's default)."""
    return "sortskaeg" if prior == "sortskaeg_heuristic" else "redbeard"
# where the leader rule sits in the observation's rules block (categoricals in CHOICES order)
_LEADER_COL = OFF["rules"] + sum(len(v) for k, v in CHOICES.items() if list(CHOICES).index(k) < list(CHOICES).index("leader"))
assert _LEADER_COL + len(CHOICES["leader"]) <= OFF["rules"] + RULES_SIZE


def check_prior(prior: str, game: str = "redbeard") -> str:
    priors = GAMES[check_game(game)][2]
    if prior not in priors:
        raise ValueError(f"unknown policy prior {prior!r} for {game}; allowed: {', '.join(repr(p) for p in priors)}")
    return prior


def prior_agent(prior: str):
    """The bot behind a prior (one shared, deterministic instance per name)."""
    if check_prior(prior, prior_game(prior)) and prior not in _prior_bots:
        if prior == "sortskaeg_heuristic":
            from .sortskaeg.heuristic import SortskaegHeuristic

            _prior_bots[prior] = SortskaegHeuristic()
        else:
            from .redbeard.heuristic import HeuristicAgent

            _prior_bots[prior] = HeuristicAgent()
    return _prior_bots[prior]


def prior_block(obs: np.ndarray, mask: np.ndarray, prior: str, values: np.ndarray | None = None) -> np.ndarray:
    """float32 [B, A]: the prior bot's action utilities relative to its best legal
    action, in [-1, 0]; exactly 0 only at the bot's choice (see the module docstring).
    ``values`` are the bot's ``action_values`` for these rows when the caller already has
    them (train.py shares one call between the prior and heuristic opponents)."""
    actions = GAMES[prior_game(prior)][1]
    if values is None:
        values = prior_agent(prior).action_values(obs, mask)
    elif values.shape != (len(obs), actions):
        raise ValueError(f"prior values must have shape {(len(obs), actions)}, got {values.shape}")
    best = values.argmax(1)
    rel = values - values[np.arange(len(values)), best][:, None]
    # only the bot's own choice sits at 0 (ties broken as it does); illegal actions at -1
    rel = np.clip(np.nan_to_num(rel, neginf=-PRIOR_CLIP), -PRIOR_CLIP, -1e-6)
    rel[np.arange(len(rel)), best] = 0.0
    return (rel / PRIOR_CLIP).astype(np.float32)


def policy_features(obs: np.ndarray, mask: np.ndarray | None = None, prior: str = "",
                    prior_values: np.ndarray | None = None, game: str = "redbeard") -> np.ndarray:
    """Observation [B, 542] (and the action mask [B, 69], needed with a prior) -> network
    input [B, 625] (see the module docstring). ``prior_values``: the prior bot's
    ``action_values`` for these rows, if already computed. Sortskæg (``game="sortskaeg"``):
    observation [B, 671] -> [B, 721], the observation and the prior block."""
    if check_game(game) == "sortskaeg":
        return _sortskaeg_features(obs, mask, prior, prior_values)
    obs = np.asarray(obs, dtype=np.float32)
    out = np.zeros((len(obs), FEATURE_SIZE), dtype=np.float32)
    out[:, :OBS_SIZE] = obs
    if check_prior(prior):
        if mask is None:
            raise ValueError(f"the {prior!r} prior needs the action mask")
        if len(obs):
            out[:, PRIOR_OFFSET:] = prior_block(obs, mask, prior, prior_values)
    hands = obs[:, OBS_SLICES["hand"]] > 0.5
    full = np.flatnonzero(hands.sum(1) == 6)
    if len(full) == 0:
        return out
    players = MIN_PLAYERS + obs[full, OBS_SLICES["num_players"]].argmax(1)
    trick_winner = obs[full, _LEADER_COL + CHOICES["leader"].index("trick_winner")] > 0.5
    for n in np.unique(players):
        for tw in (False, True):
            rows = full[(players == n) & (trick_winner == tw)]
            if len(rows):
                leader = "trick_winner" if tw else "declarer"
                out[rows, OBS_SIZE : OBS_SIZE + 7] = handeval.trick_distribution(hands[rows], int(n), "declarer", leader=leader)
                out[rows, OBS_SIZE + 7 : PRIOR_OFFSET] = handeval.trick_distribution(hands[rows], int(n), "follower", leader=leader)
    return out


def _sortskaeg_features(obs, mask, prior: str, prior_values) -> np.ndarray:
    obs = np.asarray(obs, dtype=np.float32)
    size = GAMES["sortskaeg"][0]
    out = np.zeros((len(obs), size), dtype=np.float32)
    out[:, :S_OBS_SIZE] = obs
    if check_prior(prior, "sortskaeg"):
        if mask is None:
            raise ValueError(f"the {prior!r} prior needs the action mask")
        if len(obs):
            out[:, S_OBS_SIZE:] = prior_block(obs, mask, prior, prior_values)
    return out


def _layer(n_in: int, n_out: int, gain: float) -> nn.Linear:
    layer = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


class PolicyNet(nn.Module):
    """Shared torso with a policy head and a value head (CleanRL-style initialisation),
    plus the learned prior scales when ``prior`` is set."""

    def __init__(self, obs_size: int | None = None, hidden: tuple[int, ...] = (256, 256),
                 num_actions: int | None = None, prior: str = "", prior_scale: float = 2.0, game: str = "redbeard"):
        super().__init__()
        self.game = check_game(game)
        obs_size = GAMES[game][0] if obs_size is None else obs_size
        num_actions = GAMES[game][1] if num_actions is None else num_actions
        self.obs_size, self.hidden, self.num_actions = obs_size, tuple(hidden), num_actions
        self.prior_offset = obs_size - num_actions  # the prior block closes the features
        self.prior = check_prior(prior, game)
        if self.prior:
            if not prior_scale > 0:
                raise ValueError(f"prior_scale must be > 0, got {prior_scale}")
            self.prior_log_scale = nn.Parameter(torch.full((2,), float(np.log(prior_scale))))
        layers: list[nn.Module] = []
        n_in = obs_size
        for width in hidden:
            layers += [_layer(n_in, width, np.sqrt(2)), nn.Tanh()]
            n_in = width
        self.torso = nn.Sequential(*layers)
        self.policy = _layer(n_in, num_actions, 0.01)
        self.value = _layer(n_in, 1, 1.0)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor,
                prior_block: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits [B, A] and values [B]. Features in bfloat16 go through the first
        layer in bfloat16 (weights rounded to it, products summed in float32 by the matrix
        units) and the rest in float32; the prior's block then comes as ``prior_block`` in
        float32, since it enters the logits directly."""
        if obs.dtype == torch.bfloat16:
            first = self.torso[0]
            h = self.torso[1:](nn.functional.linear(obs, first.weight.to(obs.dtype)).float() + first.bias)
        else:
            h = self.torso(obs)
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
        return logits, self.value(h).squeeze(-1)

    def features(self, obs: np.ndarray, mask: np.ndarray, prior_values: np.ndarray | None = None) -> np.ndarray:
        """This network's input for observations and masks (numpy, float32)."""
        return policy_features(obs, mask, self.prior, prior_values, self.game)

    def act(self, obs: torch.Tensor, mask: torch.Tensor, greedy: bool = False, generator=None):
        """Sample (or argmax) legal actions; returns actions, log-probs, values."""
        if not bool(mask.any(-1).all()):
            raise ValueError("a row of the action mask has no legal action")
        logits, value = self(obs, mask)
        logp_all = torch.log_softmax(logits, -1)
        # softmax, not logp_all.exp(): exp of the masked entries (far below -87) takes the
        # CPU's slow underflow path, ~50x the time of the whole softmax
        action = logits.argmax(-1) if greedy else sample_actions(torch.softmax(logits, -1), generator)
        return action, logp_all.gather(-1, action[:, None]).squeeze(-1), value


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
def prior_spec(prior: str) -> str:
    """The prior bot's full spec, every parameter spelled out (``heuristic:win_value=10.0,...``):
    a checkpoint's play depends on all of them, so it records them."""
    if not check_prior(prior, prior_game(prior)):
        return ""
    import inspect

    if prior == "sortskaeg_heuristic":
        from .sortskaeg.heuristic import SortskaegHeuristic as bot
    else:
        from .redbeard.heuristic import HeuristicAgent as bot

    params = inspect.signature(bot).parameters
    items = [f"{k}={p.default!r}" for k, p in params.items() if k not in ("rules", "seed")]
    return f"{prior}:" + ",".join(items)


def _digest(text: "str | bytes") -> str:
    return hashlib.sha256(text if isinstance(text, bytes) else text.encode()).hexdigest()[:16]


def behaviour_identity(prior: str, game: str = "redbeard") -> dict[str, str]:
    """What a policy's play depends on besides its weights, as this code has it: the prior
    bot's full spec, the hand-evaluation table (hash of its file; Rödskägg only) and the
    observation and feature layout (hash of the blocks' names and places)."""
    if check_game(game) == "sortskaeg":
        layout = ";".join(f"{name}:{sl.start}:{sl.stop}" for name, sl in sortskaeg_obs.OBS_SLICES.items())
        return {"prior_spec": prior_spec(prior),
                "obs_layout": _digest(f"sortskaeg|{layout}|features:{GAMES[game][0]}:prior:{S_NUM_ACTIONS}")}
    layout = ";".join(f"{name}:{sl.start}:{sl.stop}" for name, sl in OBS_SLICES.items())
    return {
        "prior_spec": prior_spec(prior),
        "handeval_table": _digest(Path(handeval.TABLE_PATH).read_bytes()),
        "obs_layout": _digest(f"{layout}|features:{FEATURE_SIZE}:{HAND_FEATURES}:{PRIOR_FEATURES}"),
    }


def save_checkpoint(path: "str | Path", net: PolicyNet, *, rules=None, num_players=None,
                    config: dict | None = None, meta: dict | None = None) -> None:
    """Write a policy checkpoint (plain data and tensors only; see the module docstring)."""
    payload = {
        "format": FORMAT,
        "version": VERSION,
        "game": net.game,
        "features": GAMES[net.game][3],
        "prior": net.prior,
        "identity": behaviour_identity(net.prior, net.game),
        "obs_size": net.obs_size,
        "num_actions": net.num_actions,
        "hidden": list(net.hidden),
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


def resolve_checkpoint(name_or_path: str) -> Path:
    """A path, or the name of a shipped checkpoint (``classic_4p``)."""
    path = Path(name_or_path)
    if path.is_file():
        return path
    shipped = PRETRAINED_DIR / f"{name_or_path}.pt"
    if shipped.is_file():
        return shipped
    names = sorted(p.stem for p in PRETRAINED_DIR.glob("*.pt"))
    raise ValueError(
        f"no PPO checkpoint {name_or_path!r}: not a file, and not a shipped name "
        f"(shipped: {', '.join(names) or 'none'})"
    )


def read_payload(path: Path, device: str = "cpu") -> dict:
    """A checkpoint file's contents, unpickled with ``weights_only=True``: a file holding
    anything but tensors and plain data is refused (``ValueError``) without running it."""
    try:
        return torch.load(path, map_location=device, weights_only=True)
    except pickle.UnpicklingError as exc:
        if "weights only" in str(exc).lower() or "weights_only" in str(exc).lower():
            raise ValueError(f"{path} was refused: it holds objects other than tensors and plain data "
                             f"(an old or crafted file; unpickling it could run code)") from None
        raise ValueError(f"{path} is corrupt or not a torch checkpoint: {exc}") from None
    except Exception as exc:  # torch raises many kinds for a damaged file
        raise ValueError(f"{path} is corrupt or not a torch checkpoint: {exc}") from None


def load_checkpoint(name_or_path: str, device: str = "cpu") -> tuple[PolicyNet, dict]:
    """The network and the checkpoint's metadata; ``ValueError`` for an unsafe, corrupt or
    mismatched file, for non-finite weights, and for a policy trained under another prior
    bot, hand-evaluation table or observation layout than this code's (its play would
    change silently)."""
    path = resolve_checkpoint(str(name_or_path))
    payload = read_payload(path, device)
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ValueError(f"{path} is not a redbeard PPO checkpoint (no format tag {FORMAT!r})")
    if payload.get("version") != VERSION:
        raise ValueError(f"{path} has checkpoint version {payload.get('version')}, this code reads {VERSION} "
                         f"(version 2 files do not record the prior bot, table and layout they were trained with)")
    game = payload.get("game", "redbeard")  # files from before Sortskæg are Rödskägg's
    if game not in GAMES:
        raise ValueError(f"{path} is for an unknown game {game!r}; allowed: {', '.join(GAMES)}")
    feature_size, num_actions, priors, _ = GAMES[game]
    if payload.get("obs_size") != feature_size or payload.get("num_actions") != num_actions:
        raise ValueError(
            f"{path} was trained on observations of size {payload.get('obs_size')} / "
            f"{payload.get('num_actions')} actions; this code feeds {feature_size} / {num_actions}"
        )
    prior = payload.get("prior", "")
    if prior not in priors:
        raise ValueError(f"{path} names an unknown prior {prior!r}; allowed: {priors}")
    recorded, current = payload.get("identity") or {}, behaviour_identity(prior, game)
    differ = [k for k in current if recorded.get(k) != current[k]]
    if differ:
        what = "; ".join(f"{k}: trained with {recorded.get(k)!r}, this code has {current[k]!r}" for k in differ)
        raise ValueError(f"{path} would not play as trained: {what}")
    state = payload.get("state_dict")
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"{path}: state_dict must map names to tensors")
    for name, tensor in state.items():
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise ValueError(f"{path}: tensor {name!r} holds non-finite values (NaN or inf)")
    try:
        net = policy_from_weights(state, tuple(payload["hidden"]), prior, game)
    except (RuntimeError, KeyError) as exc:
        raise ValueError(f"{path}: weights do not match the recorded architecture: {exc}") from exc
    return net.to(device).eval(), payload


def policy_from_weights(state_dict: dict, hidden: tuple[int, ...], prior: str, game: str = "redbeard") -> PolicyNet:
    """A network with these weights, built without touching the global torch generator:
    its layers are made on the meta device (no random initialisation, which the weights
    would overwrite at once), then given memory. Drawing would make a resumed training run
    diverge from an uninterrupted one, and saving and restoring the generator around the
    draws races when rollout threads build snapshots at the same time."""
    with torch.device("meta"):
        net = PolicyNet(hidden=tuple(hidden), prior=prior, game=game)
    net = net.to_empty(device="cpu")
    net.load_state_dict(state_dict)
    return net


class PPOAgent(Agent):
    """A trained policy behind the bot interface. ``greedy`` picks the most likely legal
    action (default); otherwise actions are sampled with a seeded generator."""

    def __init__(self, checkpoint: str, greedy: bool = True, seed: int = 0, device: str = "cpu"):
        self.net, self.meta = load_checkpoint(checkpoint, device)
        self.game = self.net.game  # tournaments check it against theirs
        self.device = device
        self.greedy = greedy
        self.generator = torch.Generator(device=device).manual_seed(seed)
        self.name = f"ppo:{checkpoint}"

    @torch.no_grad()
    def act_batch(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        o = torch.as_tensor(self.net.features(obs, mask), device=self.device)
        m = torch.as_tensor(np.asarray(mask), device=self.device).bool()
        action, _, _ = self.net.act(o, m, greedy=self.greedy, generator=self.generator)
        return action.cpu().numpy()

    def __repr__(self) -> str:
        return f"PPOAgent({self.name!r}, greedy={self.greedy})"


register("ppo", PPOAgent)

