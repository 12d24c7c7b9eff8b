import numpy as np

import astcompile


@astcompile.compile
def solve(a, b, tol):
    x = np.linalg.solve(a, b)
    print("residual", np.abs(a @ x - b).max())
    if np.abs(x).max() > tol:
        x = x / np.abs(x).max()
    astcompile.graph_break()
    return x
