"""``nccl-course serve``: serve the built book (and, once present, the exam server)."""

from __future__ import annotations

import sys
from pathlib import Path


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve the built book at http://HOST:PORT/",
        description="Serve the HTML book from _build/html. Build it first with 'make book'.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--book", type=Path, default=Path("_build/html"), help="built book folder (_build/html)"
    )
    parser.set_defaults(func=run)


def run(args) -> int:
    import functools
    import http.server

    book = args.book.resolve()
    if not (book / "index.html").exists():
        print(f"error: no built book in {book}; run 'make book' first.", file=sys.stderr)
        return 1
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(book))
    try:
        server = http.server.ThreadingHTTPServer((args.host, args.port), handler)
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    print(f"Serving the course at http://{args.host}:{args.port}/ (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\nstopped", flush=True)
    finally:
        server.server_close()
    return 0
