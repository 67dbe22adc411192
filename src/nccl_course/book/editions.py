"""Build the book's editions: English at ``_build/html``, Turkish at ``_build/html/tr``.

Both editions are built from the same sources by Sphinx's gettext workflow. The English
sources are the originals; ``locales/tr/LC_MESSAGES/*.po`` hold the Turkish text for every
translatable paragraph. The notebooks execute once: every build shares the jupyter-cache
under ``_build/.jupyter_cache``, which is keyed by the code cells, and translation changes
only prose.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from nccl_course import yaml_text
from nccl_course.i18n.interface import COURSE_TITLE, translator
from nccl_course.i18n.languages import LANGUAGES, SOURCE_LANGUAGE

#: The book's title (``title`` in _config.yml; tests/test_turkish_edition.py keeps them equal),
#: shown in each edition's language: the course's name.
BOOK_TITLE = COURSE_TITLE

#: The book's own theme templates (the author line in each edition's language), relative to
#: the repository root; they come before the theme's, which appends its folders after them.
TEMPLATES_DIR = "_templates"

#: Where the translations live, relative to the repository root (Sphinx's ``locale_dirs``).
LOCALE_DIR = "locales"
#: Sphinx's gettext output: one .pot per page.
GETTEXT_DIR = Path("_build") / "gettext"


@dataclass(frozen=True)
class Edition:
    """One build of the book: which builder, in which language, written where."""

    language: str
    builder: str
    output: Path  # where Sphinx writes, relative to the repository root
    doctrees: Path
    # Where the finished edition is published, when not where Sphinx writes: the Turkish
    # edition is built beside the English one (myst-nb puts its execution files next to the
    # output folder) and then copied under it.
    published: Path | None = None

    @property
    def url_prefix(self) -> str:
        """The edition's folder under the site root: "" for English, "tr/" for Turkish."""
        return "" if self.language == SOURCE_LANGUAGE else f"{self.language}/"


