"""Run it yourself: every executable page ships as a .ipynb with a download button; launch
buttons appear only when a repository URL is configured, and then point at the right file."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import jupytext
import nbformat
from sphinx.application import Sphinx

from nccl_course.book.run_buttons import launch_links
from nccl_course.i18n.interface import catalog_path

REPO = Path(__file__).resolve().parents[2]
LAUNCH = {
    "notebook_interface": "jupyterlab",
    "binderhub_url": "https://mybinder.org/",
    "jupyterhub_url": "https://hub.example.edu",
    "colab_url": "https://colab.research.google.com",
}
NOTEBOOK_PAGE = """\
---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# A notebook page

```{code-cell} ipython3
print(6 * 7)
```
"""


def test_launch_links_exact():
    links = launch_links(
        "notebooks/00-first-look",
        ".md",
        "https://github.com/org/course",
        "main",
        "",
        LAUNCH,
        "gh-pages",
    )
    assert links == [
        (
            "Binder",
            "https://mybinder.org/v2/gh/org/course/main?urlpath=lab/tree/notebooks/00-first-look.md",
        ),
        (
            "JupyterHub",
            "https://hub.example.edu/hub/user-redirect/git-pull?repo=https%3A//github.com/org/course"
            "&urlpath=lab/tree/course/notebooks/00-first-look.md&branch=main",
        ),
        (
            "Colab",
            "https://colab.research.google.com/github/org/course/blob/gh-pages/"
            "_notebooks/notebooks/00-first-look.ipynb",
        ),
    ]


def test_no_links_without_a_github_repository_or_colab_without_the_site_branch():
    assert launch_links("a", ".md", "", "main", "", LAUNCH) == []
    # Jupyter Book's own default repository means "none configured"
    default = "https://github.com/executablebooks/jupyter-book"
    assert launch_links("a", ".md", default, "main", "", LAUNCH) == []
    assert launch_links("a", ".md", "https://gitlab.com/org/course", "main", "", LAUNCH) == []
    services = [s for s, _ in launch_links("a", ".md", "https://github.com/o/r", "", "", LAUNCH)]
    assert services == ["Binder", "JupyterHub"]  # Colab reads .ipynb only: needs the site branch


def configured_build(tmp_path, language: str = "en"):
    """A notebook page in a book that names its repository and launch services."""
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "sub" / "nb.md").write_text(NOTEBOOK_PAGE)
    (src / "index.md").write_text("# Home\n\n```{toctree}\nsub/nb\n```\n")
    (src / "conf.py").write_text(
        textwrap.dedent(
            f"""
            extensions = ["myst_nb", "nccl_course.book.run_buttons"]
            html_theme = "sphinx_book_theme"
            language = "{language}"
            nb_execution_mode = "off"
            nccl_notebooks_branch = "gh-pages"
            html_theme_options = {{
                "repository_url": "https://github.com/org/course",
                "repository_branch": "main",
                "path_to_docs": "book",
                "launch_buttons": {LAUNCH!r},
            }}
            """
        )
    )
    out = tmp_path / "html"
    app = Sphinx(str(src), str(src), str(out), str(tmp_path / "doctrees"), "html", status=None)
    app.build()
    return app


def test_configured_build_points_at_the_page(tmp_path):
    out = Path(configured_build(tmp_path).outdir)
    page = (out / "sub" / "nb.html").read_text()
    hrefs = set(re.findall(r'href="([^"]+)"', page.replace("&amp;", "&")))
    assert "https://mybinder.org/v2/gh/org/course/main?urlpath=lab/tree/book/sub/nb.md" in hrefs
    assert (
        "https://colab.research.google.com/github/org/course/blob/gh-pages/_notebooks/sub/nb.ipynb"
        in hrefs
    )
    assert "../_notebooks/sub/nb.ipynb" in hrefs
    notebook = nbformat.read(out / "_notebooks" / "sub" / "nb.ipynb", as_version=4)
    assert [c.source for c in notebook.cells if c.cell_type == "code"] == ["print(6 * 7)"]
    # the theme's own launch links (Colab to the .md) are not there, and a plain page has none
    assert not any(h.endswith("nb.md") and "colab" in h for h in hrefs)
    assert "launch-buttons" not in (out / "index.html").read_text()
    for tooltip in (
        "Download this page as a Jupyter notebook (.ipynb)",
        "Run this page yourself",
        "Open in Binder",
        "Open in Colab",
    ):
        assert tooltip in page, tooltip


def test_buttons_speak_turkish_in_the_turkish_edition(tmp_path):
    app = configured_build(tmp_path, "tr")
    out = Path(app.outdir)
    page = (out / "sub" / "nb.html").read_text(encoding="utf-8")
    for tooltip in (
        "Bu sayfayı Jupyter notebook (.ipynb) olarak indir",
        "Bu sayfayı kendiniz çalıştırın",
        "Binder ile aç",
        "JupyterHub ile aç",
        "Colab ile aç",
    ):
        assert tooltip in page, tooltip
    for english in ("Download this page as", "Run this page yourself", "Open in "):
        assert english not in page, english
    hrefs = set(re.findall(r'href="([^"]+)"', page.replace("&amp;", "&")))
    assert "../_notebooks/sub/nb.ipynb" in hrefs
    # the notebook page is written again when the catalog changes; the plain page has no button
    assert str(catalog_path("tr")) in app.env.dependencies["sub/nb"]
    assert str(catalog_path("tr")) not in app.env.dependencies.get("index", set())


def test_built_book_has_notebooks_and_no_launch_buttons(built_book):
    """The normal build names no repository: no launch button anywhere, and every executable
    page links a notebook generated from its MyST source."""
    pages = sorted(built_book.rglob("*.html"))
    assert not [p for p in pages if "launch-buttons" in p.read_text()]
    executable = [
        p
        for p in REPO.glob("**/*.md")
        if "kernelspec:" in p.read_text()[:400]
        and ".venv" not in p.parts
        and "node_modules" not in p.parts
        and "_build" not in p.parts
    ]
    assert len(executable) >= 10
    for source in executable:
        doc = source.relative_to(REPO).with_suffix("")
        html = built_book / doc.with_suffix(".html")
        if not html.exists():  # not in the toc (e.g. a README outside the book)
            continue
        depth = len(doc.parts) - 1
        href = "../" * depth + f"_notebooks/{doc.as_posix()}.ipynb"
        assert f'href="{href}"' in html.read_text(), doc
        shipped = nbformat.read(built_book / "_notebooks" / f"{doc.as_posix()}.ipynb", as_version=4)
        expected = jupytext.read(source)
        code = [c.source for c in shipped.cells if c.cell_type == "code"]
        assert code == [c.source for c in expected.cells if c.cell_type == "code"], doc
