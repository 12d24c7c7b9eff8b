"""``astcompile check``: run as a subprocess on the sample packages in ``tests/cli_samples``.

Every reported line is asserted (path, line, column, code), with the summary and exit code, so
a change in what the static check finds shows up here as a precise diff.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

import numpy as np
import pytest

import astcompile
from astcompile import cli
from astcompile.frontend.analysis import analyze_function
from astcompile.frontend.resolve import RuntimeResolver
from astcompile.frontend.source import function_source

SAMPLES = Path(__file__).resolve().parent / "cli_samples"

EXPECTED_BREAKS = [
    ("breaks/aliases.py", 10, 12, "GB002"),  # sp.expit: a module we know nothing about
    ("breaks/aliases.py", 15, 5, "GB008"),  # try
    ("breaks/aliases.py", 22, 5, "GB012"),  # print in helper_noisy, a callee of outer
    ("breaks/aliases.py", 32, 9, "GB003"),  # outer calls helper_noisy, which breaks
    ("breaks/aliases.py", 33, 9, "GB004"),  # outer calls a disabled function
    ("breaks/aliases.py", 35, 5, "GB018"),  # nested def in outer: recursive, not inlined
    ("breaks/aliases.py", 38, 12, "GB022"),  # the call of that nested function
    ("breaks/model.py", 9, 5, "GB012"),  # print
    ("breaks/model.py", 15, 5, "GB007"),  # if on array values
    ("breaks/model.py", 28, 9, "GB009"),  # with, in a compiled method
]


def run_check(*args: str, cwd: Path = SAMPLES) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "astcompile.cli", "check", *args]
    return subprocess.run(
        command, check=False, cwd=cwd, capture_output=True, text=True, timeout=120, env=_env()
    )


def _env() -> dict[str, str]:
    import os

    return {**os.environ, "NO_COLOR": "1"}


def diagnostics(stdout: str) -> list[tuple[str, int, int, str]]:
    """``(path, line, col, code)`` of every ``path:line:col: CODE ...`` line."""
    found = []
    for line in stdout.splitlines():
        parts = line.split(":", 3)
        if len(parts) == 4 and parts[1].isdigit():
            found.append((parts[0], int(parts[1]), int(parts[2]), parts[3].split()[0]))
    return found


@pytest.fixture(scope="module")
def breaks_text() -> subprocess.CompletedProcess:
    return run_check("breaks")


@pytest.fixture(scope="module")
def breaks_json() -> dict:
    result = run_check("breaks", "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_every_break_is_reported_at_its_location(breaks_text):
    assert breaks_text.returncode == 0, breaks_text.stderr
    assert diagnostics(breaks_text.stdout) == EXPECTED_BREAKS
    assert breaks_text.stdout.splitlines()[-1] == (
        "Found 10 graph breaks in 7 of 8 compiled functions (5 files checked)."
    )
    assert "\x1b" not in breaks_text.stdout and breaks_text.stderr == ""


def test_lines_carry_the_message_and_the_fix(breaks_text):
    lines = breaks_text.stdout.splitlines()
    assert lines[0] == (
        "breaks/aliases.py:10:12: GB002 sp.expit() is not a NumPy, math or user function "
        "(fix: use NumPy operations, or mark a pure function with astcompile.allow_in_graph)"
    )
    expected = (
        "breaks/model.py:9:5: GB012 print() has side effects (fix: move it out or use "
        "astcompile.disable)"
    )
    assert expected in lines
    assert "breaks/model.py:15:5: GB007 `if` test `x.sum() > 0` depends on array values" in (
        breaks_text.stdout
    )


def test_every_spelling_of_compile_is_found(breaks_json):
    found = {(f["path"], f["name"]): (f["how"], f["line"]) for f in breaks_json["functions"]}
    assert found == {
        ("breaks/aliases.py", "unknown_call"): ("decorator", 9),  # @ac.compile
        ("breaks/aliases.py", "guarded"): ("decorator", 14),  # @jit (compile as jit)
        ("breaks/aliases.py", "outer"): ("call", 31),  # fast_outer = ac.compile(outer)
        ("breaks/aliases.py", "helper_noisy"): ("callee", 21),  # called by outer, breaks
        ("breaks/clean.py", "gelu"): ("call", 10),  # from astcompile import compile
        ("breaks/model.py", "noisy"): ("decorator", 7),  # @astcompile.compile
        ("breaks/model.py", "branchy"): ("decorator", 14),  # @astcompile.compile(...)
        ("breaks/model.py", "Layer.forward"): ("decorator", 27),  # a method
    }


def test_json_report(breaks_json):
    assert breaks_json["version"] == 1 and breaks_json["exit_code"] == 0
    assert breaks_json["files_checked"] == 5 and breaks_json["errors"] == []
    located = [(b["path"], b["line"], b["col"], b["code"]) for b in breaks_json["breaks"]]
    assert located == EXPECTED_BREAKS
    assert breaks_json["breaks"][7] == {
        "path": "breaks/model.py",
        "line": 9,
        "col": 5,
        "code": "GB012",
        "title": "side-effect call",
        "message": "print() has side effects",
        "fix": "move it out or use astcompile.disable",
        "function": "noisy",
        "fullgraph": False,
        "source_line": "print(y)",
    }
    assert breaks_json["budget"] == {
        "max_breaks": None,
        "max_breaks_per_file": None,
        "config": None,
    }
    assert breaks_json["violations"] == []
    assert breaks_json["summary"].startswith("Found 10 graph breaks")


def test_fullgraph_function_with_a_break_fails():
    result = run_check("strict")
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        (
            "strict/kernels.py:17:5: GB012 print() has side effects (fix: move it out or use "
            "astcompile.disable)"
        ),
        "",
        "Found 1 graph break in 1 of 2 compiled functions (1 file checked).",
        (
            "error: step() in strict/kernels.py:15 is compiled with fullgraph=True and has "
            "1 graph break"
        ),
    ]


def test_syntax_error_is_located_and_other_files_are_still_checked(tmp_path):
    shutil.copy(SAMPLES / "breaks" / "model.py", tmp_path / "model.py")
    (tmp_path / "broken.py").write_text("import astcompile\n\n\ndef f(x:\n    return x\n")
    result = run_check(".", cwd=tmp_path)
    assert result.returncode == 2
    assert diagnostics(result.stdout) == [
        ("broken.py", 4, 6, "E999"),
        ("model.py", 9, 5, "GB012"),
        ("model.py", 15, 5, "GB007"),
        ("model.py", 28, 9, "GB009"),
    ]
    assert "broken.py:4:6: E999 SyntaxError: '(' was never closed" in result.stdout
    assert result.stdout.splitlines()[-1] == (
        "Found 3 graph breaks in 3 of 3 compiled functions "
        "(2 files checked, 1 could not be parsed)."
    )


@pytest.mark.parametrize(
    "flags, codes",
    [
        (["--select", "GB01"], ["GB012", "GB018", "GB012"]),
        (["--select", "GB002,GB008"], ["GB002", "GB008"]),
        (["--ignore", "GB0"], []),
        (["--ignore", "GB012", "--ignore", "gb00"], ["GB018", "GB022"]),
        (["--select", "GB00", "--ignore", "GB002"], ["GB008", "GB003", "GB004", "GB007", "GB009"]),
    ],
)
def test_select_and_ignore_by_prefix(flags, codes):
    result = run_check("breaks", *flags)
    assert result.returncode == 0, result.stderr
    assert [code for *_, code in diagnostics(result.stdout)] == codes


def test_unknown_code_prefix_is_a_usage_error():
    result = run_check("breaks", "--select", "E5")
    assert result.returncode == 2 and result.stdout == ""
    assert "unknown code or prefix 'E5'" in result.stderr


def test_budget_from_pyproject_and_its_override():
    over = run_check("budget")
    assert over.returncode == 1
    assert diagnostics(over.stdout) == [
        ("budget/solver.py", 9, 5, "GB012"),
        ("budget/solver.py", 10, 5, "GB007"),
        ("budget/solver.py", 12, 5, "GB006"),
    ]
    pyproject = SAMPLES / "budget" / "pyproject.toml"
    assert over.stdout.splitlines()[-1] == (
        f"error: 3 graph breaks in all, more than max-breaks = 2 (from {pyproject})"
    )
    assert run_check("budget", "--max-breaks", "3").returncode == 0
    assert run_check("budget/solver.py", "--ignore", "GB006").returncode == 0
    per_file = run_check("budget", "--max-breaks", "9", "--max-breaks-per-file", "1")
    assert per_file.returncode == 1
    assert per_file.stdout.splitlines()[-1] == (
        "error: budget/solver.py has 3 graph breaks, more than max-breaks-per-file = 1 "
        "(--max-breaks-per-file)"
    )


def test_tomli_is_a_dependency_before_python_3_11():
    """The config is read with tomllib, which Python 3.10 lacks: tomli stands in for it."""
    from packaging.requirements import Requirement

    pyproject = SAMPLES.parent.parent / "pyproject.toml"
    dependencies = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    (tomli,) = [r for r in map(Requirement, dependencies) if r.name == "tomli"]
    assert tomli.marker.evaluate({"python_version": "3.10"})
    assert not tomli.marker.evaluate({"python_version": "3.11"})


def test_pyproject_is_found_by_walking_up(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.astcompile]\nmax-breaks-per-file = 1\nignore = ["GB009"]\n'
    )
    package = tmp_path / "src" / "pkg"
    package.mkdir(parents=True)
    shutil.copy(SAMPLES / "breaks" / "model.py", package / "model.py")
    result = run_check("src/pkg/model.py", "--json", cwd=tmp_path)
    report = json.loads(result.stdout)
    assert result.returncode == 1 and report["exit_code"] == 1
    assert [b["code"] for b in report["breaks"]] == ["GB012", "GB007"]  # GB009 ignored
    assert report["budget"]["config"] == str(tmp_path / "pyproject.toml")
    (tmp_path / "pyproject.toml").write_text("[tool.astcompile]\nmax-breaks-per-file = 3\n")
    assert run_check("src", cwd=tmp_path).returncode == 0


def test_bad_config_and_missing_paths_are_usage_errors(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.astcompile]\nmax-breaks = -1\n")
    (tmp_path / "m.py").write_text("x = 1\n")
    bad = run_check("m.py", cwd=tmp_path)
    assert bad.returncode == 2 and "max-breaks must be a non-negative integer" in bad.stderr
    missing = run_check("nowhere.py")
    assert missing.returncode == 2
    assert "no such file or directory: nowhere.py" in missing.stderr
    assert run_check().returncode == 2  # no paths


def test_the_build_commands_signatures_table_is_not_an_unknown_key(tmp_path):
    """``[tool.astcompile.signatures]`` (docs/api.md) is ``astcompile build``'s: the check,
    and so the pre-commit hook, passes over it, and still reads its own keys."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.astcompile]\nmax-breaks = 0\n\n[tool.astcompile.signatures]\n"m:f" = ["float64[:]"]\n'
    )
    (tmp_path / "m.py").write_text(
        "import astcompile\n\n\n@astcompile.compile\ndef f(x):\n    print(x)\n    return x\n"
    )
    result = run_check("m.py", cwd=tmp_path)
    assert result.returncode == 1, result.stderr  # over max-breaks = 0: the budget was read
    assert "unknown key" not in result.stderr


