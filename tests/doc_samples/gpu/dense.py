"""docs/gpu.md: explain names the Triton matmul kernel and its epilogue."""

import numpy as np
from model import dense

import astcompile

x, w, b = (np.random.rand(*shape).astype(np.float32) for shape in ((64, 32), (32, 16), (16,)))
print(astcompile.explain(astcompile.compile(dense, backend="triton"), x, w, b))
