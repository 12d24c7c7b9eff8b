"""Functions that exercise the rewrite: each must give the same result once cut into regions."""

from __future__ import annotations

import math

import numpy as np

SCALE = 3.0


def helper_pure(v):
    return np.tanh(v) * 2.0


def helper_noisy(v):
    print("helper_noisy", float(np.sum(v)))
    return v + 1


def toy_example(a, b):
    x = a / (np.abs(a) + 1)
    print("woo")
    if b.sum() < 0:
        b = b * -1
    return x * b


def straight(x, y):
    """A docstring stays where it is."""
    z = np.exp(-x) + y * SCALE
    w = z.sum(axis=0)
    return z - w


def loop_carried(x, n):
    total = np.zeros_like(x)
    prev = x
    for i in range(n):
        cur = prev * 0.5 + i
        total = total + cur
        prev = cur
    return total, prev


def used_after_break(x):
    y = x * 2
    z = y + 1
    print("z", float(z.sum()))
    return y * z


def static_if(x, axis=None):
    if axis is None:
        s = np.sum(x)
    else:
        s = np.sum(x, axis=axis)
    return s * 2


def early_return(x, axis=None):
    if axis is None:
        return np.sum(x)
    y = x * 2
    return np.sum(y, axis=axis)


def dynamic_branches(x):
    if x.mean() > 0:
        y = x * 2
        label = "pos"
    elif x.mean() < -1:
        y = x * -3
        label = "neg"
    else:
        y = x
        label = "small"
    return y + 1, label


def maybe_unbound(x, flag):
    if flag:
        y = x * 2
    z = x + 1
    if flag:
        z = z + y
    return z


def conditional_output(x, flag):
    if flag:
        extra = x * 10
    print("between")
    if flag:
        return x + extra
    return x


def carried_without_init(x, n):
    out = []
    for i in range(n):
        if i > 0:
            out.append(float((x * prev).sum()))  # noqa: F821 - bound by the previous iteration
        prev = x + i  # noqa: F841
    return out


def loop_with_break(x, limit):
    acc = x.copy()
    steps = 0
    while True:
        acc = acc * 0.5
        steps += 1
        if float(np.abs(acc).max()) < limit:
            break
        if steps > 50:
            break
    return acc, steps


def for_else(values):
    found = -1
    for i, v in enumerate(values):
        w = v * 2
        if w > 5:
            found = i
            break
    else:
        found = len(values)
    return found


def calls_helpers(x):
    y = helper_pure(x)
    z = helper_noisy(y)
    return helper_pure(z) + y


def keyword_and_star(x, *args, **kwargs):
    y = np.clip(x, *args, **kwargs)
    z = helper_noisy(y, *())
    return helper_pure(v=z)


def with_and_try(x):
    with np.errstate(divide="ignore"):
        y = np.log(x)
        y = y + 1
    try:
        z = y * 2
        bad = np.linalg.inv(np.zeros((2, 2)))
    except np.linalg.LinAlgError:
        z = z + 1
        bad = None
    w = z * 3
    return w, bad


# fmt: off
def one_liners(x, n):
    s = 0.0
    for i in range(n): s = s + float(np.sum(x * i))
    if n > 2: x = x + s
    return x
# fmt: on


def comprehension(xs, scale):
    ys = [np.sqrt(v) * scale for v in xs]
    total = sum(float(y.sum()) for y in ys)
    i = 99
    pairs = {i: v for i, v in enumerate(ys)}
    return total, i, len(pairs)


def tuple_returns(x):
    a, b = x * 2, x + 1
    (c, d), e = (a, b), math.pi
    return a, b + c + d * e


def closure_maker(k):
    offset = np.float64(k)

    def inner(x):
        y = x * offset
        return y + k

    return inner


def nested_static_ifs(x, mode):
    if x.ndim == 1:
        if mode == "double":
            return x * 2
        y = x + 1
    else:
        y = x.sum(axis=0)
    return y


def global_counter(x):
    global SCALE
    y = x * SCALE
    SCALE = SCALE + 1
    return y


def inplace_param(x):
    x += 1
    y = x * 2
    return y


def deletes(x):
    y = x * 2
    tmp = y + 1
    del tmp
    return y


def generator(x, n):
    for i in range(n):
        yield x * i


def side_effect_only(x):
    print("start")
    y = x + 1
    print("end", float(y.sum()))


def raising(x):
    y = x * 2
    if x.ndim != 1:
        raise ValueError("need 1-d")
    return y


def make_closure_counter():
    count = 0

    def bump(x):
        nonlocal count
        count += 1
        return x * count

    return bump
