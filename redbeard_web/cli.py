"""``redbeard-web``: serve the game page and its JSON API on this machine.

    redbeard-web                        # http://127.0.0.1:8000
    redbeard-web --port 8080 --records games.jsonl
    redbeard-web --host ::1             # http://[::1]:8000

It binds to 127.0.0.1 (this machine only) unless ``--host`` says otherwise. What one client
may cost the server -- bots kept, a bot's search, hints, new games a minute, upload sizes,
slow clients -- are the budget options (``redbeard-web --help``; :mod:`redbeard_web.limits`).
The table plays only the bots it offers (the page's and the levels'); ``--free-specs`` lets a
local table play any bot spec the bots' declarations allow within the search budget.
``--bots DIR`` (repeatable) adds a folder of trained policies, played by name as
``ppo:NAME`` (``DIR/NAME.pt``, ``DIR/NAME/final.pt`` of a recipe pipeline,
``DIR/NAME/policy.pt`` of a single run); the page offers those trained for the chosen table.
A client only ever names a policy, never a file.
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import math
import sys

from redbeard_env.records import check_appendable

from .limits import Limits, option_name, parse_size, positive_number, show_size
from .session import BotPool

# The event loop waits for the interpreter lock at every socket call while a worker thread
# computes (a bot, a record checked); a shorter switch interval shortens each wait.
SWITCH_SECONDS = 0.001
# glibc gives threads that allocate malloc arenas of their own (up to eight per core); the
# server's worker threads (bots, hints, replays) then keep freed memory in many arenas and
# its resident size creeps up under load. Two arenas keep it near what is in use.
MALLOC_ARENAS = 2


def _few_malloc_arenas() -> None:
    """Cap glibc's malloc arenas (``mallopt(M_ARENA_MAX)``) before any thread starts; a no-op
    on other C libraries."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        if libc is not None and hasattr(libc, "mallopt"):
            libc.mallopt(-8, MALLOC_ARENAS)  # -8: M_ARENA_MAX
    except OSError:
        pass
SIZE_FIELDS = ("body_size", "record_size", "replay_memory", "log_size", "records_size")


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _port(text: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 5 or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"a port is an int in 0..65535 (0: a free one), got {text[:20]!r}")
    return int(text)


def _count(text: str) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 12 or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an int >= 1, got {text[:20]!r}")
    return int(text)


def _proxy(text: str) -> str:
    try:
        from .guards import TrustedProxies
    except ModuleNotFoundError:  # main() says which extra is missing
        return text
    TrustedProxies([text])  # ValueError naming what is allowed
    return text


def _argtype(fn, **kwargs):
    def parse(text: str):
        try:
            return fn(text, **kwargs)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    parse.__name__ = fn.__name__
    return parse


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="redbeard-web", description="Play the family's card games against the bots in a browser.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind, IPv4 or IPv6 (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=_port, default=8000, help="port, 0..65535 (default 8000; 0 picks a free one)")
    p.add_argument("--records", default=None, metavar="FILE",
                   help="append the record of every finished game to this JSON-lines file (rotated at "
                        "--records-size)")
    p.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDRESS", type=_argtype(_proxy),
                   help="believe X-Forwarded-For, Forwarded and X-Real-IP only from this proxy (an IP address or "
                        "network, e.g. 127.0.0.1 or 10.0.0.0/8; repeat for more); by default from none: every "
                        "request is counted against its connection's own address")
    p.add_argument("--max-games", type=int, default=500, help="games kept at once (default 500)")
    p.add_argument("--idle-minutes", type=float, default=60.0,
                   help="a running game nobody looked at for this long is dropped (default 60)")
    p.add_argument("--finished-minutes", type=float, default=15.0,
                   help="a finished game is dropped this long after it was last looked at (default 15)")
    p.add_argument("--bots", action="append", default=[], metavar="DIR",
                   help="a folder of trained policies (repeat for more), played by name as ppo:NAME after the shipped "
                        "ones: DIR/NAME.pt, DIR/NAME/final.pt or DIR/NAME/policy.pt; the page offers those trained "
                        "for the chosen table")
    p.add_argument("--free-specs", action="store_true",
                   help="play any bot spec the bots' declarations allow within the search budget (a local table); "
                        "by default only the bots the table offers: the page's and the levels'")
    budgets = p.add_argument_group("budgets", "what one client may cost the server")
    for f in dataclasses.fields(Limits):
        help_text, unit = f.metadata["help"], f.metadata["unit"]
        if f.name in SIZE_FIELDS:
            budgets.add_argument(option_name(f.name), type=_argtype(parse_size), default=f.default, metavar="SIZE",
                                 help=f"{help_text} (default {show_size(f.default)}; bytes, or with K, M, G)")
        elif f.type == "int":
            budgets.add_argument(option_name(f.name), type=_count, default=f.default, metavar="N",
                                 help=f"{help_text} (default {f.default})")
        else:
            zero = f.metadata["zero"]
            budgets.add_argument(option_name(f.name), type=_argtype(positive_number, allow_zero=zero),
                                 default=f.default, metavar="SECONDS" if unit == "s" else "N",
                                 help=f"{help_text} (default {f.default:g}{' s' if unit == 's' else ''})")
    return p


