"""Alembic migrations of the course server schema."""
