"""The languages the course is written in: English (the source) and Turkish."""

from __future__ import annotations

#: Every language of the course, the source language first.
LANGUAGES = ("en", "tr")
#: The language everything is written in first; the others are translated from it.
SOURCE_LANGUAGE = "en"
#: Each language's name in itself: what a language switcher shows.
ENDONYMS = {"en": "English", "tr": "Türkçe"}
