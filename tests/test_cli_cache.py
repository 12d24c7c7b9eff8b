"""``astcompile cache info|clear`` (astcompile/cli/cache.py)."""

from __future__ import annotations

import json
import os

import astcompile
from astcompile.cli import main
from astcompile.runtime import load_library

SOURCE = "#include <stdint.h>\nint64_t {0}(int64_t x) {{ return x + 1; }}\n"


def _fill(cache_dir, names: str) -> None:
    """Build one kernel per name (names not built before: the loader serves those from memory)."""
    for name in names.split():
        load_library(SOURCE.format(name), f"int64_t {name}(int64_t);", str(cache_dir))


def test_info_counts_entries_and_says_whether_code_is_loaded_from_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path))
    _fill(tmp_path, "info_a info_b")
    (tmp_path / "c-v1" / ".build-crashed").mkdir()
    assert main(["cache", "info", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["folder"] == str(tmp_path) and report["problem"] == ""
    assert report["sections"]["kernels"]["entries"] == 2 and report["leftovers"] == 1
    assert report["bytes"] == report["sections"]["kernels"]["bytes"] > 0
    os.chmod(tmp_path, 0o777)
    assert main(["cache", "info"]) == 0
    text = capsys.readouterr().out
    assert "kernels" in text and "ASTCOMPILE_CACHE_MAX_BYTES" in text
    assert "loaded from   no: " in text and "chmod go-w" in text


def test_clear_removes_every_entry(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(astcompile.config, "cache_dir", str(tmp_path))
    _fill(tmp_path, "clear_a clear_b")
    assert main(["cache", "clear"]) == 0
    assert "removed" in capsys.readouterr().out
    assert os.listdir(tmp_path / "c-v1") == []
    assert main(["cache", "clear"]) == 0  # an empty cache is fine
    assert main(["cache", "nonsense"]) == 2
