"""A small TCP proxy for fault tests: the application talks to Redis (or PostgreSQL)
through it, and the test cuts the connection or slows it down, as a network or a
restarting server would. Everything stays on the loopback address."""

from __future__ import annotations

import contextlib
import socket
import threading
import time


class TcpProxy:
    def __init__(self, target_port: int, target_host: str = "127.0.0.1") -> None:
        self.target = (target_host, target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.delay = 0.0
        self.down = False
        self.flowing = threading.Event()
        self.flowing.set()
        self.connections: list[socket.socket] = []
        self.lock = threading.Lock()
        self.closed = False
        self.refused = 0  # connections refused while down
        threading.Thread(target=self._accept, daemon=True).start()

    def url(self, scheme: str = "redis", path: str = "/0") -> str:
        return f"{scheme}://127.0.0.1:{self.port}{path}"

    # --- What the test does -----------------------------------------------------------

    def cut(self) -> None:
        """Drops every open connection and refuses new ones until restore()."""
        self.down = True
        with self.lock:
            for sock in self.connections:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                    sock.close()
            self.connections.clear()

    def slow(self, seconds: float) -> None:
        """Holds every chunk in either direction this long."""
        self.delay = seconds

    def stall(self) -> None:
        """Holds everything in either direction until restore(), as a server that stopped
        answering while its connections stay open; new connections are still accepted."""
        self.flowing.clear()

    def restore(self) -> None:
        self.down = False
        self.delay = 0.0
        self.flowing.set()

    def close(self) -> None:
        self.closed = True
        self.cut()
        self.flowing.set()  # the held pumps see the cut and end
        with contextlib.suppress(OSError):
            self.listener.close()

    # --- The proxy ----------------------------------------------------------------------

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _address = self.listener.accept()
            except OSError:
                return
            if self.down:
                client.close()
                self.refused += 1
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.connections += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while True:
                chunk = source.recv(65536)
                if not chunk or self.down:
                    break
                if self.delay:
                    time.sleep(self.delay)
                self.flowing.wait()
                if self.down:
                    break
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.close()
