"""irpool's version, in a module of its own: formats and the command line read it without importing the package
(pyproject.toml reads it too, so the number is written once)."""
__version__ = "0.1.0"
