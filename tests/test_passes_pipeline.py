"""passes/pass_list.py: the passes in order, each module imported when its pass first runs (a
warm start imports the stage list but runs no pass)."""

from __future__ import annotations

import subprocess
import sys

from astcompile.passes.pass_list import PIPELINE


def test_listing_the_passes_imports_none_of_them():
    code = (
        "import sys, astcompile.pipeline; "
        "print(sorted(m for m in sys.modules if m.startswith('astcompile.passes.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['astcompile.passes.pass_list']"


def test_a_pass_runs_its_module_function():
    from graphs import apply, array, const, graph, passed

    from astcompile.ir.ops import Op

    x = array(0)
    before = graph([x], [apply(Op.ADD, x, apply(Op.MUL, const(2.0), const(3.0)))])
    name, constfold, _ = next(p for p in PIPELINE if p[0] == "constfold")
    assert name == "constfold"
    after, changed = constfold(before)
    assert changed and after.outputs[0].inputs[1].attr.value == 6.0
    assert passed(before).outputs[0].inputs[1].attr.value == 6.0
