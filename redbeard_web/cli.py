"""``redbeard-web``: serve the game page and its JSON API on this machine.

    redbeard-web                        # http://127.0.0.1:8000
    redbeard-web --port 8080 --records games.jsonl

It binds to 127.0.0.1 (this machine only) unless ``--host`` says otherwise.
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys

from .session import BotPool


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="redbeard-web", description="Play the family's card games against the bots in a browser.")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--records", default=None, metavar="FILE",
                   help="append the record of every finished game to this JSON-lines file")
    p.add_argument("--max-games", type=int, default=500, help="games kept at once (default 500)")
    p.add_argument("--idle-minutes", type=float, default=60.0,
                   help="a running game nobody looked at for this long is dropped (default 60)")
    p.add_argument("--finished-minutes", type=float, default=15.0,
                   help="a finished game is dropped this long after it was last looked at (default 15)")
    return p


def main(argv: list[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    try:
        import uvicorn

        from .app import LOOPBACK_HOSTS, create_app
        from .store import GameStore
    except ModuleNotFoundError as exc:
        sys.exit(f"redbeard-web needs the web extra ({exc.name} is missing): pip install -e \".[web]\"")
    for name in ("max_games", "idle_minutes", "finished_minutes"):
        if getattr(args, name) <= 0:
            sys.exit(f"redbeard-web: --{name.replace('_', '-')} must be > 0")
    store = GameStore(BotPool(), max_games=args.max_games, idle_seconds=args.idle_minutes * 60,
                      finished_seconds=args.finished_minutes * 60, records_path=args.records)
    loopback = _is_loopback(args.host)
    if not loopback:
        print(f"redbeard-web: serving on {args.host}, reachable from other machines", file=sys.stderr)
    app = create_app(store, allowed_hosts=LOOPBACK_HOSTS if loopback else None)
    from .ready import start_warm_up

    start_warm_up(store)  # load and compile the bots now; GET /api/ready and a log line say when done
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        sys.exit(f"redbeard-web: cannot listen on {args.host}:{args.port}: {exc.strerror}")
    port = sock.getsockname()[1]  # the real port, also for --port 0
    shown = "localhost" if loopback else args.host
    print(f"redbeard-web: open http://{shown}:{port}/  (Ctrl+C to stop)", flush=True)
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    main()