def test_folder_walk_skips_caches_venvs_and_build_output(tmp_path):
    source = (SAMPLES / "strict" / "kernels.py").read_text()
    for folder in (".hidden", "__pycache__", "__astcache__", "build", "env", "pkg", "x.egg-info"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "kernels.py").write_text(source)
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    result = run_check(".", "--json", cwd=tmp_path)
    assert {b["path"] for b in json.loads(result.stdout)["breaks"]} == {"pkg/kernels.py"}
    named = run_check("build/kernels.py", cwd=tmp_path)  # a file named explicitly is checked
    assert diagnostics(named.stdout) == [("build/kernels.py", 17, 5, "GB012")]


def test_quiet_prints_only_the_summary():
    result = run_check("strict", "-q")
    assert result.stdout.splitlines()[0].startswith("Found 1 graph break")


def test_module_level_marks_are_followed_like_at_run_time():
    """The static check reports exactly what the decorator's runtime analysis reports."""
    path = SAMPLES / "marks" / "marks.py"
    result = run_check("marks", "--json")
    breaks = json.loads(result.stdout)["breaks"]
    static = [
        (b["line"], b["col"], b["code"], b["message"]) for b in breaks if b["function"] == "user"
    ]
    spec = importlib.util.spec_from_file_location("cli_sample_marks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fn = module.user.__wrapped__
    runtime = analyze_function(function_source(fn), RuntimeResolver(fn)).breaks
    assert static == [(b.line, b.col, b.code, b.detail) for b in runtime]
    assert [code for _, _, code, _ in static] == ["GB003", "GB005", "GB004", "GB004"]
    assert (breaks[0]["line"], breaks[0]["function"]) == (9, "noisy")  # compiled on its own


def test_a_missing_command_module_is_an_understandable_error(monkeypatch, capsys):
    monkeypatch.setitem(cli.COMMANDS, "nope", ("astcompile.cli.nope", "not installed"))
    assert cli.main(["nope", "x"]) == 2
    assert "the 'nope' command is not available" in capsys.readouterr().err
    assert cli.main(["check", "--help"]) == 0
    assert "--max-breaks" in capsys.readouterr().out


def test_docs_describe_every_option_and_code_prefix(capsys):
    assert cli.main(["check", "--help"]) == 0
    options = {
        word.strip(",[]") for word in capsys.readouterr().out.split() if word.startswith("--")
    }
    docs = (SAMPLES.parent.parent / "docs" / "cli.md").read_text()
    assert options - {"--help"} and all(f"`{o}" in docs for o in options - {"--help"})
    for code in ("E999", "E902", "max-breaks-per-file", '"version": 1'):
        assert code in docs


def test_tests_over_locals_break_where_the_runtime_breaks():
    """``s = x.sum(); if s > 0:`` breaks like ``if x.sum() > 0:``; shape and scalar locals don't.

    The check's lines are compared with what ``explain`` reports after running each function.
    """
    result = run_check("locals", "--json")
    static = [(b["function"], b["line"], b["code"]) for b in json.loads(result.stdout)["breaks"]]
    assert static == [
        ("signed_shift", 11, "GB007"),
        ("halve_if_large", 21, "GB007"),
    ]  # positive_total's `for v in x` loop compiles, with its `if v > 0` as a branch in it
    spec = importlib.util.spec_from_file_location(
        "cli_sample_locals", SAMPLES / "locals" / "tests_over_locals.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = np.linspace(-1.0, 2.0, 6)
    runtime = []
    for name, args in [
        ("signed_shift", (x,)),
        ("halve_if_large", (x,)),
        ("positive_total", (x,)),
        ("shaped", (x, 3)),
        ("defaulted", (x,)),
    ]:
        fn = getattr(module, name)
        report = astcompile.explain(fn, *args)
        runtime += [(name, b.line, b.code) for b in report.break_reasons]
        np.testing.assert_array_equal(report.out, fn.__wrapped__(*args))
    assert runtime == static
