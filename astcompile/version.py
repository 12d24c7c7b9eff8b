"""The release number, in a module of its own: the cache and build identity read it without
importing the package's ``__init__`` (which imports the whole API)."""

__version__ = "0.1.0"
