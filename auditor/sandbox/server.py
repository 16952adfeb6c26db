"""Running the sandbox with uvicorn: in the foreground (``auditor sandbox serve``) or in a
background thread (tests, ``auditor demo``, benchmarks), always on a socket bound before the server
starts, so that port 0 gives a free port whose URL is known at once."""

from __future__ import annotations

import socket
import threading
from types import TracebackType
from typing import Any

import uvicorn

from auditor.estate.snapshot import Snapshot
from auditor.sandbox.app import Sandbox, create_app
from auditor.sandbox.config import SandboxConfig


def bind(host: str = "127.0.0.1", port: int = 0) -> socket.socket:
    """A listening TCP socket on ``host:port`` (port 0: a free one), so that its URL can be printed
    and used at once.

    The protocol is given explicitly (``IPPROTO_TCP``): asyncio sets ``TCP_NODELAY`` only on
    accepted sockets whose protocol says TCP, and without it every answer written in two parts
    (headers, body) waits ~40 ms for a delayed ACK (Nagle's algorithm).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)  # connections made before the server runs wait in the backlog
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


class _Server(uvicorn.Server):
    """A uvicorn server that tells a waiting thread when it is ready (no polling, no sleeps)."""

    def __init__(self, config: uvicorn.Config, ready: threading.Event) -> None:
        super().__init__(config)
        self._ready = ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        self._ready.set()

    def install_signal_handlers(self) -> None:  # a background thread cannot take signals
        return None


def uvicorn_config(
    app: Any, *, access_log: bool = False, log_level: str = "warning"
) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        log_level=log_level,
        access_log=access_log,
        lifespan="off",
        server_header=False,
        timeout_keep_alive=30,
    )


class SandboxServer:
    """The sandbox in a background thread on a loopback port::

    with SandboxServer(snapshot, config) as server:
        httpx.get(server.url + "/openapi.json")
    """

    def __init__(
        self,
        snapshot: Snapshot,
        config: SandboxConfig | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        startup_timeout: float = 30.0,
    ) -> None:
        self.app = create_app(snapshot, config)
        self.sandbox: Sandbox = self.app.state.sandbox
        self._host = host
        self._port = port
        self._timeout = startup_timeout
        self._ready = threading.Event()
        self._server = _Server(uvicorn_config(self.app), self._ready)
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None
        self.url = ""

    def start(self) -> SandboxServer:
        self._socket = bind(self._host, self._port)
        self.url = url_of(self._socket)
        sockets = [self._socket]
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": sockets}, name="sandbox", daemon=True
        )
        self._thread.start()
        while not self._ready.wait(0.05):
            if not self._thread.is_alive():
                raise RuntimeError("the sandbox server stopped while starting")
            if self._timeout <= 0:
                raise RuntimeError("the sandbox server did not start in time")
            self._timeout -= 0.05
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    def __enter__(self) -> SandboxServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def serve_forever(
    snapshot: Snapshot,
    config: SandboxConfig,
    sock: socket.socket,
    *,
    access_log: bool = False,
) -> None:
    """Serve in the foreground until interrupted (Ctrl-C)."""
    app = create_app(snapshot, config)
    server = uvicorn.Server(
        uvicorn_config(app, access_log=access_log, log_level="info" if access_log else "warning")
    )
    server.run(sockets=[sock])
