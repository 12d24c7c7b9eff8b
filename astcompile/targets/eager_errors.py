"""Errors of the eager interpreter, raised at the user's line.

A node the interpreter runs can raise the user's error: NumPy's IndexError of ``x[i + 1]``, a
CHECK's ZeroDivisionError or AssertionError, ``np.linalg.inv``'s LinAlgError. Left alone, its
traceback would end in ``targets/eager.py``; as the C target does (``ir/checks.raise_error``),
it is raised from a frame at the line of the node that failed instead
(:func:`astcompile.runtime.user_frames.raise_at`), followed by the frames of NumPy's code it
went through, so the traceback ends as the plain program's does::

      File "/home/me/heat.py", line 11, in heat
        total = total + u[t + 1]
    IndexError: index 10 is out of bounds for axis 0 with size 10

The node is found after the fact, in the traceback: a loop's body and a branch run their
nodes in a nested call of the same runner, so the innermost runner's node is the one that
failed. Running a node costs nothing more.
"""

from __future__ import annotations

import types

from astcompile.ir.checks import RunPlain
from astcompile.ir.graph import Node
from astcompile.runtime.user_frames import raise_at


def raise_at_node(exc: Exception, runner: types.CodeType) -> None:
    """Raise ``exc``, raised while ``runner`` (the interpreter's loop over a graph's nodes,
    its node in the local ``node``) ran, at the user's line of the innermost node with a line.
    Returns, for the caller to raise ``exc`` as it is, when that is RunPlain (the compiled
    code declines the call: no error of the user's) or no node has a line."""
    if isinstance(exc, RunPlain):
        return
    loc, tail, tb = None, None, exc.__traceback__
    while tb is not None:
        node = tb.tb_frame.f_locals.get("node") if tb.tb_frame.f_code is runner else None
        if node is not None and node.loc is not None:
            loc, tail = node.loc, tb.tb_next  # the node's rule, then what it called
        tb = tb.tb_next
    if loc is not None:
        raise_at(exc, loc.filename, loc.line, tail, see="the eager backend ran it")


def raise_at_step(exc: Exception, node: Node) -> None:
    """Raise ``exc``, raised by a region wrapper's NumPy step ``node`` (C or Triton target), at
    its user's line, followed by the frames of the code that raised it (past the catching
    frame). Returns, for the caller to raise ``exc`` as it is, for RunPlain or without a line."""
    if node.loc is not None and not isinstance(exc, RunPlain):
        tail = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
        raise_at(exc, node.loc.filename, node.loc.line, tail, see="a NumPy step of its region")
