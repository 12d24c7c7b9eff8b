"""What runs at call time: building, caching and loading kernels (no compiler import here).

Installed as ``astcompile.runtime`` so ahead-of-time artifacts load with only this package.
"""

from .errors import BuildTimeout, CompilerNotFound, RuntimeBuildError, UnsafeCacheDir
from .loader import load_library
from .parallel import nthreads, num_threads, set_num_threads
from .timing import compile_times

__all__ = [
    "BuildTimeout",
    "CompilerNotFound",
    "RuntimeBuildError",
    "UnsafeCacheDir",
    "compile_times",
    "load_library",
    "nthreads",
    "num_threads",
    "set_num_threads",
]
