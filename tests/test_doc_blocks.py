"""Every code block of the user docs (``docs/*.md`` and the README) runs in a test.

Each block is preceded by a comment that says how it is checked, ``<!-- doc-test: KIND ... -->``;
a block without one fails :func:`test_every_block_says_how_it_is_checked`. The kinds
(:data:`CHECKS`):

- ``run``: Python. A page's ``run`` blocks are one script, in order (a later block uses what an
  earlier one defined), after ``import numpy as np`` and ``import astcompile``; it must exit 0.
- ``output COMMAND``: the block is what ``COMMAND`` prints (stdout and stderr). ``output above``
  runs the page's ``run`` blocks up to the one above instead. Each line of the block must appear
  in order; a line ``...`` stands for any lines, ``...`` inside a line for any text; numbers with
  a decimal point (times, sizes) and absolute paths match any; ``skip=N`` leaves out the first N
  lines (another tool's banner, named in the doc), ``digits`` masks every number and run of
  spaces (a listing of counts).
- ``json COMMAND``: JSON with the same keys, at every level, as what ``COMMAND`` prints.
- ``usage COMMAND``: the options the block lists are those ``COMMAND --help`` lists.
- ``shell``: each line is run; it must exit 0 or 1 (1: breaks were found). A pipe into a program
  this machine lacks (``jq``) runs the part before it.
- ``config``: TOML for pyproject.toml: signature tables parse, and ``astcompile check`` accepts
  ``[tool.astcompile]`` (a bad key or value exits 2).
- ``yaml``: a pre-commit configuration ``pre-commit validate-config`` accepts, whose hook ids are
  this repository's (``yaml hook``: one hook's entry, checked inside a configuration).
- ``readme``: the README's set-up commands, which CI runs (``.ci/run``, tests/test_docs.py).
- ``extra``: ``pip install "astcompile[X]"``, for an extra pyproject.toml declares.
- ``tested-by NODE``: a test of the suite runs exactly this command (``pre-commit try-repo``).

COMMANDs run with ``sh`` in a copy of ``tests/doc_samples/<page>/``, with this interpreter's
``python`` and ``astcompile`` first on ``PATH``, an empty kernel cache and measuring off
(``ASTCOMPILE_TIERING=0``: the docs show the compiled path, which a first call takes anyway).
``needs=gpu`` marks a block that needs a CUDA GPU (skipped without one, saying so), ``needs=X``
one that needs the package X (Triton: its interpreter runs the kernels here, with
``TRITON_INTERPRET=1``); ``VAR=value`` words before a COMMAND set its environment.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from differential import gpu_present

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = Path(__file__).resolve().parent / "doc_samples"
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
BLOCK = re.compile(
    r"^(?:<!-- doc-test: (?P<check>.*?) -->\n)?```(?P<lang>[\w-]*)\n(?P<body>.*?)^```\n",
    re.S | re.M,
)
PRELUDE = "import numpy as np\nimport astcompile\n"


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    lang: str
    check: str
    body: str

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"

    @property
    def kind(self) -> str:
        return self.check.split(" ", 1)[0]

    @property
    def words(self) -> list[str]:
        """The check's words after its kind, ``needs=...`` and options left out."""
        return [w for w in self.check.split(" ")[1:] if not w.startswith(("needs=", "skip="))]

    def option(self, name: str) -> str | None:
        found = [w.split("=", 1)[1] for w in self.check.split(" ") if w.startswith(name + "=")]
        return found[0] if found else None


def blocks() -> list[Block]:
    found = []
    for page in PAGES:
        text = page.read_text()
        for m in BLOCK.finditer(text):
            line = text.count("\n", 0, m.start("lang")) + 1
            found.append(Block(page, line, m["lang"], m["check"] or "", m["body"]))
    return found


def test_every_block_says_how_it_is_checked():
    unchecked = [str(b) for b in blocks() if b.kind not in CHECKS]
    assert not unchecked, f"code blocks without a <!-- doc-test: KIND --> comment: {unchecked}"


# -- running -----------------------------------------------------------------------------------


@pytest.fixture
def sample_dir(tmp_path: Path) -> Callable[[Block], Path]:
    def make(block: Block) -> Path:
        folder = tmp_path / "work"
        if not folder.exists():
            source = SAMPLES / block.page.stem
            if source.is_dir():
                shutil.copytree(source, folder)
            else:
                folder.mkdir()
        return folder

    return make


