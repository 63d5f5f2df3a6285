"""The games of the family: each registered once, every layer asks here.

```python
import redbeard_env
redbeard_env.registered_games()              # ('redbeard', 'sortskaeg')
env = redbeard_env.make("sortskaeg", num_players=4)   # that game's AEC env
game = redbeard_env.game_named("sortskaeg")  # everything else about it (a Game)
```

A game lives in one folder, ``redbeard_env/<name>/``, whose package defines ``GAME``, its
:class:`Game`: the rules modules (``parts``), the AEC env, the batch engine and the
tournaments' batch engines, game records, and where the layers above find the rest of it
(its bots, its tournament metrics and its table views, named by module path so that this
layer imports none of them). Adding a game is its folder, its bots' folder and one line in
:data:`GAME_PACKAGES`. Tests run the shared checks over :func:`registered_games`.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

from .parts import GameParts

#: game name -> the package of its folder (which defines ``GAME``); one line per game
GAME_PACKAGES: dict[str, str] = {
    "redbeard": "redbeard_env.redbeard",
    "sortskaeg": "redbeard_env.sortskaeg",
    "oh_hell": "redbeard_env.oh_hell",
}

__all__ = ["Game", "GAME_PACKAGES", "registered_games", "game_named", "game_of_rules", "game_of_preset", "make",
           "load_object"]


@dataclass(frozen=True)
class Game:
    """One game of the family as every layer needs it. Rules-level facts are read from
    ``parts`` (the game's ``rules``, ``cards``, ``observation`` and ``game`` modules);
    strings name objects of the layers above as ``"module:attribute"``."""

    name: str  # registry name, e.g. "sortskaeg"; also the ``game`` of its bots and checkpoints
    title: str  # how people write it, e.g. "Sortskæg"
    parts: GameParts
    env: Callable[..., Any]  # env(num_players=..., rules=..., render_mode=..., **overrides): the wrapped AEC env
    raw_env: type
    vector_env: type  # the batch engine (SPEC §3b contract)
    engines: dict  # "vector" / "reference" -> BatchEngine subclass (redbeard_env.engine)
    round_keys: tuple[str, ...]  # the per-round events its batch engines report
    records: ModuleType | None  # game records: Recorder, replay, check_structure, ... (redbeard_env.records)
    default_rules: str  # the preset used when none is named
    deck_size: int  # cards in one deck row of a tournament's Job.decks
    deck_parts: int  # permutations per deck row (Rödskägg: deck + reshuffle order = 2)
    decks_per_game: Callable[[Any], int]  # deals a tournament fixes per game, from the Rules
    start_score: Callable[[Any], int]  # a seat's score at the start of a game, from the Rules
    bots: str  # module of its bots: BOTS maps bot name -> "module:factory" (agents.registry)
    metrics: str  # "module:Class" of its tournament metrics (redbeard_eval.metrics protocol)
    views: str  # module of its table views: the web table and the terminal game (redbeard_web)

    @classmethod
    def in_folder(cls, package: str, *, title: str, parts: GameParts, default_rules: str, deck_parts: int,
                  decks_per_game: Callable[[Any], int], start_score: Callable[[Any], int]) -> "Game":
        """A game laid out as docs/architecture.md says: its folder ``package``
        (``redbeard_env.<name>``) holds ``env.py`` (``env``, ``raw_env``), ``vector.py``
        (``VectorEnv``), ``engine.py`` (``ENGINES``, ``ROUND_KEYS``), ``records.py``,
        ``metrics.py`` (``Records``) and ``views.py``; its bots are ``agents.<name>``."""
        name = package.rsplit(".", 1)[-1]
        env, vector, engine = (importlib.import_module(f"{package}.{m}") for m in ("env", "vector", "engine"))
        return cls(name=name, title=title, parts=parts, env=env.env, raw_env=env.raw_env, vector_env=vector.VectorEnv,
                   engines=engine.ENGINES, round_keys=engine.ROUND_KEYS,
                   records=importlib.import_module(f"{package}.records"), default_rules=default_rules,
                   deck_size=parts.cards.NUM_CARDS, deck_parts=deck_parts, decks_per_game=decks_per_game,
                   start_score=start_score, bots=f"agents.{name}", metrics=f"{package}.metrics:Records",
                   views=f"{package}.views")

    # ---------------------------------------------------------------- derived from the rules modules
    @property
    def rules_type(self) -> type:
        return self.parts.rules.Rules

    @property
    def presets(self) -> dict:
        return self.parts.rules.PRESETS

    def make_rules(self, rules: Any = None, **overrides: Any) -> Any:
        """The game's ``Rules`` from a preset name (None: the default), a ``Rules`` or a
        mapping of fields, plus overrides; ``ValueError`` naming a bad field or value."""
        return self.parts.rules.make_rules(self.default_rules if rules is None else rules, **overrides)

    def check_num_players(self, num_players: Any, rules: Any) -> int:
        return self.parts.rules.check_num_players(num_players, rules)

    @property
    def player_range(self) -> tuple[int, int]:
        return self.parts.rules.MIN_PLAYERS, self.parts.rules.MAX_PLAYERS

    @property
    def num_actions(self) -> int:
        return self.parts.cards.NUM_ACTIONS

    @property
    def obs_size(self) -> int:
        return self.parts.observation.OBS_SIZE

    def action_name(self, action: int) -> str:
        return self.parts.cards.action_name(action)

    def action_id(self, name: str) -> int:
        return self.parts.cards.action_id(name)

    def card_name(self, card: int) -> str:
        return self.parts.cards.card_name(card)

    def parse_card(self, text: Any) -> int:
        return self.parts.cards.parse_card(text)


def registered_games() -> tuple[str, ...]:
    """The names of every registered game, in registration order."""
    return tuple(GAME_PACKAGES)


@functools.cache
def _load(name: str) -> Game:
    game = importlib.import_module(GAME_PACKAGES[name]).GAME
    assert isinstance(game, Game) and game.name == name, (name, game)
    return game


def game_named(name: Any) -> Game:
    """The :class:`Game` registered as ``name``; ``ValueError`` listing the games otherwise."""
    if not isinstance(name, str) or name not in GAME_PACKAGES:
        raise ValueError(f"game must be one of {', '.join(map(repr, GAME_PACKAGES))}, got {str(name)[:100]!r}")
    return _load(name)


def game_of_rules(rules: Any) -> Game:
    """The game a ``Rules`` value belongs to (each game has its own ``Rules`` type)."""
    for name in GAME_PACKAGES:
        game = _load(name)
        if isinstance(rules, game.rules_type):
            return game
    raise ValueError(f"not the Rules of any game: {str(rules)[:80]!r}")


def game_of_preset(preset: str) -> Game:
    """The game whose presets include ``preset`` (preset names are unique across games)."""
    for name in GAME_PACKAGES:
        game = _load(name)
        if preset in game.presets:
            return game
    known = [p for name in GAME_PACKAGES for p in _load(name).presets]
    raise ValueError(f"unknown rules preset {str(preset)[:100]!r}; allowed: {', '.join(map(repr, known))}")


def make(name: str, **kwargs: Any) -> Any:
    """The AEC env of the game ``name``: ``make("sortskaeg", num_players=4, rules="sortskaeg")``
    (``num_players``, ``rules``, ``render_mode``, ``reward`` and Rules field overrides, as
    the game's own ``env`` takes them)."""
    return game_named(name).env(**kwargs)


def load_object(path: str) -> Any:
    """The object a ``"module:attribute"`` string names (a Game's ``bots`` / ``metrics`` /
    ``views`` entries point into the layers above)."""
    module, _, attr = path.partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, attr) if attr else obj
