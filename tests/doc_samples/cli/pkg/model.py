import numpy as np

import astcompile


@astcompile.compile(fullgraph=True)
def noisy(x):
    y = np.exp(x)
    print(y)
    return y


@astcompile.compile
def signed(x):
    if x.sum() > 0:
        return x
    return -x
