"""The games of the family: each registered once, every layer asks here.

```python
import redbeard_env
redbeard_env.registered_games()              # ('redbeard', 'sortskaeg', 'oh_hell')
env = redbeard_env.make("sortskaeg", num_players=4)   # that game's AEC env
game = redbeard_env.game_named("sortskaeg")  # everything else about it (a Game)
redbeard_env.register(my_game)               # a game defined elsewhere (a plug-in's, a test's)
```

A game lives in one folder, ``redbeard_env/<name>/``, whose package defines ``GAME``, its
:class:`Game`: the rules modules (``parts``), the AEC env, the tournaments' batch engines
(and, optionally, a compiled batch engine), game records, and where the layers above find
the rest of it (its bots, its tournament metrics and its table views, named by module path
so that this layer imports none of them). What each part must provide is a typed contract
(:mod:`redbeard_env.contract`), checked when the game registers: a shipped game on its
first use (one line in :data:`GAME_PACKAGES`), any other with :func:`register`. Tests run
the shared checks over :func:`registered_games`.

An entry point (a command line, a web route, ``make``, ``make_agent``, a tournament, the
trainer) turns the name it is given into the :class:`Game` once (:func:`game_named`,
:func:`as_game`) and passes the object down. Calls and files from before games had names
(a record or checkpoint without ``"game"``) mean :data:`LEGACY_GAME`, read in one place:
:func:`as_game` and :func:`game_of_data`.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Mapping

from .parts import GameParts

#: game name -> the package of its folder (which defines ``GAME``); one line per shipped game
GAME_PACKAGES: dict[str, str] = {
    "redbeard": "redbeard_env.redbeard",
    "sortskaeg": "redbeard_env.sortskaeg",
    "oh_hell": "redbeard_env.oh_hell",
}
#: the game of calls and files from before games had names (SPEC §3's env is its)
LEGACY_GAME = "redbeard"
#: games registered at run time (:func:`register`), in registration order
_REGISTERED: dict[str, "Game"] = {}

__all__ = ["Game", "GAME_PACKAGES", "LEGACY_GAME", "registered_games", "register", "game_named", "as_game",
           "game_of_data", "game_of_rules", "game_of_preset", "make", "load_object", "check_game"]


@dataclass(frozen=True, eq=False)
class Game:
    """One game of the family as every layer needs it. Rules-level facts are read from
    ``parts`` (the game's ``rules``, ``cards``, ``observation`` and ``game`` modules);
    strings name objects of the layers above as ``"module:attribute"``. Each part's
    contract is in :mod:`redbeard_env.contract`."""

    name: str  # registry name, e.g. "sortskaeg"; also the ``game`` of its bots and checkpoints
    title: str  # how people write it, e.g. "Sortskæg"
    parts: GameParts
    env: Callable[..., Any]  # env(num_players=..., rules=..., render_mode=..., **overrides): the wrapped AEC env
    raw_env: type  # a subclass of redbeard_env.aec_base.TableEnv
    engines: dict  # "reference" (and, with a batch engine, "vector") -> BatchEngine subclass (redbeard_env.engine)
    round_keys: tuple[str, ...]  # the per-round events its tournament engines report
    records: ModuleType  # game records: Recorder, replay, check_structure, ... (redbeard_env.records)
    default_rules: str  # the preset used when none is named
    deck_size: int  # cards in one deck row of a tournament's Job.decks
    deck_parts: int  # permutations per deck row (Rödskägg: deck + reshuffle order = 2)
    decks_per_game: Callable[[Any], int]  # deals a tournament fixes per game, from the Rules
    start_score: Callable[[Any], int]  # a seat's score at the start of a game, from the Rules
    bots: str  # module of its bots: BOTS maps bot name -> "module:factory" (agents.registry)
    metrics: str  # "module:Class" of its tournament metrics (redbeard_env.contract.TournamentMetrics)
    views: str  # its table views, a module or "module:object" (redbeard_env.contract.TableViews)
    vector_env: "type | None" = None  # the compiled batch engine (SPEC §3b contract), if it has one

    @classmethod
    def in_folder(cls, package: str, *, title: str, parts: GameParts, default_rules: str, deck_parts: int,
                  decks_per_game: Callable[[Any], int], start_score: Callable[[Any], int], bots: str | None = None,
                  views: str | None = None) -> "Game":
        """A game laid out as docs/architecture.md says: its folder ``package``
        (``redbeard_env.<name>``) holds ``env.py`` (``env``, ``raw_env``), ``engine.py``
        (``ENGINES``, ``ROUND_KEYS``), ``records.py``, ``metrics.py`` (``Records``),
        ``views.py`` and, if the game has a batch engine, ``vector.py`` (``VectorEnv``);
        its bots are ``agents.<name>`` (or ``bots``), its views the module (or ``views``)."""
        name = package.rsplit(".", 1)[-1]
        env, engine = (importlib.import_module(f"{package}.{m}") for m in ("env", "engine"))
        has_vector = importlib.util.find_spec(f"{package}.vector") is not None
        return cls(name=name, title=title, parts=parts, env=env.env, raw_env=env.raw_env,
                   vector_env=importlib.import_module(f"{package}.vector").VectorEnv if has_vector else None,
                   engines=engine.ENGINES, round_keys=engine.ROUND_KEYS,
                   records=importlib.import_module(f"{package}.records"), default_rules=default_rules,
                   deck_size=parts.cards.NUM_CARDS, deck_parts=deck_parts, decks_per_game=decks_per_game,
                   start_score=start_score, bots=bots or f"agents.{name}", metrics=f"{package}.metrics:Records",
                   views=views or f"{package}.views")

    # ---------------------------------------------------------------- the parts named by module path
    @property
    def table_views(self) -> Any:
        """Its table views (the object :attr:`views` names)."""
        return load_object(self.views)

    @property
    def metrics_type(self) -> Any:
        """Its tournament metrics class (:attr:`metrics`)."""
        return load_object(self.metrics)

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
    """The names of every registered game, in registration order (the shipped ones first)."""
    return tuple(GAME_PACKAGES) + tuple(_REGISTERED)


@functools.cache
def _load(name: str) -> Game:
    game = importlib.import_module(GAME_PACKAGES[name]).GAME
    if not isinstance(game, Game) or game.name != name:
        raise ValueError(f"the package {GAME_PACKAGES[name]} must define GAME, the Game named {name!r}")
    check_game(game)
    return game


def register(game: Game) -> Game:
    """Register a game that is not one of :data:`GAME_PACKAGES` (a plug-in's, a test's):
    from then on every layer offers it. It is checked as every game is
    (:func:`check_game`): a ``ValueError`` names the part it lacks, or the name or preset
    another game has already. Returns the game."""
    if not isinstance(game, Game):
        raise ValueError(f"register takes a redbeard_env.registry.Game, got {type(game).__name__}")
    if game.name in GAME_PACKAGES or game.name in _REGISTERED:
        raise ValueError(f"a game named {game.name!r} is registered already")
    check_game(game)
    taken = [p for other in registered_games() for p in game_named(other).presets if p in game.presets]
    if taken:
        raise ValueError(f"game {game.name!r} cannot register: preset {taken[0]!r} is another game's "
                         "(a preset names one game)")
    _REGISTERED[game.name] = game
    return game


def game_named(name: Any) -> Game:
    """The :class:`Game` registered as ``name``; ``ValueError`` listing the games otherwise."""
    if isinstance(name, str) and name in _REGISTERED:
        return _REGISTERED[name]
    if not isinstance(name, str) or name not in GAME_PACKAGES:
        raise ValueError(f"game must be one of {', '.join(map(repr, registered_games()))}, got {str(name)[:100]!r}")
    return _load(name)


def as_game(game: "Game | str | None") -> Game:
    """The game an entry point was given: a registered :class:`Game` as it is, a name
    (:func:`game_named`), or None: :data:`LEGACY_GAME`, the game of calls from before
    games had names."""
    if isinstance(game, Game):
        if game_named(game.name) is not game:
            raise ValueError(f"the game {game.name!r} given is not the one registered under that name")
        return game
    return game_named(LEGACY_GAME if game is None else game)


def game_of_data(data: Mapping) -> Game:
    """The game a file's data names (a record, a checkpoint, a training state, a
    tournament's results: their ``"game"``); data from before games had names is
    :data:`LEGACY_GAME`'s."""
    return game_named(data.get("game", LEGACY_GAME))


def game_of_rules(rules: Any) -> Game:
    """The game a ``Rules`` value belongs to (each game has its own ``Rules`` type)."""
    for name in registered_games():
        game = game_named(name)
        if isinstance(rules, game.rules_type):
            return game
    raise ValueError(f"not the Rules of any game: {str(rules)[:80]!r}")


def game_of_preset(preset: str) -> Game:
    """The game whose presets include ``preset`` (preset names are unique across games)."""
    for name in registered_games():
        game = game_named(name)
        if preset in game.presets:
            return game
    known = [p for name in registered_games() for p in game_named(name).presets]
    raise ValueError(f"unknown rules preset {str(preset)[:100]!r}; allowed: {', '.join(map(repr, known))}")


def make(name: "str | Game", **kwargs: Any) -> Any:
    """The AEC env of the game ``name`` (or a :class:`Game`): ``make("sortskaeg",
    num_players=4, rules="sortskaeg")`` (``num_players``, ``rules``, ``render_mode``,
    ``reward`` and Rules field overrides, as the game's own ``env`` takes them)."""
    return (name if isinstance(name, Game) else game_named(name)).env(**kwargs)


def load_object(path: str) -> Any:
    """The object a ``"module:attribute"`` string names (a Game's ``bots`` / ``metrics`` /
    ``views`` entries point into the layers above)."""
    module, _, attr = path.partition(":")
    obj = importlib.import_module(module)
    return getattr(obj, attr) if attr else obj


def check_game(game: Game) -> None:
    """``ValueError`` unless ``game`` has every part its contract asks
    (:mod:`redbeard_env.contract`), naming the first part that falls short: its rules
    modules (and a game they start), the AEC env, the tournament engines (a reference
    engine; a batch engine only with both its parts), records, metrics and views."""
    import numpy as np

    from . import contract as C
    from .aec_base import TableEnv
    from .engine import ReferenceBatchBase, VectorBatchBase

    name = game.name
    if not isinstance(name, str) or not name.isidentifier() or not name.islower():
        raise ValueError(f"a game's name is a lower-case identifier (e.g. 'oh_hell'), got {str(name)[:60]!r}")
    parts = game.parts
    C.check_part(name, "parts", parts, must=lambda p: isinstance(p, GameParts), what="must be a GameParts")
    for part, contract in (("rules", C.RulesModule), ("cards", C.CardsModule), ("game", C.ReferenceEngine),
                           ("observation", C.ObservationModule)):
        C.check_part(name, f"parts.{part}", getattr(parts, part), contract)
    C.check_part(name, "parts.render_text", parts.render_text, must=callable, what="must be callable")
    C.check_part(name, "default_rules", game.default_rules, must=lambda p: p in parts.rules.PRESETS,
                 what=f"must be one of its presets ({', '.join(parts.rules.PRESETS)})")
    rules = parts.rules.make_rules(game.default_rules)
    state = parts.game.new_game(rules, parts.rules.MIN_PLAYERS, np.random.default_rng(0), dealer=0)
    C.check_part(name, "reference game (parts.game.new_game)", state, C.GameState)
    C.check_part(name, "raw_env", game.raw_env, kind=TableEnv)
    C.check_part(name, "env", game.env, must=callable, what="must be callable")
    C.check_part(name, "engines", game.engines, must=lambda e: isinstance(e, dict) and "reference" in e,
                 what="must map 'reference' (and, with a batch engine, 'vector') to engine classes")
    C.check_part(name, "engines['reference']", game.engines["reference"], kind=ReferenceBatchBase)
    if "vector" in game.engines or game.vector_env is not None:
        C.check_part(name, "engines['vector']", game.engines.get("vector"), kind=VectorBatchBase)
        C.check_part(name, "vector_env", game.vector_env, must=lambda v: isinstance(v, type),
                     what="must be its batch engine's class (a game with a 'vector' engine has one)")
    C.check_part(name, "records", game.records, C.RecordsModule)
    for part, value in (("bots", game.bots), ("metrics", game.metrics), ("views", game.views)):
        C.check_part(name, part, value, must=lambda v: isinstance(v, str) and v.strip() == v and v,
                     what='must name an object as "module" or "module:attribute"')
    C.check_part(name, "metrics", game.metrics_type, C.TournamentMetrics)
    C.check_part(name, "views", game.table_views, C.TableViews)
