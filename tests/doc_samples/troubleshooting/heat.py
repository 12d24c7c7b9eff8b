import numpy as np

import astcompile


@astcompile.compile(backend="c")
def heat(u, steps):
    total = 0.0
    for t in range(steps):
        u[1:-1] = 0.5 * (u[:-2] + u[2:])
        total = total + u[t]
    return total


print(heat(np.linspace(0.0, 1.0, 64), 5))
