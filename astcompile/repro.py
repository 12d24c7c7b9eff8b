"""Stand-alone repros of a region whose compiled result differed from its plain code.

``config.verify`` writes one folder per mismatch (see :func:`write`):

- ``repro.py``: the region's statements as a plain function, and a few lines that compile it
  with astcompile, run it compiled and plain on the saved inputs and print the differences;
  ``python repro.py`` exits with status 1 while they still differ (2 when a saved value
  cannot be loaded back);
- ``values.npz`` and ``values.json``: the region's arguments (before the compiled run wrote
  into any of them) and the globals and closure values its statements read. Arrays and NumPy
  scalars go to the ``.npz``; the JSON describes the structure and holds Python scalars as
  text, modules and functions by import name, dicts as their items, objects (``self``) as
  their class's import name and their attributes. Nothing is pickled: a repro runs no stored
  code.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import threading
import types
from typing import Any

import numpy as np

_lock = threading.Lock()
_temp_root: str | None = None
_PY_SCALARS = {"bool": lambda s: s == "True", "int": int, "float": float, "complex": complex}


def write(region: Any, args: tuple, problems: list[str], root: str | None = None) -> str:
    """Write a repro of ``region`` called with ``args``; returns its folder."""
    folder = _new_folder(root or _default_root(), _label(region))
    body = region.body
    free = dict(zip(body.__code__.co_freevars, body.__closure__ or ()))
    names = [
        n
        for n in (*region.spec.globals_read, *free)
        if not n.startswith("__ac_") and (n in free or n in body.__globals__)
    ]
    context = {n: free[n].cell_contents if n in free else body.__globals__[n] for n in names}
    save_values(folder, args, context)
    with open(os.path.join(folder, "repro.py"), "w") as out:
        out.write(_script(region, problems))
    return folder


def save_values(folder: str, args: tuple, context: dict[str, Any]) -> None:
    """Write ``values.npz`` and ``values.json`` (see the module docstring)."""
    arrays: dict[str, np.ndarray] = {}
    described = {
        "args": [_describe(a, arrays) for a in args],
        "context": {n: _describe(v, arrays) for n, v in context.items()},
    }
    np.savez(os.path.join(folder, "values.npz"), **arrays)
    with open(os.path.join(folder, "values.json"), "w") as out:
        json.dump(described, out, indent=1)


def _label(region: Any) -> str:
    module = getattr(region.owner.fn, "__module__", None) or "module"
    name = f"{module}.{region.owner.name}.{region.spec.name}"
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


def _default_root() -> str:
    """``config.debug_dir``, else one temporary folder per process."""
    global _temp_root
    from astcompile import config

    if config.debug_dir:
        return os.path.join(config.debug_dir, "verify")
    with _lock:
        if _temp_root is None:
            _temp_root = tempfile.mkdtemp(prefix="astcompile-verify-")
    return _temp_root


def _new_folder(root: str, label: str) -> str:
    os.makedirs(root, exist_ok=True)
    for n in range(1, 10_000):
        folder = os.path.join(root, label if n == 1 else f"{label}-{n}")
        try:
            os.mkdir(folder)
            return folder
        except FileExistsError:
            continue
    raise OSError(f"too many repros of {label} in {root}")


def _describe(value: Any, arrays: dict[str, np.ndarray], depth: int = 0) -> dict[str, Any]:
    """A JSON description of ``value``; arrays are added to ``arrays`` under a fresh key. A
    dict is its items; an object of an importable class (``self``) its class by import name
    and its attributes, each described in turn (a few levels deep)."""
    kind = type(value)
    if depth > 8:
        return {"unsupported": f"{kind.__module__}.{kind.__qualname__} (nested too deep)"}
    if kind is np.ndarray or isinstance(value, np.generic):
        key = f"v{len(arrays)}"
        arrays[key] = np.asarray(value)
        return {"array" if kind is np.ndarray else "numpy_scalar": key}
    if kind in (bool, int, float, complex):
        return {"python": [kind.__name__, repr(value)]}
    if value is None or kind is str:
        return {"literal": value}
    if kind in (tuple, list):
        return {kind.__name__: [_describe(v, arrays, depth + 1) for v in value]}
    if kind is dict:
        items = value.items()
        return {"dict": [[_describe(k, arrays), _describe(v, arrays, depth + 1)] for k, v in items]}
    if isinstance(value, np.dtype):
        return {"dtype": value.str}
    if isinstance(value, types.ModuleType):
        return {"module": value.__name__}
    if _importable(value):
        return {"import": f"{value.__module__}:{value.__qualname__}"}
    if _importable(kind) and type(getattr(value, "__dict__", None)) is dict:
        attrs = {n: _describe(v, arrays, depth + 1) for n, v in vars(value).items()}
        return {"object": [f"{kind.__module__}:{kind.__qualname__}", attrs]}
    return {"unsupported": f"{kind.__module__}.{kind.__qualname__}"}


def _importable(value: Any) -> bool:
    module = sys.modules.get(getattr(value, "__module__", None) or "")
    target: Any = module
    for part in (getattr(value, "__qualname__", "") or "<>").split("."):
        target = getattr(target, part, None)
    return module is not None and target is value


def load_values(folder: str) -> tuple[tuple, dict[str, Any]]:
    """The saved ``(args, context)`` of a repro folder."""
    with open(os.path.join(folder, "values.json")) as f:
        described = json.load(f)
    with np.load(os.path.join(folder, "values.npz")) as npz:
        arrays = {k: npz[k] for k in npz.files}
    args = tuple(_rebuild(d, arrays) for d in described["args"])
    return args, {n: _rebuild(d, arrays) for n, d in described["context"].items()}


#: A repro's exit status when its saved values cannot be loaded (1 says "still differs").
CANNOT_LOAD = 2


def load_for_script(folder: str) -> tuple[tuple, dict[str, Any]]:
    """:func:`load_values`, or exit with :data:`CANNOT_LOAD` saying which value failed."""
    try:
        return load_values(folder)
    except (ValueError, ImportError, AttributeError) as exc:
        print(f"astcompile repro: a saved value cannot be loaded: {exc}", file=sys.stderr)
        raise SystemExit(CANNOT_LOAD) from exc


def _rebuild(d: dict[str, Any], arrays: dict[str, np.ndarray]) -> Any:
    ((kind, data),) = d.items()
    if kind == "array":
        return arrays[data]
    if kind == "numpy_scalar":
        return arrays[data][()]
    if kind == "python":
        return _PY_SCALARS[data[0]](data[1])
    if kind == "literal":
        return data
    if kind in ("tuple", "list"):
        return {"tuple": tuple, "list": list}[kind](_rebuild(x, arrays) for x in data)
    if kind == "dict":
        return {_rebuild(k, arrays): _rebuild(v, arrays) for k, v in data}
    if kind == "dtype":
        return np.dtype(data)
    if kind == "module":
        return __import__(data, fromlist=["_"])
    if kind == "import":
        return _imported(data)
    if kind == "object":  # its attributes set on a bare instance: no __init__, no stored code
        cls = _imported(data[0])
        obj = cls.__new__(cls)
        obj.__dict__.update({n: _rebuild(v, arrays) for n, v in data[1].items()})
        return obj
    raise ValueError(f"a value of type {data} could not be saved with the repro")


def _imported(name: str) -> Any:
    """``module:qualname`` imported."""
    module, _, qualname = name.partition(":")
    target: Any = __import__(module, fromlist=["_"])
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


_SCRIPT = '''"""astcompile verify: a repro of {region} of {function}.

