"""Sample modules for the frontend tests (their line numbers are asserted on: edit with care)."""
