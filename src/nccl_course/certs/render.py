"""The printable certificate: an A4 landscape page drawn with matplotlib (PDF or PNG).

It shows the learner's name, the achievement, the score, the date, the issuer, the credential
id and a QR code (segno) that opens the verify page for this credential. No network. The QR
code is drawn module by module into an axes whose position is :data:`QR_RECT`, so a test can
read it back from the PNG.

Text from the credential is drawn literally, whatever it holds:

- no mathtext and no TeX (``parse_math=False``, ``usetex=False``): ``$\\frac{A}{B}$`` prints as
  typed, and ``$\\fakecommand{x}$`` cannot make the drawing fail;
- long text is shrunk, then wrapped, then (only past three lines at the smallest size)
  shortened with an ellipsis, so that it stays inside its box and the page's border;
- fonts: DejaVu Serif and DejaVu Sans (shipped with matplotlib: Latin, Turkish, Greek,
  Cyrillic, Hebrew, Arabic), then a CJK font when one is installed (Debian's
  ``fonts-noto-cjk``: Noto Serif/Sans CJK; see :data:`CJK_FONT_FILES`, or set
  ``$NCCL_COURSE_CJK_FONT`` to a font file). matplotlib (>= 3.11, libraqm) shapes Arabic and
  lays out right-to-left text.

The file appears whole or not at all: it is written to a temporary file in the same folder
and renamed over ``out_path``; on an error the temporary file is removed.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import textwrap
import warnings
from pathlib import Path

import numpy as np
import segno
from matplotlib import font_manager
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from nccl_course.certs.credential import (
    CredentialFormatError,
    check_credential_types,
    learner_name,
    parse_datetime,
)
from nccl_course.certs.issuer import verify_link

PAGE_INCHES = (11.69, 8.27)  # A4 landscape
QR_RECT = (0.755, 0.095, 0.17, 0.17 * PAGE_INCHES[0] / PAGE_INCHES[1])  # left, bottom, w, h
QR_BORDER = 4  # quiet zone, in modules (ISO/IEC 18004 asks for 4)
INK = "#1b2a41"
ACCENT = "#76b900"
OUTER_BORDER = (0.03, 0.04, 0.94, 0.92)  # left, bottom, width, height (figure fraction)
INNER_BORDER = (0.045, 0.06, 0.91, 0.88)
MAX_LINK_CHARS = 400  # longer links make QR modules too small to print and scan

# Font files that cover CJK, all registered when present (Debian/Ubuntu's fonts-noto-cjk,
# then Fedora's paths, then two smaller fallbacks).
CJK_FONT_FILES = (
    "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSerifCJK-Regular.ttc",
    "/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc",
    "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
    "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc",
)
CJK_SERIF_FAMILIES = ("Noto Serif CJK JP", "Source Han Serif")
CJK_SANS_FAMILIES = (
    "Noto Sans CJK JP",
    "Source Han Sans",
    "Droid Sans Fallback",
    "WenQuanYi Zen Hei",
)
SERIF = ["DejaVu Serif", "DejaVu Sans"]
SANS = ["DejaVu Sans"]
MONO = ["DejaVu Sans Mono", "DejaVu Sans"]
_cjk: dict[str, str | None] = {}


def _register_cjk_fonts() -> set[str]:
    """Register the CJK font files found with matplotlib; the family names it then knows."""
    extra = os.environ.get("NCCL_COURSE_CJK_FONT", "")
    for path in (extra, *CJK_FONT_FILES):
        if path and os.path.isfile(path):
            with contextlib.suppress(OSError, RuntimeError, ValueError):
                font_manager.fontManager.addfont(path)
    names = {f.name for f in font_manager.fontManager.ttflist}
    if extra and os.path.isfile(extra):
        with contextlib.suppress(Exception):
            _cjk["extra"] = font_manager.FontProperties(fname=extra).get_name()
    return names


def cjk_font_family(serif: bool = False) -> str | None:
    """The family name of an installed CJK font (serif if there is one), or None."""
    key = "serif" if serif else "sans"
    if key not in _cjk:
        names = _register_cjk_fonts()
        sans = next((n for n in CJK_SANS_FAMILIES if n in names), None)
        _cjk["sans"] = _cjk.get("extra") or sans
        _cjk["serif"] = _cjk.get("extra") or next(
            (n for n in CJK_SERIF_FAMILIES if n in names), sans
        )
    return _cjk[key]


def _families(base: list[str], serif: bool = False) -> list[str]:
    cjk = cjk_font_family(serif)
    return base + ([cjk] if cjk else [])


def qr_matrix(url: str) -> np.ndarray:
    """The QR code of ``url`` as a 0/1 array (1 = dark), quiet zone included."""
    code = segno.make(url, error="m", micro=False)
    core = np.array([list(row) for row in code.matrix], dtype=np.uint8)
    return np.pad(core, QR_BORDER)


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


def render_certificate(credential: dict, out_path: Path, verify_url: str) -> Path:
    """Write the certificate to ``out_path`` (.pdf or .png) and return the path.

    ``verify_url`` is the verify page; the QR code encodes :func:`verify_link` of it and the
    credential id. Raises :class:`CredentialFormatError` (a ValueError) for a credential whose
    properties have unusable types, and ValueError for another file type.
    """
    out_path = Path(out_path)
    suffix = out_path.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise ValueError(f"{out_path}: the certificate is written as .pdf or .png")
    check_credential_types(credential)
    credential_id = credential.get("id")
    if not credential_id:
        raise CredentialFormatError("the credential has no id")
    if not isinstance(credential.get("validFrom"), str):
        raise CredentialFormatError("the credential has no validFrom date")
    link = verify_link(verify_url, credential_id)
    if len(link) > MAX_LINK_CHARS:
        raise CredentialFormatError("the credential id is too long to print as a QR code")
    name = learner_name(credential) or "(name not in credential)"
    subject = credential.get("credentialSubject")
    subject = (subject[0] if subject else {}) if isinstance(subject, list) else subject
    achievement = (subject.get("achievement") or {}).get("name") or credential.get("name") or ""
    issuer = credential.get("issuer")
    issuer_id = issuer.get("id") if isinstance(issuer, dict) else issuer
    issuer_name = (issuer.get("name") if isinstance(issuer, dict) else None) or issuer_id
    when = parse_datetime(credential["validFrom"]).strftime("%d %B %Y")
    score = _score(credential)

    fig = Figure(figsize=PAGE_INCHES)
    renderer = FigureCanvasAgg(fig).get_renderer()
    page = fig.add_axes((0, 0, 1, 1))
    page.set_axis_off()
    page.set_xlim(0, 1)
    page.set_ylim(0, 1)
    page.add_patch(Rectangle(OUTER_BORDER[:2], *OUTER_BORDER[2:], fill=False, lw=3, ec=INK))
    page.add_patch(Rectangle(INNER_BORDER[:2], *INNER_BORDER[2:], fill=False, lw=1, ec=ACCENT))
    text = {"color": INK, "ha": "center", "va": "center", "parse_math": False, "usetex": False}
    left = {**text, "ha": "left"}
    serif, sans, mono = _families(SERIF, serif=True), _families(SANS), _families(MONO)
    with warnings.catch_warnings():
        # A glyph no installed font has is drawn as a box; the warning says nothing more.
        warnings.filterwarnings("ignore", message="Glyph .* missing from font")
        page.text(0.5, 0.85, "Certificate of Achievement", fontsize=34, weight="bold", **text)
        page.text(0.5, 0.77, "This certifies that", fontsize=15, style="italic", **text)
        _fit(
            page,
            renderer,
            name,
            x=0.5,
            y=0.685,
            box=(0.80, 0.115),
            sizes=(32, 28, 24, 20, 17, 14),
            max_lines=3,
            color=INK,
            family=serif,
        )
        page.plot([0.25, 0.75], [0.62, 0.62], color=ACCENT, lw=1.5)
        page.text(0.5, 0.575, "has passed the exam of", fontsize=15, style="italic", **text)
        _fit(
            page,
            renderer,
            achievement,
            x=0.5,
            y=0.50,
            box=(0.84, 0.075),
            sizes=(22, 19, 16, 13),
            max_lines=2,
            color=INK,
            weight="bold",
            family=sans,
        )
        if score is not None:
            _fit(
                page,
                renderer,
                f"with a score of {score} %",
                x=0.5,
                y=0.42,
                box=(0.6, 0.04),
                sizes=(15,),
                color=INK,
                family=sans,
            )
        row = {"x": 0.08, "ha": "left", "color": INK}
        width = QR_RECT[0] - 0.08 - 0.02
        _fit(page, renderer, f"Date: {when}", y=0.27, box=(width, 0.04), sizes=(13,), **row)
        _fit(
            page,
            renderer,
            f"Issued by: {issuer_name}",
            y=0.22,
            box=(width, 0.04),
            sizes=(13, 11, 9),
            family=sans,
            **row,
        )
        for y, label in ((0.17, f"Issuer: {issuer_id}"), (0.13, f"Credential: {credential_id}")):
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
        page.text(
            0.08,
            0.09,
            "Verify: scan the code, or run 'nccl-course cert verify' on the credential file.",
            fontsize=9,
            **left,
        )
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
            "Scan to verify",
            fontsize=10,
            **text,
        )
        metadata = {"Title": f"Certificate: {name}", "Subject": credential_id}
        if suffix == ".pdf":
            metadata.update({"Keywords": link, "Creator": "nccl-course", "CreationDate": None})
            options = {"format": "pdf", "metadata": metadata}
        else:
            metadata.update({"Description": link, "Software": "nccl-course"})
            options = {"format": "png", "dpi": 150, "metadata": metadata}
        _save_atomically(fig, out_path, options)
    return out_path


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
