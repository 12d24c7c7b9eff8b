"""A tiny package built ahead of time by tests/test_cli_build.py."""
