"""What runs at call time: building, caching and loading kernels (no compiler import here).

Installed as ``astcompile.runtime`` so ahead-of-time artifacts load with only this package.
"""

from .errors import BuildTimeout, CompilerNotFound, RuntimeBuildError, UnsafeCacheDir
from .loader import load_library
from .parallel import nthreads, num_threads, set_num_threads
from .timing import compile_times

# Imported now for its copy of NumPy's namespace (Triton's interpreter computes on it): taken
# at astcompile's import, before a user patches np.sum for a test.
from .triton_math import interpreting as _interpreting  # noqa: F401

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
