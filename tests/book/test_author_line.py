"""The footer's author line in each edition's language: the whole line is one interface
message, so Turkish puts the author first; the author is the one _config.yml names."""

from __future__ import annotations

from pathlib import Path

from nccl_course import yaml_text
from nccl_course.book.language_switch import AUTHORS, author_line
from nccl_course.i18n.english_text import is_english

REPO = Path(__file__).resolve().parents[2]


def test_the_author_line_in_each_language():
    config = yaml_text.safe_load((REPO / "_config.yml").read_text(encoding="utf-8"))
    assert config["author"] == AUTHORS
    assert author_line(AUTHORS, "en") == "By The nccl-course authors"
    turkish = author_line(AUTHORS, "tr")
    assert turkish == "Hazırlayan: nccl-course yazarları" and not is_english(turkish)
    assert "Tarafından" not in turkish and "authors" not in turkish