From {filename}, lines {first}-{last}. Its compiled result differed from the plain code:
{problems}

Run ``python repro.py``: it compiles the statements below with astcompile (backend {backend!r},
in a fresh kernel cache), runs them compiled and as plain Python on the inputs saved next to
this file, prints what differs and exits with status 1 while anything does (2: a saved value
could not be loaded).
"""

import os as _os
import sys as _sys

import astcompile.repro as _repro
from astcompile.repro_run import main as _main

_HERE = _os.path.dirname(_os.path.abspath(__file__))
_sys.path.insert(0, {module_dir!r})  # the user's module: functions the statements call
_ARGS, _CONTEXT = _repro.load_for_script(_HERE)
globals().update(_CONTEXT)  # the globals and closure values the statements read


# {filename}, lines {first}-{last}
{body}

if __name__ == "__main__":
    _sys.exit(_main(region, _ARGS, backend={backend!r}))
'''


def _script(region: Any, problems: list[str]) -> str:
    """The text of ``repro.py``: the region's own statements, renamed ``region``."""
    spec = region.spec
    filename = region.owner.fn.__code__.co_filename
    body = spec.body_source.lstrip("\n").replace(f"def {spec.name}(", "def region(", 1)
    listed = "\n".join(f"  - {p}" for p in problems)
    listed = listed.replace("\\", "\\\\").replace('"""', "'''")  # inside a docstring
    return _SCRIPT.format(
        region=spec.name,
        function=region.owner.name,
        filename=filename,
        first=spec.first_line,
        last=spec.last_line,
        problems=listed,
        backend=region.owner.target().name,
        module_dir=os.path.dirname(filename),
        body=body,
    )
