import numpy as np

import astcompile as ac


def scale(x):
    return x * 2


@ac.compile(fullgraph=True)
def fused(x):
    return np.exp(scale(x))


def step(x):
    y = np.exp(x)
    print(y.mean())
    return y


strict_step = ac.compile(step, fullgraph=True)
