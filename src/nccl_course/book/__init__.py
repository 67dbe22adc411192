"""Sphinx extensions the Jupyter Book loads (see _config.yml, sphinx.extra_extensions)."""
