import numpy as np

import astcompile


@astcompile.compile
def load_and_scale(path):
    with open(path) as f:
        data = np.loadtxt(f)
    try:
        return data * 2.0
    except ValueError:
        return data
