"""Narration: a spoken overview of every chapter, made offline by the course's own build.

Each chapter carries a script for the ear in a ``{narration}`` directive (``script``); the
Turkish script is the page's gettext catalog applied to it, like every other paragraph.
``voices`` says which engine and voice speak each language and how words are pronounced,
``synthesis`` makes the samples, ``audio_store`` encodes them and keeps them under
``narration/LANG/`` named by a key of (spoken text, voice, engine version, encoding), so a changed
script can never find an old file. ``sphinx_directive`` puts the player and the transcript in
the page; ``nccl-course narrate`` (``nccl_course.commands.narrate``) makes what is missing.
"""