def html_edition(language: str) -> Edition:
    """The HTML edition in ``language``; English stays at the site root so no URL changes."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}; the book has {', '.join(LANGUAGES)}")
    if language == SOURCE_LANGUAGE:
        return Edition(language, "html", Path("_build/html"), Path("_build/.doctrees"))
    return Edition(
        language,
        "html",
        Path(f"_build/{language}/html"),
        Path(f"_build/.doctrees-{language}"),
        published=Path("_build/html") / language,
    )


# The gettext build writes the templates from the English HTML build's doctrees, which
# nccl_course.book.message_doctrees keeps readable by the gettext builder: it reads no page
# again (about 8 s instead of 40 s of CPU). The English edition must be built and up to date
# first (``write_templates`` sees to it): a page the gettext builder read itself would be kept
# in that folder as read for gettext, without what the HTML build adds when it reads a page.
GETTEXT_EDITION = Edition(
    SOURCE_LANGUAGE, "gettext", GETTEXT_DIR, html_edition(SOURCE_LANGUAGE).doctrees
)


#: The table of contents' part captions are messages of their own catalog (toc.po).
TOC_DOMAIN = "toc"


def toc_captions(root: Path) -> list[str]:
    """The part captions of ``_toc.yml``, in order."""

    toc = yaml_text.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    return [part["caption"] for part in toc.get("parts", []) if part.get("caption")]


def toc_for(root: Path, language: str) -> Path:
    """``_toc.yml``, or for a translated edition a copy with its part captions translated
    (``locales/LANG/LC_MESSAGES/toc.po``), written under ``_build/``."""
    if language == SOURCE_LANGUAGE:
        return root / "_toc.yml"
    import yaml

    from nccl_course.i18n.catalogs import load

    catalog = root / LOCALE_DIR / language / "LC_MESSAGES" / f"{TOC_DOMAIN}.po"
    translated = {}
    if catalog.exists():
        translated = {
            str(m.id): m.string for m in load(catalog) if m.id and m.string and not m.fuzzy
        }
    toc = yaml_text.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    for part in toc.get("parts", []):
        if part.get("caption"):
            part["caption"] = translated.get(part["caption"], part["caption"])
    path = root / "_build" / f"_toc.{language}.yml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(toc, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def build(root: Path, edition: Edition, *, strict: bool = True, jobs: int = 1) -> int:
    """Build ``edition`` of the book under ``root`` with Jupyter Book's Sphinx set-up.

    Returns Sphinx's exit status (0 when the build had no warning, with ``strict``).
    """
    # Imported here: jupyter_book pulls in all of Sphinx, which the CLI should not pay for.
    from jupyter_book.sphinx import build_sphinx

    overrides: dict[str, object] = {
        "external_toc_path": toc_for(root, edition.language).as_posix(),
        "latex_individualpages": False,
        "nitpicky": True,
        "language": edition.language,
        "locale_dirs": [LOCALE_DIR],
        "templates_path": [(root / TEMPLATES_DIR).as_posix()],
        # One catalog per page (book/intro.po, ...), so translators work page by page.
        "gettext_compact": False,
        # The Turkish edition's untranslated text would silently show in English; the catalog
        # check (nccl_course.book.translations) fails on it instead.
        "gettext_uuid": False,
        "gettext_location": False,
        # One cache for every edition: the notebooks execute once, whatever the language.
        "nb_execution_cache_path": (root / "_build" / ".jupyter_cache").as_posix(),
    }
    if edition.language != SOURCE_LANGUAGE:
        overrides["html_title"] = translator(edition.language)(BOOK_TITLE)
    from nccl_course.book.message_doctrees import drop_doctrees_of_older_builds

    if drop_doctrees_of_older_builds(root / edition.doctrees):
        print(
            f"{edition.doctrees}: written by an older build of the book; removed, every page is read again"
        )
    status = build_sphinx(
        root,
        root / edition.output,
        noconfig=True,
        path_config=str(root / "_config.yml"),
        confoverrides=overrides,
        doctreedir=root / edition.doctrees,
        builder=edition.builder,
        warningiserror=strict,
        keep_going=True,
        jobs=jobs,
    )
    if not isinstance(status, int):  # build_sphinx returns the exception it reported
        return 1
    if edition.published is not None and status == 0:
        shutil.rmtree(root / edition.published, ignore_errors=True)
        shutil.copytree(root / edition.output, root / edition.published)
    return status


def clean_gettext(root: Path) -> None:
    """Remove old .pot files so a page that no longer exists leaves no catalog behind."""
    shutil.rmtree(root / GETTEXT_DIR, ignore_errors=True)


def write_templates(root: Path, *, english_built: bool = False) -> int:
    """Make every gettext template from the English now: the book's pages (Sphinx's gettext
    builder on the English edition's doctrees), the quiz banks and the interface strings.
    Builds the English edition first unless ``english_built`` (it was just built, nothing has
    changed since). Returns the first non-zero Sphinx exit status, else 0."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import write_po

    from nccl_course.i18n import interface
    from nccl_course.quiz import translation
    from nccl_course.quiz.banks import load_banks

    if not english_built:
        status = build(root, html_edition(SOURCE_LANGUAGE))
        if status != 0:
            return status
    clean_gettext(root)
    status = build(root, GETTEXT_EDITION)
    translation.write_templates(load_banks(root / "quizzes"), root / GETTEXT_DIR)
    interface.write_template(root / GETTEXT_DIR)
    captions = Catalog(project="nccl-course table of contents", charset="utf-8")
    for caption in toc_captions(root):
        captions.add(caption)
    with (root / GETTEXT_DIR / f"{TOC_DOMAIN}.pot").open("wb") as f:
        write_po(f, captions, width=0)
    return status


def translated_languages() -> list[str]:
    return [lang for lang in LANGUAGES if lang != SOURCE_LANGUAGE]


def catalog_report(root: Path, language: str, pot_dir: Path | None = None) -> str | None:
    """What keeps the ``language`` edition from matching the English, as the build prints it
    (None when every template entry has a current translation). ``pot_dir`` defaults to the
    templates the last ``write_templates`` made."""
    from nccl_course.i18n.catalogs import UPDATE_HINT, check

    problems = check(
        root,
        pot_dir if pot_dir is not None else root / GETTEXT_DIR,
        root / LOCALE_DIR / language / "LC_MESSAGES",
    )
    if not problems:
        return None
    lines = [p.describe() for p in problems[:40]]
    if len(problems) > 40:
        lines.append(f"... and {len(problems) - 40} more")
    lines.append(
        f"\n{len(problems)} catalog entries keep the {language!r} edition from matching the "
        f"English: {UPDATE_HINT}"
    )
    return "\n".join(lines)
