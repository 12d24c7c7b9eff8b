"""What ``ASTCOMPILE_DEBUG_DIR`` and ``ASTCOMPILE_LOGS=output_code`` show of a compiled function.

One folder per function, ``<debug_dir>/<module>.<function>/``, holds what each stage of
``astcompile/pipeline.py`` made, named by the stage::

    rewrite.py                       the function split into regions (frontend)
    __ac_region_0.0.trace.txt        the region's graph, traced for its first guard set
    __ac_region_0.0.cse.txt          the graph after a pass that changed it (one per pass)
    __ac_region_0.0.lower.c          the C of its kernels (with the quoted source lines)
    __ac_region_0.0.lower.triton.py  or, on the Triton target, its Triton kernels
    __ac_region_0.0.wrap.py          the generated Python that checks guards and calls them

The stages write the first three (and ``<region>.<n>.scans.txt``, ``.accept.txt``: their
``dump`` functions are here); :func:`region` the code.

The number counts the region's compiled entries (a recompile for new argument kinds writes
``.1``). An entry loaded on a warm start (disk cache or ``__astcache__``) is dumped the same
way: its C comes from the ``.c`` the cache keeps beside each kernel library, and each ``.c``
dump begins by naming the library it belongs to, and so where the cached source lives.
The ``output_code`` log channel prints the same texts.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from astcompile import config, logs
from astcompile.runtime.cache import source_path

if TYPE_CHECKING:
    from astcompile.jit.protocols import Owner
    from astcompile.stages import FunctionWork, RegionWork


def folder(fn: Any, name: str) -> str | None:
    """The debug folder of the function ``fn`` (named ``name``), created; None when off."""
    if not config.debug_dir:
        return None
    module = getattr(fn, "__module__", "module") or "module"
    path = os.path.join(config.debug_dir, f"{module}.{name}".replace("<", "").replace(">", ""))
    os.makedirs(path, exist_ok=True)
    return path


def region(
    fn: Any, name: str, region_name: str, graph: Any, run: Callable | None, number: int | None
) -> None:
    """A region entry's C and wrapper (``run`` is the entry's callable: made by the C backend
    now, or loaded on a warm start) in the output_code log and the debug folder. ``number`` is
    the trace stage's dump number; None for a warm-start entry, whose graph is written here
    (no trace stage ran for it)."""
    logs.output_code.info("%s %s:\n%s", name, region_name, graph)
    where = folder(fn, name)
    if where is None and not logs.output_code.isEnabledFor(logging.INFO):
        return
    c_text, wrapper = code_of(run)
    triton_text = triton_of(run)
    if c_text:
        logs.output_code.info("%s %s C:\n%s", name, region_name, c_text)
    if triton_text:
        logs.output_code.info("%s %s Triton:\n%s", name, region_name, triton_text)
    if wrapper:
        logs.output_code.info("%s %s wrapper:\n%s", name, region_name, wrapper)
    if where is None:
        return
    if number is None:
        number = _number(where, region_name)
        _write(where, f"{region_name}.{number}.trace.txt", f"{graph}\n")
    stem = f"{region_name}.{number}"
    if c_text:
        _write(where, f"{stem}.lower.c", c_text)
    if triton_text:
        _write(where, f"{stem}.lower.triton.py", triton_text)
    if wrapper:
        _write(where, f"{stem}.wrap.py", wrapper)


def code_of(run: Callable | None) -> tuple[str, str]:
    """(C with a first line naming its library, wrapper source) of a compiled entry; "" for
    what it has not (an eager entry has neither, a region without kernels no C)."""
    parts = getattr(run, "parts", None)
    wrapper = getattr(run, "py_source", "")
    library = getattr(parts, "library", None)
    c_text = getattr(run, "c_source", None)
    if not library:
        return (c_text or "") if parts is not None and parts.cdecls else "", wrapper
    kept = source_path(library)
    if c_text is not None:
        return f"/* built into {library} (source kept at {kept}) */\n{c_text}", wrapper
    try:  # a warm start: the source the cache keeps beside the library
        with open(kept) as f:
            c_text = f.read()
    except OSError:
        return f"/* warm start: loaded {library}; its C source was not kept */\n", wrapper
    return f"/* warm start: loaded {library}, built from {kept} */\n{c_text}", wrapper


def triton_of(run: Callable | None) -> str:
    """The Triton kernels of an entry on the Triton target (the wrapper calls them by name,
    ``_kernel('tr_region_0_k0', ...)``), first naming the module file they are imported from
    (``<cache_dir>/triton/``, where Triton reads a kernel's source); "" for other entries."""
    source = getattr(run, "triton_source", None)
    if not source:
        return ""
    module = getattr(run, "triton_module", None)
    where = getattr(module, "__file__", None) or "a module of the kernel cache"
    return f"# Triton kernels, imported from {where}\n{source}"


def _number(where: str, region_name: str) -> int:
    """The next entry number of ``region_name`` (its traced graphs dumped so far)."""
    prefix = f"{region_name}."
    return sum(1 for f in os.listdir(where) if f.startswith(prefix) and f.endswith(".trace.txt"))


def _write(where: str, filename: str, text: str) -> None:
    with open(os.path.join(where, filename), "w") as out:
        out.write(text)


# -- what a stage made (``Stage.dump``: its file name and text, or None) ----------------------


def rewrite_dump(stage: str, work: FunctionWork) -> tuple[str, str] | None:
    made = work.rewrite
    if made is None:
        return None
    bodies = "".join("\n\n" + spec.body_source.lstrip("\n") for spec in made.regions)
    return "rewrite.py", made.source.lstrip("\n") + bodies


def trace_dump(stage: str, work: RegionWork) -> tuple[str, str] | None:
    name = work.region.spec.name
    work.dump_number = _number(folder(work.owner.fn, work.owner.name), name)
    return f"{name}.{work.dump_number}.trace.txt", str(work.graph)


def pass_dump(stage: str, work: RegionWork) -> tuple[str, str] | None:
    if not work.changed or work.region is None:
        return None
    return f"{work.region.spec.name}.{work.dump_number}.{stage}.txt", str(work.graph)


def scans_dump(stage: str, work: RegionWork) -> tuple[str, str] | None:
    if work.scans is None or work.region is None:
        return None
    return f"{work.region.spec.name}.{work.dump_number}.{stage}.txt", str(work.scans)


def plan_dump(stage: str, work: RegionWork) -> tuple[str, str] | None:
    """What a target's planning stage (Triton's ``stores``, ``host_loops``) made of the graph."""
    if work.form is None or work.form.name != stage or work.region is None:
        return None
    return f"{work.region.spec.name}.{work.dump_number}.{stage}.txt", str(work.schedule)


def accept_dump(stage: str, work: RegionWork) -> tuple[str, str] | None:
    taken = work.form.name if work.form else f"c ({work.handed_over})"  # Triton's forms
    return f"{work.region.spec.name}.{work.dump_number}.{stage}.txt", taken + "\n"


def write_stage(made: tuple[str, str] | None, owner: Owner) -> None:
    """A stage's dump in its function's folder (called only while ``config.debug_dir`` is set)."""
    if made is not None:
        _write(folder(owner.fn, owner.name), *made)
