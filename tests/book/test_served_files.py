"""What the build leaves for the server (nccl_course.book.served_files): the digests of the
inline code a browser runs on each page (not data blocks, not scripts loaded by src), a gzip
copy beside each compressible file, written again only when the file changed, and Sphinx's
catalog of a translated edition in a form that runs without eval."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import os
import shutil
import subprocess

import pytest

from nccl_course.book.served_files import (
    MANIFEST,
    MIN_COMPRESS_BYTES,
    TRANSLATIONS_JS,
    EmbeddedWidgetsError,
    csp_hash,
    inline_code,
    page_hashes,
    precompress,
    rewrite_translations,
    write_manifest,
)

WIDGETS = '<script type="application/vnd.jupyter.widget-state+json">{"state": {}}</script>'


def test_a_digest_is_the_base64_sha256_of_the_utf8_text():
    text = "let s = 'ş';\r\nrun(s);"
    digest = hashlib.sha256("let s = 'ş';\nrun(s);".encode()).digest()
    assert csp_hash(text) == "sha256-" + base64.b64encode(digest).decode()


def test_only_code_a_browser_runs_is_listed():
    page = (
        "<script>a &amp;&& b < c</script>"  # script text is raw: no entity is decoded
        '<script type="module">m()</script>'
        '<script type="text/javascript">t()</script>'
        '<script src="x.js"></script>'
        '<script type="application/json">{"not": "run"}</script>'
        '<script type="text/x-thebe-config">{}</script>'
        '<button onclick="go(&quot;x&quot;)" onmouseover="hover()">b</button>'
    )
    scripts, handlers = inline_code(page)
    assert scripts == ["a &amp;&& b < c", "m()", "t()"]
    assert handlers == ['go("x")', "hover()"]  # attribute values are decoded
    found = page_hashes(page)
    assert found["scripts"] == sorted(csp_hash(s) for s in scripts)
    assert set(found) == {"scripts", "handlers"}
    with pytest.raises(EmbeddedWidgetsError, match="'unsafe-eval'.*skip-execution"):
        page_hashes(WIDGETS + page)


def test_a_page_with_embedded_widgets_stops_the_manifest(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "index.html").write_text("<p>x</p>")
    (tmp_path / "notebooks" / "w.html").write_text(WIDGETS)
    with pytest.raises(EmbeddedWidgetsError, match=r"notebooks/w\.html: it embeds ipywidgets"):
        write_manifest(tmp_path)
    assert not (tmp_path / MANIFEST).exists()


def test_the_manifest_lists_every_page_and_leaves_a_nested_edition_to_its_own(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "tr").mkdir()
    (tmp_path / "_static").mkdir()
    (tmp_path / "index.html").write_text("<script>a()</script>")
    (tmp_path / "book" / "x.html").write_text('<b onclick="b()">x</b>')
    (tmp_path / "search.html").write_text("<script>s()</script>")
    (tmp_path / "_static" / "t.html").write_text("<script>t()</script>")
    (tmp_path / "tr" / "index.html").write_text("<script>c()</script>")
    write_manifest(tmp_path / "tr")
    pages = json.loads(write_manifest(tmp_path).read_text())["pages"]
    assert sorted(pages) == ["book/x.html", "index.html", "search.html"]
    assert pages["index.html"] == {"scripts": [csp_hash("a()")], "handlers": []}
    # search reads every page with DOMParser: it lists every page's handlers
    assert pages["search.html"]["handlers"] == [csp_hash("b()")]
    turkish = json.loads((tmp_path / "tr" / MANIFEST).read_text())["pages"]
    assert turkish == {"index.html": {"scripts": [csp_hash("c()")], "handlers": []}}


def test_compressible_files_get_a_gzip_copy_once(tmp_path):
    big = ("function f() { return 42; }\n" * 200).encode()
    (tmp_path / "app.js").write_bytes(big)
    (tmp_path / "small.css").write_bytes(b"a{}" * (MIN_COMPRESS_BYTES // 4))
    (tmp_path / "font.woff2").write_bytes(big)  # compressed already
    (tmp_path / "noise.svg").write_bytes(os.urandom(4096))  # does not pay
    assert precompress(tmp_path) == (1, 0)
    assert gzip.decompress((tmp_path / "app.js.gz").read_bytes()) == big
    assert sorted(p.name for p in tmp_path.glob("*.gz")) == ["app.js.gz"]
    assert precompress(tmp_path) == (0, 1)  # up to date: not written again

    packed = os.stat(tmp_path / "app.js.gz")
    assert packed.st_mtime_ns == os.stat(tmp_path / "app.js").st_mtime_ns  # the server's check

    # npm gives a package's files one fixed time: a new file as old as the one it replaced
    changed = big.replace(b"42", b"43")
    old = os.stat(tmp_path / "app.js")
    (tmp_path / "app.js").write_bytes(changed)
    os.utime(tmp_path / "app.js", ns=(old.st_atime_ns, old.st_mtime_ns))
    assert precompress(tmp_path) == (1, 0)
    assert gzip.decompress((tmp_path / "app.js.gz").read_bytes()) == changed


SPHINX_CATALOG = {
    "locale": "tr",
    "messages": {"Search": "Ara", "%(num)s page": ["%(num)s sayfa", "%(num)s sayfa"]},
    "plural_expr": "(n > 1)",
}
# What the rewritten catalog does in a page, run by node with doctools.js's object in place.
RUN_CATALOG = """
globalThis.Documentation = { TRANSLATIONS: {}, LOCALE: "unknown" };
require(process.argv[1]);
console.log(JSON.stringify([Documentation.TRANSLATIONS, Documentation.LOCALE,
                            Documentation.PLURAL_EXPR(1), Documentation.PLURAL_EXPR(2)]));
"""


def sphinx_translations(folder, catalog) -> str:
    path = folder / TRANSLATIONS_JS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"Documentation.addTranslations({json.dumps(catalog, indent=4)});\n")
    return path


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed (make setup)")
def test_sphinx_catalog_is_set_without_eval(tmp_path):
    path = sphinx_translations(tmp_path, SPHINX_CATALOG)
    assert rewrite_translations(tmp_path)
    text = path.read_text()
    assert "addTranslations(" not in text and "Function(" not in text and "eval(" not in text
    assert not rewrite_translations(tmp_path)  # once
    ran = subprocess.run(
        ["node", "-e", RUN_CATALOG, str(path)], capture_output=True, text=True, check=True
    )
    assert json.loads(ran.stdout) == [SPHINX_CATALOG["messages"], "tr", 0, 1]


def test_a_plural_rule_that_is_not_arithmetic_is_left_alone(tmp_path):
    catalog = dict(SPHINX_CATALOG, plural_expr="fetch('/x') && (n > 1)")
    before = sphinx_translations(tmp_path, catalog).read_text()
    assert not rewrite_translations(tmp_path)
    assert (tmp_path / TRANSLATIONS_JS).read_text() == before
    assert not rewrite_translations(tmp_path / "no-such-edition")
