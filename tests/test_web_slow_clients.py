"""Slow clients and odd options (issue 26, group 8): a connection whose request head or body
does not arrive in time is closed (a slow body is a 408 first), connections beyond the
limit are closed at once, ``--host ::1`` serves ``http://[::1]:port``, and the command
refuses out-of-range options with one line (no trace). Also: the rules bound
``eliminate_at`` to the score limit, so the batch engine takes every rule set the rules
accept."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import warnings

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("uvicorn")
try:
    import httpx2 as httpx
except ImportError:  # pragma: no cover - older installs
    httpx = pytest.importorskip("httpx")

from redbeard_web.app import create_app  # noqa: E402
from redbeard_web.limits import Limits  # noqa: E402
from redbeard_web.session import BotPool  # noqa: E402
from redbeard_web.store import GameStore  # noqa: E402
from web_helpers import LiveServer  # noqa: E402


def closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closes ``sock`` within ``seconds`` (reading whatever it sends)."""
    sock.settimeout(seconds)
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            if not sock.recv(65536):
                return True
    except (TimeoutError, socket.timeout):
        return False
    except ConnectionError:
        return True
    return False


@pytest.fixture(scope="module")
def live():
    limits = Limits(header_seconds=1.0, body_seconds=1.0, max_connections=40)
    with LiveServer(create_app(GameStore(BotPool()), limits=limits), limits) as server:
        yield server


def test_slow_request_heads_are_cut_off(live):
    """Connections that send a request head slowly (or nothing) are closed after
    ``header_seconds`` (1,500 such connections used to stay open for over 80 s)."""
    socks = [socket.create_connection(("127.0.0.1", live.port)) for _ in range(20)]
    for i, s in enumerate(socks):
        if i % 2:
            s.sendall(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    start = time.monotonic()
    assert all(closed_within(s, 5) for s in socks)
    assert time.monotonic() - start < 5
    for s in socks:
        s.close()
    with httpx.Client(base_url=live.url, timeout=30) as c:  # served as ever (the first options read the policies)
        assert c.get("/api/options").status_code == 200


def test_a_slowly_trickling_head_is_cut_off_too(live):
    s = socket.create_connection(("127.0.0.1", live.port))
    s.sendall(b"GET /api/options HTTP/1.1\r\n")
    start = time.monotonic()
    closed = False
    while time.monotonic() - start < 5:
        try:
            s.sendall(b"X-A: b\r\n")  # a byte now and then used to keep a connection forever
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        time.sleep(0.1)
    s.close()
    assert closed and time.monotonic() - start < 4


def test_a_slow_body_is_a_408(live):
    s = socket.create_connection(("127.0.0.1", live.port))
    s.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              b"Content-Length: 100\r\n\r\n{\"se")
    s.settimeout(5)
    answer = b""
    try:
        while b"\r\n\r\n" not in answer or b"}" not in answer:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
    finally:
        s.close()
    assert answer.startswith(b"HTTP/1.1 408") and b'"error"' in answer and b"did not arrive within 1 s" in answer


def test_a_client_that_never_reads_is_cut_off(live):
    """A client that asks again and again and never reads its answers would hold its
    connection (and a request's task) forever: it is cut off once it has not read for
    ``body_seconds``."""
    s = socket.create_connection(("127.0.0.1", live.port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    start = time.monotonic()
    cut = False
    s.settimeout(1)
    while time.monotonic() - start < 20:
        try:
            s.sendall(b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 20)
        except (BrokenPipeError, ConnectionResetError):
            cut = True
            break
        except (TimeoutError, socket.timeout):
            pass
        time.sleep(0.05)
    s.close()
    assert cut and time.monotonic() - start < 15


def test_connections_beyond_the_limit_are_closed(live):
    socks = [socket.create_connection(("127.0.0.1", live.port)) for _ in range(60)]
    time.sleep(0.3)
    refused = sum(closed_within(s, 0.3) for s in socks[40:])
    for s in socks:
        s.close()
    assert refused == 20
    time.sleep(0.2)
    with httpx.Client(base_url=live.url, timeout=30) as c:
        assert c.get("/api/options").status_code == 200


# ---------------------------------------------------------------- the command
def run_command(*args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "redbeard_web", *args], capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, PYTHONUNBUFFERED="1"))


@pytest.mark.parametrize("args,message", [
    (["--port", "99999"], "0..65535"),
    (["--port", "-1"], "0..65535"),
    (["--port", "http"], "0..65535"),
    (["--idle-minutes", "nan"], "--idle-minutes must be > 0"),
    (["--idle-minutes", "inf"], "--idle-minutes must be > 0"),
    (["--finished-minutes", "-1"], "--finished-minutes must be > 0"),
    (["--hint-seconds", "nan"], "finite number"),
    (["--games-per-minute", "-5"], "finite number"),
    (["--bot-cache", "0"], "int >= 1"),
    (["--record-size", "4Q"], "a size"),
    (["--max-connections", "1e3"], "int >= 1"),
])
def test_the_command_refuses_bad_options_with_one_line(args, message):
    out = run_command(*args)
    assert out.returncode != 0 and message in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


def test_help_documents_every_budget():
    text = run_command("--help").stdout
    for option in ("--bot-cache", "--search-budget", "--hint-seconds", "--hint-concurrency", "--hint-queue",
                   "--games-per-minute", "--body-size", "--record-size", "--replay-memory", "--lock-seconds",
                   "--header-seconds", "--body-seconds", "--max-connections", "--connections-per-address",
                   "--threads-per-address", "--hints-per-address", "--games-per-address", "--replay-logs-per-minute",
                   "--replay-seconds-per-minute", "--log-size", "--records-size", "--trusted-proxy"):
        assert option in text
    assert "(default 32)" in text and "(default 1M;" in text


def has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not has_ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_ipv6_loopback_is_served():
    """``--host ::1`` used to answer ``http://[::1]:port`` with "Invalid host header"."""
    proc = subprocess.Popen([sys.executable, "-m", "redbeard_web", "--host", "::1", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        line = proc.stdout.readline()
        assert line.startswith("redbeard-web: open http://[::1]:"), line + proc.stderr.read()
        port = int(line.split("]:")[1].split("/")[0])
        with httpx.Client(base_url=f"http://[::1]:{port}", timeout=30) as c:
            r = c.get("/api/options")
            assert r.status_code == 200, r.text
            assert c.post("/api/games", json={"seed": 1}).status_code == 200
            evil = c.get("/api/options", headers={"host": "evil.example"})
            assert evil.status_code == 400 and "Host" in evil.json()["error"]
    finally:
        proc.terminate()
        proc.wait(10)


# ---------------------------------------------------------------- eliminate_at and the batch engine
def test_eliminate_at_is_bounded_by_the_score_limit():
    """``eliminate_at >= 2**63`` used to pass the rules and overflow in the batch engine."""
    from redbeard_env import make_rules
    from redbeard_env.redbeard.rules import SCORE_LIMIT
    from redbeard_env.redbeard.vector import VectorEnv

    for value in (2**63, 10**400, SCORE_LIMIT + 1):
        with pytest.raises(ValueError, match=rf"'eliminate_at'.*1\.\.{SCORE_LIMIT}"):
            make_rules("fem_opp", eliminate_at=value)
    rules = make_rules("fem_opp", eliminate_at=SCORE_LIMIT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        env = VectorEnv(4, 4, rules, seed=0)
    env.reset()
