"""The printable certificate: an A4 landscape page drawn with matplotlib (PDF or PNG).

It shows the learner's name, the achievement, the score, the date, the issuer, the credential
id and a QR code (segno) that opens the verify page for this credential. No network. The QR
code is drawn module by module into an axes whose position is :data:`QR_RECT`, so a test can
read it back from the PNG.

Text from the credential is drawn literally, as the name rule prints it (``i18n.names``):

- no mathtext and no TeX (``parse_math=False``, ``usetex=False``): ``$\\frac{A}{B}$`` prints as
  typed, and ``$\\fakecommand{x}$`` cannot make the drawing fail;
- long text is shrunk, then wrapped, then (only past three lines at the smallest size)
  shortened with an ellipsis, so that it stays inside its box and the page's border;
- fonts: DejaVu Serif and DejaVu Sans (shipped with matplotlib: Latin, Turkish, Greek,
  Cyrillic, Hebrew, Arabic), then a CJK font when one is installed (Debian's
  ``fonts-noto-cjk``: Noto Serif/Sans CJK; see :data:`CJK_FONT_FILES`, or set
  ``$NCCL_COURSE_CJK_FONT`` to a font file). matplotlib (>= 3.11, libraqm) shapes Arabic and
  lays out right-to-left text.

The page's own words are in the certificate's language (``language``: the exam attempt's;
``nccl_course.i18n.interface`` translates them, "Başarı Sertifikası" in Turkish), and so is the
date (3 Aralık 2026) and the score (%87,5). The credential itself stays as it was issued: its
``name`` and ``description`` are English (see ``render_certificate``). DejaVu has every letter
Turkish uses (İ ı Ğ ğ Ş ş Ç ç Ö ö Ü ü); a glyph missing from the fonts for the page's own words
is a warning (for text from the credential it only draws a box, and is not reported).

The file appears whole or not at all: it is written to a temporary file in the same folder
and renamed over ``out_path``; on an error the temporary file is removed.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import textwrap
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import segno
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from nccl_course.certs.credential import (
    CredentialFormatError,
    check_credential_types,
    learner_name,
    parse_datetime,
    shown_achievement,
)
from nccl_course.certs.fonts import MONO, SANS, SERIF, families
from nccl_course.certs.issuer import verify_link
from nccl_course.i18n.interface import N_, translator
from nccl_course.i18n.names import isolated, printable_name, printable_text
from nccl_course.i18n.numbers import format_number, localize_decimals

PAGE_INCHES = (11.69, 8.27)  # A4 landscape
QR_RECT = (0.755, 0.095, 0.17, 0.17 * PAGE_INCHES[0] / PAGE_INCHES[1])  # left, bottom, w, h
QR_BORDER = 4  # quiet zone, in modules (ISO/IEC 18004 asks for 4)
INK = "#1b2a41"
ACCENT = "#76b900"
#: Centred text drawn as written: no mathtext, no TeX (a name with "$" prints literally).
CENTRED_TEXT = {"color": INK, "ha": "center", "va": "center", "parse_math": False, "usetex": False}
OUTER_BORDER = (0.03, 0.04, 0.94, 0.92)  # left, bottom, width, height (figure fraction)
INNER_BORDER = (0.045, 0.06, 0.91, 0.88)
MAX_LINK_CHARS = 400  # longer links make QR modules too small to print and scan

MONTHS = (
    N_("January"),
    N_("February"),
    N_("March"),
    N_("April"),
    N_("May"),
    N_("June"),
    N_("July"),
    N_("August"),
    N_("September"),
    N_("October"),
    N_("November"),
    N_("December"),
)
# What matplotlib says when no font has a character: "Glyph 305 (...) missing from font(s) ...".
_GLYPH_MISSING = re.compile(r"Glyph (\d+) .*missing from font")


def qr_matrix(url: str) -> np.ndarray:
    """The QR code of ``url`` as a 0/1 array (1 = dark), quiet zone included."""
    code = segno.make(url, error="m", micro=False)
    core = np.array([list(row) for row in code.matrix], dtype=np.uint8)
    return np.pad(core, QR_BORDER)


def _shown_score(score: str, language: str) -> str:
    """A credential's score (its JSON value as text, "87.5") as ``language`` writes numbers;
    a value that is no number is shown as issued, its decimal points localized."""
    try:
        return format_number(float(score), language)
    except ValueError:
        return localize_decimals(score, language)


def _score(credential: dict) -> str | None:
    subject = credential.get("credentialSubject")
    if isinstance(subject, list):
        subject = subject[0] if subject else None
    results = subject.get("result") if isinstance(subject, dict) else None
    for result in results if isinstance(results, list) else []:
        if isinstance(result, dict) and isinstance(result.get("value"), (str, int, float)):
            if not isinstance(result["value"], bool):
                return str(result["value"])[:20]
    return None


def _wrap(text: str, lines: int) -> list[str]:
    """``text`` in at most ``lines`` lines of similar length (breaking at spaces if it can)."""
    if lines == 1:
        return [text]
    width = max(1, -(-len(text) // lines))
    while True:
        wrapped = textwrap.wrap(text, width=width, break_long_words=True, break_on_hyphens=False)
        if len(wrapped) <= lines:
            return wrapped
        width += 1


def _fit(
    page,
    renderer,
    text: str,
    *,
    x: float,
    y: float,
    box: tuple[float, float],
    sizes: tuple[float, ...],
    max_lines: int = 1,
    ha: str = "center",
    **style,
):
    """Draw ``text`` at (x, y) as large as it fits in ``box`` (width, height; page fraction).

    Tries each size in ``sizes`` (largest first) with 1 to ``max_lines`` lines; if even the
    smallest size does not fit, shortens the text with an ellipsis until it does.
    """
    fig_w, fig_h = page.figure.bbox.width, page.figure.bbox.height
    max_w, max_h = box[0] * fig_w, box[1] * fig_h
    common = {"ha": ha, "va": "center", "parse_math": False, "usetex": False, "wrap": False}

    def draw(content: str, size: float):
        artist = page.text(x, y, content, fontsize=size, linespacing=1.15, **common, **style)
        extent = artist.get_window_extent(renderer)
        if extent.width <= max_w and extent.height <= max_h:
            return artist
        artist.remove()
        return None

    for size in sizes:
        for lines in range(1, max_lines + 1):
            artist = draw("\n".join(_wrap(text, lines)), size)
            if artist is not None:
                return artist
    # Too long for every size and line count: keep as much as fits, and say it was cut.
    low, high = 0, len(text)
    best = None
    while low < high:  # binary search on the number of characters kept
        mid = (low + high + 1) // 2
        candidate = text[:mid].rstrip() + "\u2026"
        artist = draw("\n".join(_wrap(candidate, max_lines)), sizes[-1])
        if artist is not None:
            if best is not None:
                best.remove()
            best, low = artist, mid
        else:
            high = mid - 1
    return best or draw("\u2026", sizes[-1])


def date_text(moment, tr) -> str:
    """A date as the language writes it: "3 December 2026", "3 Aralık 2026"."""
    month = tr(MONTHS[moment.month - 1])
    return tr(N_("{day} {month} {year}"), day=moment.day, month=month, year=moment.year)


def render_certificate(
    credential: dict,
    out_path: Path,
    verify_url: str,
    *,
    language: str = "en",
    locale_dir: Path | None = None,
) -> Path:
    """Write the certificate to ``out_path`` (.pdf or .png) and return the path.

    ``verify_url`` is the verify page; the QR code encodes :func:`verify_link` of it and the
    credential id. The page's own words, the date and the score are in ``language``; what the
    credential says (the learner's name, the achievement, the issuer) is drawn as it is, except
    the course's own achievement (``shown_achievement``), which is named in ``language``: the
    credential keeps the English ``name`` and ``description`` it was signed with, because Open
    Badges 3.0's JSON schema types them as plain strings (no language maps), as does this
    package's own check (``certs.credential.check_credential_types``, ``certs.schema``).
    Raises :class:`CredentialFormatError` (a ValueError) for a credential whose properties have
    unusable types, and ValueError for another file type or language.
    """
    tr = translator(language, locale_dir)
    out_path = Path(out_path)
    suffix = out_path.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise ValueError(f"{out_path}: the certificate is written as .pdf or .png")
    fields = _fields(credential, verify_url, tr)
    fig = Figure(figsize=PAGE_INCHES)
    renderer = FigureCanvasAgg(fig).get_renderer()
    page = fig.add_axes((0, 0, 1, 1))
    page.set_axis_off()
    page.set_xlim(0, 1)
    page.set_ylim(0, 1)
    page.add_patch(Rectangle(OUTER_BORDER[:2], *OUTER_BORDER[2:], fill=False, lw=3, ec=INK))
    page.add_patch(Rectangle(INNER_BORDER[:2], *INNER_BORDER[2:], fill=False, lw=1, ec=ACCENT))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _draw_what_was_achieved(page, renderer, fields, tr, language)
        _draw_who_issued_it(page, renderer, fields, tr)
        _draw_qr_code(fig, page, fields.link, tr)
        _save_atomically(fig, out_path, _save_options(suffix, fields, tr))
    _report_missing_glyphs(caught, fields.data)
    return out_path


@dataclass(frozen=True)
class _Fields:
    """What the page shows of a credential, read and checked once."""

    name: str
    achievement: str
    issuer_name: str
    issuer_id: str
    credential_id: str
    when: str
    score: str | None
    link: str

    @property
    def data(self) -> str:
        """What the credential says, drawn as written: a glyph missing for it only draws a box."""
        return "".join(
            str(t)
            for t in (
                self.name,
                self.achievement,
                self.issuer_name,
                self.issuer_id,
                self.credential_id,
            )
        )


def _fields(credential: dict, verify_url: str, tr) -> _Fields:
    """The fields of ``credential``; CredentialFormatError for unusable ones."""
    check_credential_types(credential)
    credential_id = credential.get("id")
    if not credential_id:
        raise CredentialFormatError("the credential has no id")
    if not isinstance(credential.get("validFrom"), str):
        raise CredentialFormatError("the credential has no validFrom date")
    link = verify_link(verify_url, credential_id)
    if len(link) > MAX_LINK_CHARS:
        raise CredentialFormatError("the credential id is too long to print as a QR code")
    # A foreign credential's text may hold a BOM (stops the PDF writer) or a bidi override.
    name = printable_name(learner_name(credential)) or tr(N_("(name not in credential)"))
    subject = credential.get("credentialSubject")
    subject = (subject[0] if subject else {}) if isinstance(subject, list) else subject
    achievement = (subject.get("achievement") or {}).get("name") or credential.get("name") or ""
    achievement = shown_achievement(achievement, tr)
    issuer = credential.get("issuer")
    issuer_id = issuer.get("id") if isinstance(issuer, dict) else issuer
    issuer_name = (issuer.get("name") if isinstance(issuer, dict) else None) or issuer_id
    return _Fields(
        name=name,
        achievement=printable_text(achievement),
        issuer_name=printable_text(issuer_name),
        issuer_id=printable_text(issuer_id),
        credential_id=printable_text(credential_id),
        when=date_text(parse_datetime(credential["validFrom"]), tr),
        score=_score(credential),
        link=link,
    )


def _draw_what_was_achieved(page, renderer, fields: _Fields, tr, language: str) -> None:
    """The upper half: the title, the learner's name, the achievement and the score."""
    text = CENTRED_TEXT
    serif, sans = families(SERIF, serif=True), families(SANS)
    title = tr(N_("Certificate of Achievement"))
    page.text(0.5, 0.85, title, fontsize=34, weight="bold", **text)
    page.text(0.5, 0.77, tr(N_("This certifies that")), fontsize=15, style="italic", **text)
    _fit(
        page,
        renderer,
        fields.name,
        x=0.5,
        y=0.685,
        box=(0.80, 0.115),
        sizes=(32, 28, 24, 20, 17, 14),
        max_lines=3,
        color=INK,
        family=serif,
    )
    page.plot([0.25, 0.75], [0.62, 0.62], color=ACCENT, lw=1.5)
    _fit(
        page,
        renderer,
        tr(N_("has passed the exam of")),
        x=0.5,
        y=0.575,
        box=(0.84, 0.045),
        sizes=(15, 13, 11),
        color=INK,
        style="italic",
    )
    _fit(
        page,
        renderer,
        fields.achievement,
        x=0.5,
        y=0.50,
        box=(0.84, 0.075),
        sizes=(22, 19, 16, 13),
        max_lines=2,
        color=INK,
        weight="bold",
        family=sans,
    )
    if fields.score is not None:
        _fit(
            page,
            renderer,
            tr(N_("with a score of {score} %"), score=_shown_score(fields.score, language)),
            x=0.5,
            y=0.42,
            box=(0.6, 0.04),
            sizes=(15,),
            color=INK,
            family=sans,
        )


def _draw_who_issued_it(page, renderer, fields: _Fields, tr) -> None:
    """The lower left: the date, the issuer, the ids and how to verify."""
    sans, mono = families(SANS), families(MONO)
    row = {"x": 0.08, "ha": "left", "color": INK}
    width = QR_RECT[0] - 0.08 - 0.02
    date = tr(N_("Date: {date}"), date=fields.when)
    _fit(page, renderer, date, y=0.27, box=(width, 0.04), sizes=(13,), **row)
    _fit(
        page,
        renderer,
        tr(N_("Issued by: {issuer}"), issuer=fields.issuer_name),
        y=0.22,
        box=(width, 0.04),
        sizes=(13, 11, 9),
        family=sans,
        **row,
    )
    labels = (
        (0.17, tr(N_("Issuer: {issuer}"), issuer=fields.issuer_id)),
        (0.13, tr(N_("Credential: {credential}"), credential=fields.credential_id)),
    )
    for y, label in labels:
        _fit(
            page,
            renderer,
            label,
            y=y,
            box=(width, 0.035),
            sizes=(9, 8, 7),
            family=mono,
            **row,
        )
    _fit(
        page,
        renderer,
        tr(N_("Verify: scan the code, or run 'nccl-course cert verify' on the credential file.")),
        x=0.08,
        y=0.09,
        box=(QR_RECT[0] - 0.08 - 0.01, 0.03),
        sizes=(9, 8, 7),
        ha="left",
        color=INK,
    )


def _draw_qr_code(fig, page, link: str, tr) -> None:
    """The QR code of the verify link, lower right, with its caption."""
    text = CENTRED_TEXT
    qr_ax = fig.add_axes(QR_RECT)
    qr_ax.set_axis_off()
    qr_ax.imshow(
        1 - qr_matrix(link),
        cmap="gray",
        vmin=0,
        vmax=1,
        interpolation="nearest",
        aspect="equal",
    )
    page.text(
        QR_RECT[0] + QR_RECT[2] / 2,
        QR_RECT[1] + QR_RECT[3] + 0.02,
        tr(N_("Scan to verify")),
        fontsize=10,
        **text,
    )


def _save_options(suffix: str, fields: _Fields, tr) -> dict:
    """Matplotlib's savefig options for a .pdf or .png, with the document's metadata."""
    title = tr(N_("Certificate: {name}"), name=isolated(fields.name))
    metadata = {"Title": title, "Subject": fields.credential_id}
    if suffix == ".pdf":
        metadata.update({"Keywords": fields.link, "Creator": "nccl-course", "CreationDate": None})
        return {"format": "pdf", "metadata": metadata}
    metadata.update({"Description": fields.link, "Software": "nccl-course"})
    return {"format": "png", "dpi": 150, "metadata": metadata}


def _report_missing_glyphs(caught: list, data: str) -> None:
    """Warn again what the drawing warned, but for glyphs of the credential's own text: those
    are drawn as boxes, as any text a font lacks (a name in a script no installed font has). A
    glyph missing for the page's own words (a translation the fonts cannot show) is a warning
    that names the character."""
    for w in caught:
        found = _GLYPH_MISSING.search(str(w.message))
        if found and chr(int(found.group(1))) in data:
            continue
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


def _save_atomically(fig: Figure, out_path: Path, options: dict) -> None:
    """savefig to a temporary file beside ``out_path``, then rename it; never a partial file."""
    folder = out_path.parent
    fd, tmp_name = tempfile.mkstemp(
        dir=folder, prefix=f".{out_path.name}.", suffix=".tmp" + out_path.suffix
    )
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            fig.savefig(handle, **options)
        # As readable as the folder it lands in: 0644 in an ordinary folder, 0600 in a
        # private one (the exam server's data folder: a certificate names its learner).
        os.chmod(tmp, 0o600 | (0o044 & os.stat(folder).st_mode))
        os.replace(tmp, out_path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        raise
