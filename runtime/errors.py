"""Errors the runtime raises. The compiler maps them to ``astcompile.errors.CompileError``.

The runtime must not import the compiler, so it defines its own small hierarchy here.
"""

from __future__ import annotations


class RuntimeBuildError(Exception):
    """A kernel could not be built or loaded (compiler missing, compiler error, unsafe cache)."""


class CompilerNotFound(RuntimeBuildError):
    """No C compiler on PATH (or in ``$CC``)."""


class UnsafeCacheDir(RuntimeBuildError):
    """A cache folder or file is writable by others or owned by someone else (runtime/trust.py)."""


class BuildTimeout(RuntimeBuildError):
    """The C compiler ran longer than ``config.build_timeout``."""
