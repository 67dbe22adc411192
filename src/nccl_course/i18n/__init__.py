"""Translations: the gettext catalogs and the rules they keep, below every other part.

``catalogs`` checks that every English message has a current translation and that a
translation keeps the markup it must (math, code, citations, link targets, placeholders);
``interface`` gives the interface's own words in a language; ``numbers`` writes and reads
numbers the way each language does (``1,5`` in Turkish); ``po_work`` hands catalogs to
translators. A quiz bank in another language is ``nccl_course.quiz.translation``.
"""
