"""The course server's storage: SQLAlchemy models (``models``) and the database with its
sessions (``db``), Alembic ``migrations/``, the look-ups every request makes (``queries``),
answer saves (``answers``) committed in groups (``batching``), the private data folder
(``data_dir``, ``private_files``), backups (``backup``, ``restore``), and the graded questions
the item statistics read (``item_responses``).

It uses the exam's rules and refusals (``nccl_course.exam``) and never the server or the
issuer above it.
"""
