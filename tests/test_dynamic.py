"""Which locals hold array values (frontend/dynamic.py), so ``if`` tests over them break."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from astcompile.frontend.dynamic import dynamic_locals


def dynamic(body: str) -> set[str]:
    source = "def f(x, n, xs):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    return set(dynamic_locals(cst.parse_module(source).body[0]))


@pytest.mark.parametrize(
    "body, expected",
    [
        ("s = x.sum()", {"s"}),
        ("s = np.max(x)\nt = s > 0\nu = not t", {"s", "t", "u"}),
        ("v = x[0]", {"v"}),
        ("m = x.shape[0] * 2\nk = n + 1\nd = x.dtype\ne = len(x)", set()),
        ("y = x * 2.0\nz = np.pi", set()),  # as static as the parameter it is computed from
        ("a, b = x.shape\nc, d = x.min(), 0", {"c", "d"}),
        ("acc = 0.0\nfor i in range(n):\n    acc += x[i]", {"acc"}),
        ("for i in range(n):\n    pass\nfor j in range(x.argmax()):\n    pass", {"j"}),
        ("for v in x:\n    pass\nfor k in (1, 2):\n    pass", {"v"}),
        ("for i, row in enumerate(x):\n    pass", {"row"}),
        ("if (s := x.sum()) > 0:\n    pass", {"s"}),
        ("x = x.sum()", {"x"}),  # a rebound parameter
        ("m = x.shape[0]\nm = x.mean()", {"m"}),  # any dynamic binding makes the local dynamic
        ("x[0] = x.sum()\nx.a = x.sum()", set()),  # stores bind no names
        ("def g():\n    s = x.sum()\nh = map(lambda: (t := x.sum()), x)", {"h"}),  # nested scopes
        ("w = q.sum() if False else 0\nq = x.sum()", {"q", "w"}),  # order does not matter
    ],
)
def test_dynamic_locals(body, expected):
    assert dynamic(body) == expected