def _env(tmp: Path, extra: dict[str, str]) -> dict[str, str]:
    bin_dir = os.path.dirname(sys.executable)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ASTCOMPILE_")}
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        ASTCOMPILE_CACHE_DIR=str(tmp / "cache"),
        ASTCOMPILE_TIERING="0",
        # past the budget a build goes to the background: on a loaded machine a block's
        # logs would come late, or never
        ASTCOMPILE_COMPILE_BUDGET="inf",
        NO_COLOR="1",
    )
    return {**env, **extra}


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    words = command.split(" ")
    settings = dict(w.split("=", 1) for w in words if re.fullmatch(r"[A-Z_]+=\S*", w))
    command = " ".join(w for w in words if not re.fullmatch(r"[A-Z_]+=\S*", w) and w != "digits")
    return subprocess.run(
        ["sh", "-c", command],
        cwd=cwd,
        env=_env(cwd.parent, settings),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _script(page_blocks: list[Block], upto: Block | None, cwd: Path) -> Path:
    """The page's ``run`` blocks (up to ``upto``) as one script, each marked with its place."""
    parts = [PRELUDE]
    for block in page_blocks:
        if block.kind == "run":
            parts.append(f"# --- {block} ---\n{block.body}")
        if block == upto:
            break
    script = cwd / "doc_page.py"
    script.write_text("\n".join(parts))
    return script


# -- checks ------------------------------------------------------------------------------------


def _run(block: Block, cwd: Path) -> None:
    if block != _first_run(block.page):
        return  # the page's first run block runs them all
    page = [b for b in blocks() if b.page == block.page]
    ran = _shell(f"python {_script(page, None, cwd).name}", cwd)
    assert ran.returncode == 0, f"{block.page.name}'s run blocks failed:\n{ran.stderr[-4000:]}"


def _first_run(page: Path) -> Block | None:
    return next((b for b in blocks() if b.page == page and b.kind == "run"), None)


def _output(block: Block, cwd: Path) -> None:
    command = " ".join(block.words)
    if block.words[0] == "above":  # VAR=value settings may follow
        page = [b for b in blocks() if b.page == block.page]
        script = _script(page, page[page.index(block) - 1], cwd)
        command = " ".join(block.words[1:]) + f" python {script.name}"
    ran = _shell(command, cwd)
    expected = block.body.splitlines()[int(block.option("skip") or 0) :]
    if expected and expected[0].startswith(("$ ", ">>> ")):  # the command, shown
        expected = expected[1:]
    _assert_shows(expected, (ran.stdout + ran.stderr).splitlines(), "digits" in block.words)


def _pattern(line: str, digits: bool) -> re.Pattern:
    parts = []
    sizes = r"\d+(?:\.\d+)? (?:[KMGT]i)?B\b"
    for token in re.split(rf"(\.\.\.|{sizes}|\d+\.\d+|(?<![\w.])/[\w./-]+|\d+|\s+)", line):
        if token == "...":
            parts.append(".*")
        elif digits and re.fullmatch(sizes, token or ""):
            parts.append(sizes)
        elif re.fullmatch(r"\d+\.\d+", token or "") or (token or "").startswith("/"):
            parts.append(r"\S+")
        elif digits and re.fullmatch(r"\d+", token or ""):
            parts.append(r"\d+")
        elif digits and token and token.isspace():
            parts.append(r"\s+")
        elif token:
            parts.append(re.escape(token))
    return re.compile("".join(parts))


def _assert_shows(expected: list[str], output: list[str], digits: bool) -> None:
    """Each expected line matches an output line, in order; ``...`` alone skips any lines,
    as the output's lines between two expected ones are skipped."""
    at = 0
    for line in expected:
        if line.strip() in ("...", ""):  # blank lines are layout
            continue
        pattern = _pattern(line.rstrip(), digits)
        while at < len(output) and not pattern.fullmatch(output[at].rstrip()):
            at += 1
        assert at < len(output), f"not in the output (in order): {line!r}\n" + "\n".join(output)
        at += 1


def _json(block: Block, cwd: Path) -> None:
    ran = _shell(" ".join(block.words), cwd)
    assert _keys(json.loads(block.body)) == _keys(json.loads(ran.stdout))


def _keys(value: object) -> object:
    """The keys at every level (a list: its first item's, or "list" when that is no dict)."""
    if isinstance(value, dict):
        return {k: _keys(v) for k, v in value.items()}
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return [_keys(value[0])]
    return "list" if isinstance(value, list) else None


def _usage(block: Block, cwd: Path) -> None:
    ran = _shell(" ".join(block.words) + " --help", cwd)
    assert ran.returncode == 0, ran.stderr
    options = {"--help", "-h"} | set(
        re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", ran.stdout.split("\n\n")[0])
    )
    shown = set(re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", block.body))
    assert shown and shown <= options and options - {"--help", "-h"} <= shown


def _shell_lines(block: Block, cwd: Path) -> None:
    for line in block.body.splitlines():
        command = line.split("  #")[0].strip()
        if not command:
            continue
        if "|" in command and shutil.which(command.split("|")[1].split()[0]) is None:
            command = command.split("|")[0]
        ran = _shell(command, cwd)
        assert ran.returncode in (0, 1), f"{command}: exit {ran.returncode}\n{ran.stderr}"


def _config(block: Block, cwd: Path) -> None:
    from astcompile.signatures import parse_signatures

    settings = tomllib.loads(block.body).get("tool", {}).get("astcompile", {})
    for signatures in settings.get("signatures", {}).values():
        parse_signatures(signatures)
    (cwd / "pyproject.toml").write_text(block.body)
    (cwd / "ok.py").write_text(
        "import astcompile\n\n\n@astcompile.compile\ndef f(x):\n    return x\n"
    )
    ran = _shell("astcompile check ok.py", cwd)
    assert ran.returncode == 0, ran.stdout + ran.stderr


def _yaml(block: Block, cwd: Path) -> None:
    import yaml

    text = block.body
    if block.words == ["hook"]:
        hook = yaml.safe_load(text)[0]
        text = yaml.safe_dump(
            {"repos": [{"repo": "https://example.com/a", "rev": "v0", "hooks": [hook]}]}
        )
    (cwd / ".pre-commit-config.yaml").write_text(text)
    ran = _shell(f"{sys.executable} -m pre_commit validate-config .pre-commit-config.yaml", cwd)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    ours = {h["id"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    ids = {h["id"] for repo in yaml.safe_load(text)["repos"] for h in repo["hooks"]}
    assert ids <= ours


def _readme(block: Block, cwd: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    set_up = {
        part.strip()
        for m in re.finditer(r"```bash\n(.*?)```", readme, re.S)
        for part in m[1].split("&&")
    }
    commands = [
        part.strip() for line in block.body.splitlines() for part in line.split("#")[0].split("&&")
    ]
    assert all(c in set_up for c in commands if c)


def _extra(block: Block, cwd: Path) -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    for name in re.findall(r'"astcompile\[([\w,]+)\]"', block.body):
        assert set(name.split(",")) <= set(extras)


def _tested_by(block: Block, cwd: Path) -> None:
    (node,) = block.words
    path, name = node.split("::")
    source = (ROOT / path).read_text()
    test = source[source.index(f"def {name}(") :].split("\ndef ", 1)[0]
    words = [w for w in block.body.split() if w.startswith(("try-repo", "astcompile-", "--"))]
    assert words and all(f'"{w}"' in test for w in words)


CHECKS: dict[str, Callable[[Block, Path], None]] = {
    "run": _run,
    "output": _output,
    "json": _json,
    "usage": _usage,
    "shell": _shell_lines,
    "config": _config,
    "yaml": _yaml,
    "readme": _readme,
    "extra": _extra,
    "tested-by": _tested_by,
}


@pytest.mark.parametrize("block", blocks(), ids=str)
def test_doc_block(block: Block, sample_dir: Callable[[Block], Path]):
    if block.kind not in CHECKS:
        pytest.fail(f"{block}: no <!-- doc-test: KIND --> comment before the block")
    needs = block.option("needs")
    if needs == "gpu" and not gpu_present():
        pytest.skip(f"{block} needs a CUDA GPU (marked needs=gpu in the doc)")
    if needs not in (None, "gpu") and importlib.util.find_spec(needs) is None:
        pytest.skip(f"{block} needs {needs} (marked needs={needs} in the doc)")
    if block.kind == "yaml" and importlib.util.find_spec("pre_commit") is None:
        pytest.skip("needs pre-commit (the test extra)")
    CHECKS[block.kind](block, sample_dir(block))
