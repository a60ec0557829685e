"""Serving the page: the table and app that :mod:`companion.app` built, served by
waitress with a thread per open page (Server-Sent Events hold one each) plus spares for
requests. Ctrl-C (or SIGTERM from systemd) ends every stream, finishes the queued commands and
closes the journal: nothing is lost.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from flask import Flask

    from ..table import Table

log = logging.getLogger("companion.run")

# Eight phones, two screens, the calibration page, and room for phones that slept or closed
# the tab: their streams hold a thread until the next heartbeat finds them gone.
STREAM_CLIENTS = 16
REQUEST_THREADS = 8


def serve(table: Table, app: Flask, url: str, *, host: str, port: int, quiet: bool = False,
          out: TextIO | None = None) -> int:
    """Start the ``table`` and serve its ``app`` until Ctrl-C or SIGTERM; then stop the table
    (every queued command finished, the journal closed). Returns the exit status."""
    import segno
    from waitress.server import create_server

    out = out if out is not None else sys.stdout
    requested = port
    server = create_server(
        app, host=host, port=port,
        threads=STREAM_CLIENTS + REQUEST_THREADS,
        connection_limit=100,
        # Send each event as soon as it is written: waitress otherwise holds small writes
        # until 18 kB are buffered or its loop wakes up.
        send_bytes=1,
        channel_timeout=300,
        ident="companion",
        clear_untrusted_proxy_headers=True,
    )
    table.broker.max_clients = STREAM_CLIENTS
    port = server.effective_port
    if port != requested:
        app.config["PUBLIC_URL"].port = port
        url = app.config["PUBLIC_URL"]()
    table.start()
    print(f"Ricochet Companion at {url}   table PIN {table.pages.pin}", file=out)
    print(f"journal: {table.store.path if table.store is not None else '-'}", file=out)
    if not quiet:
        try:
            segno.make(url, error="m").terminal(out=out, compact=True)
        except Exception:  # noqa: BLE001 - a terminal without the block characters
            pass
    print("Ctrl-C stops it; nothing is lost.", file=out)
    out.flush()

    def stop(signum: int, frame: Any) -> None:
        # End the event streams first, so waitress's threads are free to finish; then let the
        # server loop unwind.
        table.broker.close()
        raise KeyboardInterrupt

    old = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.run()
    except KeyboardInterrupt:
        pass
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        table.broker.close()
        try:
            server.task_dispatcher.shutdown(timeout=3)
        except Exception:  # noqa: BLE001
            pass
        server.close()
        table.stop()
        print("stopped; the journal is saved", file=out)
        out.flush()
    return 0


def serve_in_thread(app: Any, host: str = "127.0.0.1", port: int = 0) -> tuple[Any, str]:
    """Serve ``app`` with the same waitress settings on a background thread (for tests and the
    benchmark); returns (server, base url). Stop with ``server.close()``."""
    from waitress.server import create_server

    server = create_server(app, host=host, port=port, threads=STREAM_CLIENTS + REQUEST_THREADS,
                           connection_limit=100, send_bytes=1, ident="companion")
    threading.Thread(target=server.run, name="waitress", daemon=True).start()
    return server, f"http://{host}:{server.effective_port}"
