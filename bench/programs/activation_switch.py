"""A layer's activation picked by an Enum in a namedtuple config (``cfg.act is Act.GELU``)."""

import enum
from collections import namedtuple

import numpy as np


class Act(enum.Enum):
    RELU = "relu"
    TANH = "tanh"
    GELU = "gelu"


Config = namedtuple("Config", ["act", "scale", "bias"])


def activation_switch(x, cfg):
    if cfg.act is Act.RELU:
        y = np.maximum(x, 0)
    elif cfg.act is Act.TANH:
        y = np.tanh(x)
    else:
        y = 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))
    return y * cfg.scale + cfg.bias


def setup(small=False):
    rng = np.random.default_rng(42)
    x = rng.standard_normal(256 if small else 1 << 20).astype(np.float32)
    return x, Config(Act.GELU, 1.0, 0.5)
