import numpy as np

import astcompile


@astcompile.compile(fullgraph=True)
def step(x):
    y = np.exp(x)
    print(y.mean())
    return y
