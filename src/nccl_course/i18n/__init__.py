"""Translations: the gettext catalogs of the book and the quiz banks, and the rules they keep.

``catalogs`` checks that every English message has a current Turkish one and that a
translation keeps the markup it must (math, code, citations, link targets, placeholders);
``quiz_catalog`` turns the banks into catalogs and a bank into another language;
``numbers`` writes and reads numbers the way each language does (``1,5`` in Turkish).
"""
