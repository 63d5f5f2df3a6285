"""What a game provides, as typed contracts: one :class:`~typing.Protocol` per part, listing
the members every layer uses, checked when the game registers
(:func:`redbeard_env.registry.register`; :func:`check_game` refuses a game that lacks a
member, naming the part and the member).

| part (``Game`` field)                | contract              | shared defaults (a base class)            |
|--------------------------------------|-----------------------|-------------------------------------------|
| ``parts.rules``                      | :class:`RulesModule`  | ``common.replace_fields`` (``make_rules``) |
| ``parts.cards``                      | :class:`CardsModule`  | ``common.parse_card_list``                |
| ``parts.game``: the reference engine | :class:`ReferenceEngine` (its games: :class:`GameState`) | --    |
| ``parts.observation``                | :class:`ObservationModule` | ``common.block_layout``              |
| ``raw_env``: the AEC env             | a subclass of ``aec_base.TableEnv`` | ``TableEnv``: options, step, rewards, ``info`` |
| ``engines``: tournament engines      | ``"reference"``: a ``engine.ReferenceBatchBase``; ``"vector"`` (optional, with ``vector_env``): a ``engine.VectorBatchBase`` | the bases: jobs, events, winners |
| ``records``                          | :class:`RecordsModule` | ``records.RecorderBase``, ``records.GameRecords`` |
| ``metrics`` (``"module:Class"``)     | :class:`TournamentMetrics` | ``metrics.MetricsBase``              |
| ``views`` (a module or ``"module:object"``) | :class:`TableViews` | ``viewparts.TableViews``          |
| ``bots`` (a module: ``BOTS``)        | checked by :mod:`agents.registry` when a bot is first looked up (its layer) | the shared ``random``, ``ppo`` |

A batch engine (``vector_env``) is optional: a game without one plays its tournaments on
its reference engine, and its search bots, if any, on whatever they choose. Members a
contract lists are required; a part may have more (the optional ones the apps read with a
default, such as a view's ``REVIEW_BOT``, are in the defaults' base classes).
"""

from __future__ import annotations

from typing import Any, Callable, Protocol, Sequence

__all__ = ["RulesModule", "CardsModule", "ReferenceEngine", "GameState", "ObservationModule", "RecordsModule",
           "TournamentMetrics", "TableViews", "members", "missing", "check_part"]


class RulesModule(Protocol):
    """A game's ``rules.py``: its ``Rules`` (a frozen dataclass, a field per rule that
    varies), the named presets and the checks."""

    Rules: type
    PRESETS: dict  # preset name -> Rules (names are unique across games)
    MIN_PLAYERS: int
    MAX_PLAYERS: int
    SCORE_LIMIT: int  # |a score| a reset option or a record may give

    def make_rules(self, rules: Any = None, **overrides: Any) -> Any: ...

    def check_num_players(self, num_players: Any, rules: Any) -> int: ...


class CardsModule(Protocol):
    """A game's ``cards.py``: the card and action encoding, in one place."""

    NUM_CARDS: int
    NUM_ACTIONS: int

    def action_name(self, action: int) -> str: ...

    def action_id(self, name: str) -> int: ...

    def card_name(self, card: int) -> str: ...

    def parse_card(self, text: Any) -> int: ...

    def parse_cards(self, cards: Any, what: str) -> list[int]: ...


class GameState(Protocol):
    """A reference-engine game, as the shared code reads it (the AEC env base, the
    tournaments' reference engine, records, the apps' sessions and the hidden-card scans).
    ``events`` are the last action's events as tuples whose first item names them; a
    scored round is ``("round_end", ...)``, a finished trick ``("trick", winner, cards)``.
    Read with a default where a game may lack them: ``winners`` (seats sharing the win),
    ``truncated``, ``face_up`` (cards shown to every seat)."""

    rules: Any
    num_players: int
    phase: str
    to_act: int  # the seat to act, -1 when nobody is
    game_over: bool
    dealer: int
    hands: list  # per seat, card ids
    trick: list  # (seat, card) of the running trick
    played: list  # the cards of the finished tricks of the deal
    scores: list
    tricks: list  # tricks taken this round, per seat
    events: list


class ReferenceEngine(Protocol):
    """A game's ``game.py``: the rules' definition, one game object at a time."""

    PHASE_NAMES: Sequence[str]

    def new_game(self, rules: Any, num_players: int, rng: Any, *, dealer: int, scores: Sequence[int] | None = None,
                 decks: Sequence | None = None) -> GameState: ...

    def legal_actions(self, game: GameState) -> list[int]: ...

    def apply_action(self, game: GameState, action: int) -> None: ...


class ObservationModule(Protocol):
    """A game's ``observation.py``: what one seat may know, as a flat float32 vector."""

    OBS_SIZE: int
    OBS_LOW: float
    OBS_HIGH: float

    def static_prefix(self, rules: Any, num_players: int) -> Any: ...

    def encode(self, game: GameState, observer: int, prefix: Any) -> Any: ...


