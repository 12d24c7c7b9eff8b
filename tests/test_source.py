"""frontend/source.py: finding a function's source and mapping it back to file lines."""

from __future__ import annotations

import functools
import subprocess
import sys
import textwrap

import pytest
from module_helpers import edit_module, load_module

from astcompile.errors import NoSourceError
from astcompile.frontend.source import function_source, sources_in_module


def _file_line(src, k: int) -> str:
    """Line ``def_line + k`` of the real file, for comparing with line ``k + 1`` of ``text``."""
    with open(src.filename) as handle:
        return handle.read().splitlines()[src.def_line + k - 1]


def module_level(x):
    return x + 1


def decorate(*args, **kwargs):
    return lambda fn: fn


@decorate(
    "a multi-line",
    decorator=True,
)
@decorate()
def decorated(x):
    # a comment
    return x * 2


def make_closure(k):
    def inner(x):
        return x + k

    return inner


class Box:
    def method(self, x):
        text = """
        kept
    exactly"""
        return text, x

    @staticmethod
    def static(x):
        return x

    @classmethod
    def klass(cls, x):
        return x


def wrapper_decorator(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)

    return wrapper


@wrapper_decorator
def wrapped(x):
    return x - 1


def generator(n):
    yield n


async def coroutine(n):
    return n


def test_module_level_function_keeps_file_lines():
    src = function_source(module_level)
    assert src.name == "module_level"
    assert src.filename == __file__
    assert src.indent == 0
    assert src.text.startswith("def module_level(x):\n")
    for k, line in enumerate(src.text.splitlines()):
        assert _file_line(src, k) == line


def test_multi_line_decorators_are_removed_and_lines_still_match():
    src = function_source(decorated)
    assert src.text.startswith("def decorated(x):\n")
    assert "@" not in src.text
    assert _file_line(src, 0) == "def decorated(x):"
    assert src.text.splitlines()[1] == "    # a comment"
    assert _file_line(src, 2).strip() == "return x * 2"


def test_closure_is_dedented_and_indent_recorded():
    inner = make_closure(3)
    src = function_source(inner)
    assert src.fn is inner
    assert src.indent == 4
    assert src.text.startswith("def inner(x):\n    return x + k")
    assert _file_line(src, 0) == " " * 4 + src.text.splitlines()[0]


def test_method_keeps_multi_line_string_contents():
    src = function_source(Box().method)  # a bound method is unwrapped
    assert src.name == "method"
    assert src.indent == 4
    assert '        kept\n    exactly"""' in src.text
    namespace: dict = {}
    exec(compile(src.text, "<test>", "exec"), namespace)  # noqa: S102
    assert namespace["method"](None, 1)[0] == Box().method(1)[0]


@pytest.mark.parametrize("fn", [Box.static, Box().klass, Box.__dict__["static"]])
def test_static_and_class_methods_unwrap(fn):
    src = function_source(fn)
    assert src.name in ("static", "klass")
    assert "@" not in src.text


def test_functools_wraps_wrapper_is_its_own_source():
    """The wrapper runs code of its own: reading the ``__wrapped__`` function's source instead
    would compile the decorated function without its decorator."""
    src = function_source(wrapped)
    assert src.name == "wrapper"
    assert src.text.startswith("def wrapper(*args):")
    assert src.fn is wrapped


def test_generators_and_coroutines_are_returned():
    assert "yield" in function_source(generator).text
    assert function_source(coroutine).text.startswith("async def coroutine")


@pytest.mark.parametrize(
    "obj, message",
    [
        (len, "not a Python function"),
        (lambda x: x, "not defined by a def statement"),
        (functools.partial(module_level, 1), "not a Python function"),
    ],
)
def test_no_source_errors_are_clear(obj, message):
    with pytest.raises(NoSourceError, match=message):
        function_source(obj)


def test_exec_defined_function_has_no_source():
    namespace: dict = {}
    exec("def f(x):\n    return x\n", namespace)  # noqa: S102
    with pytest.raises(NoSourceError, match="cannot read the source of f"):
        function_source(namespace["f"])


def test_function_in_a_main_script(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(
        textwrap.dedent(
            """\
            from astcompile.frontend.source import function_source


            def main_fn(x):
                return x


            src = function_source(main_fn)
            print(src.def_line, src.filename, src.name)
            """
        )
    )
    out = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=True, cwd=tmp_path
    ).stdout.split()
    assert out == ["4", str(script), "main_fn"]


