"""Settings from the environment (astcompile/config.py): checked at import, with an error
naming the variable and what it accepts."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from astcompile import config


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("ASTCOMPILE_BUILD_TIMEOUT=abc", r"ASTCOMPILE_BUILD_TIMEOUT='abc': expected seconds"),
        ("ASTCOMPILE_BUILD_TIMEOUT=-1", r"ASTCOMPILE_BUILD_TIMEOUT='-1': expected seconds, a "),
        ("ASTCOMPILE_CACHE_MAX_BYTES=-5", r"ASTCOMPILE_CACHE_MAX_BYTES='-5': expected a size"),
        ("ASTCOMPILE_COMPILE_BUDGET=soon", r"ASTCOMPILE_COMPILE_BUDGET='soon': expected seconds"),
    ],
)
def test_a_bad_setting_stops_the_import_naming_it(setting, message):
    name, value = setting.split("=")
    done = subprocess.run(
        [sys.executable, "-c", "import astcompile"],
        env={**os.environ, name: value},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "SettingError" in done.stderr and re.search(message, done.stderr)


@pytest.mark.parametrize("value", ["abc", "-1", "nan", "inf", "-0.5", "1e400"])
def test_timeouts_are_finite_and_not_negative(monkeypatch, value):
    monkeypatch.setenv("ASTCOMPILE_BUILD_TIMEOUT", value)
    with pytest.raises(config.SettingError, match=r"0 or more \(0: no limit\)"):
        config._env_number(
            "ASTCOMPILE_BUILD_TIMEOUT", 120.0, float, "seconds, 0 or more (0: no limit)"
        )


@pytest.mark.parametrize(
    ("value", "expected"), [("0", 0.0), ("5", 5.0), ("2.5", 2.5), (" 7 ", 7.0), ("", 120.0)]
)
def test_accepted_timeouts(monkeypatch, value, expected):
    monkeypatch.setenv("ASTCOMPILE_BUILD_TIMEOUT", value)
    assert config._env_number("ASTCOMPILE_BUILD_TIMEOUT", 120.0, float, "") == expected


@pytest.mark.parametrize(("value", "expected"), [("inf", float("inf")), ("0.25", 0.25)])
def test_the_compile_budget_may_be_infinite(monkeypatch, value, expected):
    monkeypatch.setenv("ASTCOMPILE_COMPILE_BUDGET", value)
    assert config._env_number("ASTCOMPILE_COMPILE_BUDGET", 0.5, float, "", True) == expected
    monkeypatch.setenv("ASTCOMPILE_COMPILE_BUDGET", "nan")
    with pytest.raises(config.SettingError, match="ASTCOMPILE_COMPILE_BUDGET='nan'"):
        config._env_number("ASTCOMPILE_COMPILE_BUDGET", 0.5, float, "", True)


def test_entry_limits_are_whole_numbers(monkeypatch):
    monkeypatch.setenv("ASTCOMPILE_CACHE_SIZE_LIMIT", "2.5")
    with pytest.raises(config.SettingError, match=r"ASTCOMPILE_CACHE_SIZE_LIMIT='2\.5'"):
        config._env_number("ASTCOMPILE_CACHE_SIZE_LIMIT", 8, int, "a whole number")
    monkeypatch.setenv("ASTCOMPILE_CACHE_SIZE_LIMIT", "3")
    assert config._env_number("ASTCOMPILE_CACHE_SIZE_LIMIT", 8, int, "") == 3


@pytest.mark.parametrize("value", ["-5", "-1M", "lots", "nanM"])
def test_sizes_are_not_negative(monkeypatch, value):
    monkeypatch.setenv("ASTCOMPILE_CACHE_MAX_BYTES", value)
    with pytest.raises(config.SettingError, match=r"ASTCOMPILE_CACHE_MAX_BYTES=.*0 or more"):
        config._env_bytes("ASTCOMPILE_CACHE_MAX_BYTES", 1)


@pytest.mark.parametrize(("value", "expected"), [("0", 0), ("512M", 512 << 20), ("64KiB", 65536)])
def test_accepted_sizes(monkeypatch, value, expected):
    monkeypatch.setenv("ASTCOMPILE_CACHE_MAX_BYTES", value)
    assert config._env_bytes("ASTCOMPILE_CACHE_MAX_BYTES", 1) == expected


def test_flags_take_the_usual_words_and_nothing_else(monkeypatch):
    for word, on in (("1", True), ("Yes", True), ("off", False), ("", False), ("FALSE", False)):
        monkeypatch.setenv("ASTCOMPILE_VERIFY", word)
        assert config._env_flag("ASTCOMPILE_VERIFY", not on) is on
    monkeypatch.setenv("ASTCOMPILE_VERIFY", "maybe")
    with pytest.raises(config.SettingError, match="ASTCOMPILE_VERIFY='maybe': expected 1 or 0"):
        config._env_flag("ASTCOMPILE_VERIFY", False)