class RecordsModule(Protocol):
    """A game's ``records.py`` (the shared part: :mod:`redbeard_env.records`): a
    ``Recorder`` that follows a reference game and builds its record, and the exact
    replay."""

    Recorder: type

    def check_structure(self, record: Any) -> Any: ...

    def start_replay(self, record: dict) -> tuple: ...

    def apply_recorded(self, recorder: Any, record: dict, index: int) -> None: ...

    def replay(self, record: Any) -> GameState: ...

    def validate(self, record: Any) -> dict: ...


class TournamentMetrics(Protocol):
    """A game's tournament metrics class (``Records(num_players, specs, rules)``; the
    protocol :mod:`redbeard_eval.metrics` describes, the defaults are
    :class:`redbeard_env.metrics.MetricsBase`)."""

    COLUMNS: list

    def begin(self, slots: int, scores: Any) -> None: ...

    def on_decisions(self, live: Any, obs: Any, actions: Any, seat: Any, lineups: Any) -> None: ...

    def on_step(self, events: dict, lineups: Any, mode: str) -> None: ...

    def won(self, events: dict, slot: int, seat: int, mode: str) -> float: ...

    def seat_fields(self, slot: int, seat: int) -> dict: ...

    def end(self) -> None: ...

    def merge(self, other: Any) -> None: ...

    def agent_metrics(self, spec: str, rows: list, mode: str) -> dict: ...

    def table_notes(self, agents: dict) -> list: ...

    def success_plot(self, agents: dict) -> Any: ...

    def research_experiments(self, sheet: str, best: str) -> list: ...

    def research_sections(self, tables: list, experiments: list) -> list: ...


class TableViews(Protocol):
    """What the web table and the terminal game show of a reference game for one seat,
    and only what that seat may know (docs/architecture.md lists each view). The defaults
    of the common ones are :class:`redbeard_env.viewparts.TableViews`."""

    HELP: str
    SHORT: dict

    def page_info(self) -> dict: ...

    def rules_page(self, rules: Any) -> list: ...

    def table(self, game: GameState, seat: int | None, agents: Sequence[str], last_trick: dict | None = None) -> dict: ...

    def hand(self, game: GameState, seat: int) -> list: ...

    def sorted_hand(self, cards: Sequence[int]) -> list: ...

    def action_name(self, game: GameState, action: int) -> str: ...

    def describe(self, seat: int, name: str, you: int | None = None) -> str: ...

    def shown_action(self, seat: int, name: str, you: int | None) -> str: ...

    def effects(self, game: GameState, seat: int, action: int, events: Sequence, trick_before: Sequence,
                deal: dict | None, you: int | None, earlier: Sequence = ()) -> list: ...

    def question(self, game: GameState, seat: int, keys: bool = False) -> str: ...

    def stakes(self, game: GameState, seat: int) -> list: ...

    def winner(self, game: GameState) -> Any: ...

    def winners(self, game: GameState) -> list: ...

    def truncated(self, game: GameState) -> bool: ...

    def extras(self, game: GameState, seat: int) -> dict: ...

    def sheet(self, recorder: Any) -> list: ...

    def sheet_view(self, rows: Sequence[dict], num_players: int, you: int | None, start: Any = None) -> dict: ...

    def frame(self, game: GameState, agents: Sequence[str]) -> dict: ...

    def card_text(self, name: str) -> str: ...

    def seat_label(self, seat: int, you: int | None) -> str: ...

    def render_table(self, table: dict, you: int, agents: Sequence[str]) -> str: ...


def members(contract: type) -> list[str]:
    """The members a contract lists: its annotated attributes and its methods."""
    names = list(getattr(contract, "__annotations__", {}))
    names += [k for k, v in vars(contract).items() if not k.startswith("_") and callable(v)]
    return names


def missing(obj: Any, contract: type) -> list[str]:
    """The members of ``contract`` that ``obj`` (a module, a class or an instance) lacks."""
    return [name for name in members(contract) if not hasattr(obj, name)]


def check_part(game: str, part: str, obj: Any, contract: "type | None" = None, kind: "type | None" = None,
               must: Callable[[Any], bool] | None = None, what: str = "") -> None:
    """``ValueError`` unless ``obj`` (the part ``part`` of the game ``game``) has every
    member of ``contract``, is a subclass of ``kind``, and passes ``must`` (``what`` says
    what that asks)."""
    if kind is not None and not (isinstance(obj, type) and issubclass(obj, kind)):
        raise ValueError(f"game {game!r} cannot register: its {part} must be a subclass of "
                         f"{kind.__module__}.{kind.__qualname__}, got {str(obj)[:80]}")
    if contract is not None:
        lacks = missing(obj, contract)
        if lacks:
            raise ValueError(f"game {game!r} cannot register: its {part} lacks {', '.join(lacks)} "
                             f"({contract.__name__}, redbeard_env.contract)")
    if must is not None and not must(obj):
        raise ValueError(f"game {game!r} cannot register: its {part} {what}, got {str(obj)[:80]}")
