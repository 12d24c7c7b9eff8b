"""What a repro script (``repro.py``, written by :mod:`astcompile.repro`) runs: the region
compiled and plain, compared. Apart from the writer, which the compiler imports (``verify``):
this side uses the public API, and the compiler must not import its own API.
"""

from __future__ import annotations

import tempfile
from typing import Any

import numpy as np

from astcompile.compare import call_differences, copy_args, input_floor


def main(fn: Any, args: tuple, backend: str) -> int:
    """Run ``fn`` plain, then compiled (a fresh kernel cache), each on its own copy of ``args``;
    print what differs and return 1 when something does, else 0."""
    import astcompile

    floor = input_floor(args)
    plain_args = copy_args(args)
    with np.errstate(all="ignore"):
        expected = fn(*plain_args)
    config = astcompile.config
    saved = config.verify, config.cache_dir
    with tempfile.TemporaryDirectory(prefix="astcompile-repro-") as cache:
        config.verify, config.cache_dir = False, cache  # this is the check; compile afresh
        try:
            output = astcompile.explain(astcompile.compile(fn, backend=backend), *args)
        finally:
            config.verify, config.cache_dir = saved
    params = fn.__code__.co_varnames[: fn.__code__.co_argcount]
    problems = call_differences(output.out, expected, args, plain_args, params, floor)
    for problem in problems:
        print(problem)
    if not any(run.compiled_calls for run in output.regions):
        print("note: nothing ran compiled here:", *output.break_reasons, sep="\n  ")
    print(
        f"{fn.__name__}: compiled ({backend}) and plain results {'differ' if problems else 'agree'}"
    )
    return 1 if problems else 0
