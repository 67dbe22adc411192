"""The fonts of the printable certificate: DejaVu (shipped with matplotlib: Latin, Turkish, Greek,
Cyrillic, Hebrew, Arabic), then a CJK font when one is installed (Debian's ``fonts-noto-cjk``,
Fedora's paths, two smaller fallbacks, or a file named by ``$NCCL_COURSE_CJK_FONT``)."""

from __future__ import annotations

import contextlib
import os

from matplotlib import font_manager

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


def families(base: list[str], serif: bool = False) -> list[str]:
    """``base`` followed by an installed CJK family, if any (matplotlib falls back in order)."""
    cjk = cjk_font_family(serif)
    return base + ([cjk] if cjk else [])
