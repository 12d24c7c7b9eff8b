"""docs/api.md: one recompile of each kind the recompiles log names."""

import numpy as np

import astcompile


class Layer:
    def __init__(self):
        self.w = np.ones(4)

    @astcompile.compile
    def forward(self, x):
        return x * self.w


@astcompile.compile
def f(x, flag, mode):
    y = x * 2
    if flag:
        y = y + 1
    if mode == "a":
        y = y - 3
    return y


@astcompile.compile
def add(a, b):
    return a + b


@astcompile.compile
def every_half(x):
    return x[:: x.shape[0] // 2] * 2


x = np.ones(4)
layer = Layer()
layer.forward(x)
layer.w = layer.w.astype(np.float32)
layer.forward(x)
f(x, False, "a")
f(x, False, "b")
f(x, True, "a")
add(x, x + 1)
add(x, np.ones(1))
every_half(np.arange(6.0))
every_half(np.arange(8.0))