def test_sources_in_module_finds_functions_and_methods():
    text = textwrap.dedent(
        """\
        import numpy as np

        @something(
            1)
        def top(x):
            return x

        class K:
            def meth(self):
                return 1
        """
    )
    found = sources_in_module(text, "/tmp/m.py")
    assert [(s.name, s.def_line, s.indent, s.fn) for s in found] == [
        ("top", 5, 0, None),
        ("meth", 9, 4, None),
    ]
    assert found[1].text == "def meth(self):\n    return 1\n"
    assert [s.name for s in sources_in_module(text, "/tmp/m.py", methods=False)] == ["top"]


# -- the text read now must be the text the live code was compiled from -----------------------

TWO_CLASSES = """
    import numpy as np

    class A:
        def forward(self, x):
            return x + 1.0

    class B:
        def forward(self, x):
            return x * 2.0
"""


def test_a_body_edited_after_import_is_refused(tmp_path):
    mod = load_module(tmp_path, "edited_body", TWO_CLASSES)
    edit_module(mod, TWO_CLASSES.replace("x * 2.0", "x * 3.0"))
    with pytest.raises(NoSourceError, match=r"edited_body\.py is not the code that runs"):
        function_source(mod.B.forward)
    assert "x + 1.0" in function_source(mod.A.forward).text  # its text did not change


def test_lines_added_above_find_the_def_where_it_went(tmp_path):
    """The code says line 9; after three lines above it, line 9 is in A.forward."""
    mod = load_module(tmp_path, "moved_down", TWO_CLASSES)
    edit_module(mod, "# one\n# two\n# three\n" + textwrap.dedent(TWO_CLASSES))
    src = function_source(mod.B.forward)
    assert "x * 2.0" in src.text and src.moved
    assert src.def_line == mod.B.forward.__code__.co_firstlineno + 3
    assert not function_source(mod.A.forward).text.count("x * 2.0")


def test_lines_removed_above_and_the_body_edited_is_refused(tmp_path):
    mod = load_module(tmp_path, "moved_up", TWO_CLASSES)
    edited = textwrap.dedent(TWO_CLASSES).replace("import numpy as np\n", "")
    edit_module(mod, edited.replace("x * 2.0", "x * 2.5"))
    with pytest.raises(NoSourceError, match="not the code that runs"):
        function_source(mod.B.forward)


SCOPES = """
    import numpy as np

    class Base:
        def scale(self):
            return 2.0

    class __Private(Base):
        def method(self, x):
            self.__k = 1
            return super().scale() * x + self.__k

    def outer(k):
        import math as m

        def inner(x):
            return m.sqrt(k) * np.abs(x) + m.pi

        return inner
"""


def test_mangled_names_super_closures_and_imports_match(tmp_path):
    """What the compiler makes of the def depends on its scope: private names are mangled
    with the class name, ``super()`` reads a ``__class__`` cell, a closure reads cells, and
    a method call on an imported name compiles differently. None of it is a mismatch."""
    mod = load_module(tmp_path, "scopes", SCOPES)
    private = vars(mod)["__Private"]
    assert function_source(private.method).text.startswith("def method(self, x):")
    assert function_source(mod.outer(4.0)).text.startswith("def inner(x):")
    assert function_source(mod.outer).text.startswith("def outer(k):")


def asserting(x):
    assert x > 0, f"{x} is not positive"
    return x


def test_asserts_rewritten_by_pytest_match_their_text():
    """pytest compiles a test module's ``assert`` statements into code of its own: a function
    defined in a test file still has its source (pytest's rewrite is applied to the text too)."""
    assert type(sys.modules[__name__].__spec__.loader).__name__ == "AssertionRewritingHook"
    assert "assert x > 0" in function_source(asserting).text


def test_the_source_is_read_without_searching_every_module(monkeypatch):
    """``inspect`` finds a code object's module by a ``realpath`` of every loaded module's
    file (most of a first call's ``source`` stage); the function's globals name it already."""
    import inspect

    def searched(*args, **kwargs):
        raise AssertionError("inspect.getmodule searched the loaded modules")

    monkeypatch.setattr(inspect, "getmodule", searched)
    src = function_source(module_level)
    assert src.text == "def module_level(x):\n    return x + 1\n"
    assert _file_line(src, 0) == "def module_level(x):"
