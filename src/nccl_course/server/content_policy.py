"""The Content-Security-Policy of the course's pages: scripts only from the site itself, plus,
on a page of the book, the inline scripts and event handlers its build listed by digest
(``nccl_course.book.served_files`` writes ``csp-hashes.json`` into each edition's folder).
No ``'unsafe-inline'`` for scripts: a script an attacker manages to inject into a page does not
run. No ``'unsafe-eval'`` either, on any page: ``served_files`` stops a build whose page embeds
ipywidgets, whose manager compiles code with ``new Function``.

Why each directive is as it is:

- ``style-src 'unsafe-inline'``: MathJax (CHTML output) and the widget manager add ``<style>``
  elements while the page runs, with text no build can know; the theme and the explorers set
  ``style`` attributes. Styles cannot run code, so this is the usual trade.
- ``img-src``/``font-src data:``: the theme's CSS draws icons from ``data:`` URLs.
- ``frame-ancestors 'none'``: no page of the course frames another (the book, the explorers,
  the exam and verify pages have no ``<iframe>``), so no site may frame them, the course's own
  included; ``X-Frame-Options: DENY`` says the same to older browsers.
- ``object-src 'none'``, ``base-uri 'self'``, ``form-action 'self'``: nothing uses plugins,
  a ``<base>`` elsewhere or a form posting elsewhere.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from nccl_course.book.served_files import MANIFEST
from nccl_course.i18n.languages import LANGUAGES, SOURCE_LANGUAGE

log = logging.getLogger("nccl_course.exam")

DIRECTIVES = (
    ("default-src", "'self'"),
    ("script-src", "'self'"),
    ("style-src", "'self' 'unsafe-inline'"),
    ("img-src", "'self' data:"),
    ("font-src", "'self' data:"),
    ("connect-src", "'self'"),
    ("media-src", "'self'"),
    ("object-src", "'none'"),
    ("base-uri", "'self'"),
    ("form-action", "'self'"),
    ("frame-ancestors", "'none'"),
)


def policy(scripts: list[str] | tuple = (), handlers: list[str] | tuple = ()) -> str:
    """The policy, with ``scripts`` and ``handlers`` (``sha256-...`` digests of inline scripts
    and of event-handler attributes) allowed besides the site's own script files.
    ``'unsafe-hashes'`` (needed for handler digests) is added only for a page that has some."""
    extra = [f"'{h}'" for h in sorted({*scripts, *handlers})]
    if handlers:
        extra.insert(0, "'unsafe-hashes'")
    parts = []
    for name, value in DIRECTIVES:
        if name == "script-src" and extra:
            value = " ".join([value, *extra])
        parts.append(f"{name} {value}")
    return "; ".join(parts)


#: The policy of every response that is not a page of the book (exam pages, files, the API).
SITE_POLICY = policy()


def page_key(path: str) -> str:
    """The manifest's key for a request path: ``/`` -> ``index.html``, ``/tr/book/`` ->
    ``tr/book/index.html``, ``/book/x.html`` -> ``book/x.html``."""
    key = path.lstrip("/")
    if key == "" or key.endswith("/"):
        key += "index.html"
    return key


class BookPolicies:
    """Each book page's policy, from the ``csp-hashes.json`` of every edition under
    ``book_dir`` (English at the root, a translation in its language's folder). A manifest is
    read again when its file changes, so a book built while the server runs is covered; a page
    no manifest lists (or a book built without one) gets ``SITE_POLICY``, under which its
    inline scripts do not run."""

    def __init__(self, book_dir: Path) -> None:
        self.book_dir = Path(book_dir)
        self.sources = {
            ("" if lang == SOURCE_LANGUAGE else f"{lang}/"): self.book_dir
            / ("" if lang == SOURCE_LANGUAGE else lang)
            / MANIFEST
            for lang in LANGUAGES
        }
        self.seen: dict[str, int | None] = {}
        self.headers: dict[str, dict[str, bytes]] = {}
        self.refresh()
        if (self.book_dir / "index.html").exists() and not self.headers.get(""):
            log.warning(
                "the book in %s has no %s: its pages' inline scripts are blocked by the "
                "Content-Security-Policy until it is built again ('make book')",
                self.book_dir,
                MANIFEST,
            )

    def refresh(self) -> None:
        """Read each manifest that changed since it was last read (one stat per edition)."""
        for prefix, path in self.sources.items():
            try:
                stamp = os.stat(path).st_mtime_ns
            except OSError:
                stamp = None
            if self.seen.get(prefix, -1) == stamp:
                continue
            self.seen[prefix] = stamp
            self.headers[prefix] = self._read(path, prefix) if stamp is not None else {}

    @staticmethod
    def _read(path: Path, prefix: str) -> dict[str, bytes]:
        try:
            pages = json.loads(path.read_text(encoding="utf-8"))["pages"]
        except (OSError, ValueError, KeyError) as exc:
            log.warning("%s is unreadable (%s): rebuild the book ('make book')", path, exc)
            return {}
        return {
            prefix + key: policy(p.get("scripts", ()), p.get("handlers", ())).encode("ascii")
            for key, p in pages.items()
        }

    def for_path(self, path: str) -> bytes:
        """The policy header of the book page at request ``path``."""
        self.refresh()
        key = page_key(path)
        for prefix in sorted(self.headers, key=len, reverse=True):  # tr/ before the root
            if key.startswith(prefix) and key in self.headers[prefix]:
                return self.headers[prefix][key]
        return SITE_POLICY_BYTES


SITE_POLICY_BYTES = SITE_POLICY.encode("ascii")
