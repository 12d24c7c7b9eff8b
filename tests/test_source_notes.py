"""Source notes in generated C, error sites, the user's frame for errors from compiled code,
and the user's names for loop bodies' inputs."""

from __future__ import annotations

import traceback

import numpy as np
import pytest

from astcompile.ir.graph import Loc, Node
from astcompile.ir.ops import Op
from astcompile.lower import source_notes as notes
from astcompile.runtime import user_frames
from astcompile.trace import user_names


def _node(path: str, line: int) -> Node:
    return Node(Op.CONST, (), np.dtype(float), (), None, Loc(path, line))


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text("def f(u):\n    y = u * 2  # a */ in a comment\n    return y  # é\n", "utf-8")
    return str(path)


def test_a_run_of_statements_from_one_line_gets_one_note_quoting_it(program):
    a, b = _node(program, 2), _node(program, 3)
    source = "\n".join(
        [
            "void k(void)",
            "{",
            f"    double t1 = 1;{notes.marker(a)}",
            f"    double t2 = t1;{notes.marker(a)}",
            "    #pragma omp simd",
            f"    t3 = t2;{notes.marker(b)}",
            "}",
            f"int g(void) {{ return 0; }}{notes.marker(b)}",
        ]
    )
    assert notes.annotate(source).split("\n") == [
        "void k(void)",
        "{",
        "    /* y = u * 2  # a * / in a comment  (prog.py:2) */",  # cannot end the comment
        "    double t1 = 1;",
        "    double t2 = t1;",
        "    #pragma omp simd",
        "    /* return y  # \\xe9  (prog.py:3) */",
        "    t3 = t2;",
        "}",
        "/* return y  # \\xe9  (prog.py:3) */",  # a new function: noted again
        "int g(void) { return 0; }",
    ]


def test_without_source_text_a_note_names_the_place():
    assert notes.note("<string>", 4) == "/* (<string>:4) */"
    assert notes.marker(Node(Op.CONST, (), np.dtype(float), ())) == ""


def test_lines_of_group_lines_by_file_in_numeric_order():
    lines = (10, 9, 14, 8)
    nodes = [*(_node("/a/heat.py", n) for n in lines), _node("/b/lib.py", 3)]
    assert notes.lines_of(nodes) == "heat.py:8-10, 14; lib.py:3"


def test_error_sites_are_numbered_once_per_line():
    sites: list = []
    numbers = [notes.error_site(sites, n) for n in (_node("a.py", 3), _node("a.py", 5))]
    assert numbers + [notes.error_site(sites, _node("a.py", 3))] == [0, 1, 0]
    assert sites == [("a.py", 3), ("a.py", 5)]
    assert notes.error_site(sites, Node(Op.CONST, (), np.dtype(float), ())) == -1


def test_raise_at_ends_the_traceback_at_the_users_line_in_its_function(program):
    with pytest.raises(IndexError) as info:
        user_frames.raise_at(IndexError("index 9 is out of bounds"), program, 2)
    text = "".join(traceback.format_exception(info.value))
    frame = f'  File "{program}", line 2, in f\n    y = u * 2  # a */ in a comment\n'
    assert frame + "IndexError: index 9 is out of bounds" in text  # last frame, no ^^^ markers
    assert "(raised by compiled code of line 2" in text


def test_names_of_loop_bodies():
    def body(t, total, __ac_brk_9):
        return total, __ac_brk_9

    assert user_names.of_for(body) == user_names.BodyNames("t", ("total", "brk"))
    assert user_names.of_while(body) == user_names.BodyNames(None, ("t", "total", "brk"))
    assert user_names.of_for(lambda i, *values: values) == user_names.BodyNames("i", ())
    assert user_names.readable("__ac_k_12") == "k"
