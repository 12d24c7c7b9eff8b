"""docs/cli.md: something in the kernel cache for `astcompile cache info` to list."""

import numpy as np

import astcompile


@astcompile.compile
def scaled(x):
    return np.sin(x) * 2.0


scaled(np.ones(8))