def limits_of(args: argparse.Namespace) -> Limits:
    return Limits(**{f.name: getattr(args, f.name) for f in dataclasses.fields(Limits)})


def main(argv: list[str] | None = None) -> None:
    _few_malloc_arenas()
    args = build_parser().parse_args(argv)
    try:
        import uvicorn

        from .app import LOOPBACK_HOSTS, create_app
        from .guards import TrustedProxies
        from .server import bind, server_config
        from .store import GameStore
    except ModuleNotFoundError as exc:
        sys.exit(f"redbeard-web needs the web extra ({exc.name} is missing): pip install -e \".[web]\"")
    for name in ("max_games", "idle_minutes", "finished_minutes"):
        value = getattr(args, name)
        if not math.isfinite(value) or value <= 0:
            sys.exit(f"redbeard-web: --{name.replace('_', '-')} must be > 0 (and finite), got {value}")
    if args.records:  # else every finished game's record would be lost to a logged error
        try:
            check_appendable(args.records, "--records")
        except ValueError as exc:
            sys.exit(f"redbeard-web: {exc}")
    if args.bots:
        try:
            from agents.ppo import set_bot_folders

            set_bot_folders(args.bots)
        except ModuleNotFoundError as exc:
            sys.exit(f"redbeard-web: --bots plays trained policies, which need the train extra ({exc.name} is "
                     f"missing): pip install -e \".[train]\"")
        except ValueError as exc:
            sys.exit(f"redbeard-web: --bots: {exc}")
    limits = limits_of(args)
    bots = BotPool(max_bots=limits.bot_cache, search_budget=limits.search_budget, free_specs=args.free_specs)
    store = GameStore(bots, max_games=args.max_games, idle_seconds=args.idle_minutes * 60,
                      finished_seconds=args.finished_minutes * 60, records_path=args.records,
                      replay_memory=limits.replay_memory, lock_seconds=limits.lock_seconds,
                      records_size=limits.records_size, log_size=limits.log_size,
                      per_owner=limits.games_per_address)
    trusted = TrustedProxies(args.trusted_proxy)
    host = args.host.strip("[]")
    loopback = _is_loopback(host)
    if not loopback:
        print(f"redbeard-web: serving on {host}, reachable from other machines", file=sys.stderr)
    app = create_app(store, allowed_hosts=LOOPBACK_HOSTS if loopback else None, limits=limits, trusted_proxies=trusted)
    try:
        sock = bind(host, args.port)
    except (OSError, OverflowError, UnicodeError) as exc:
        sys.exit(f"redbeard-web: cannot listen on {host}:{args.port}: {getattr(exc, 'strerror', None) or exc}")
    from .ready import start_warm_up

    start_warm_up(store)  # load and compile the bots now; GET /api/ready and a log line say when done
    port = sock.getsockname()[1]  # the real port, also for --port 0
    shown = f"[{host}]" if ":" in host else "localhost" if loopback else host
    print(f"redbeard-web: open http://{shown}:{port}/  (Ctrl+C to stop)", flush=True)
    sys.setswitchinterval(SWITCH_SECONDS)
    uvicorn.Server(server_config(app, limits, trusted)).run(sockets=[sock])


if __name__ == "__main__":
    main()
