"""Rules as data: which names are safe to trace, which have side effects, which tests are static.

Both resolvers (runtime and static) read these tables, so the CLI predicts exactly what the
runtime will do. Adding a builtin or a NumPy I/O function is a one-word change here.
"""

from __future__ import annotations


def _names(words: str) -> frozenset[str]:
    return frozenset(words.split())


#: Builtins that only compute on their arguments; the tracer evaluates them with concrete values.
SAFE_BUILTINS = _names(
    """abs all any bool complex dict divmod enumerate float frozenset int isinstance issubclass
    len list max min pow range reversed round set slice sorted sum tuple type zip callable
    hasattr"""
)

#: Builtins whose effect is the point of calling them: they must run once per call, in order.
SIDE_EFFECT_BUILTINS = _names(
    """print input open breakpoint exec eval compile exit quit help setattr delattr globals
    locals vars __import__ next"""
)

#: Builtins that, called with no argument, read the caller's own frame: a function calling one
#: runs as written (no regions), or its regions would show among its locals.
FRAME_READS = _names("locals vars dir")

#: Names in a function's code that read the frames above its own (``sys._getframe(1)``,
#: ``inspect.currentframe().f_back``, ``warnings.warn(..., stacklevel=2)``): called through
#: our dispatch, such a function would find our frames there, not its caller's.
CALLER_FRAME_NAMES = _names(
    "_getframe currentframe f_back extract_stack print_stack format_stack getouterframes"
)

#: Functions returning a frame of the caller (``sys._getframe()``, ``inspect.currentframe()``):
#: its ``f_locals`` would show the regions and miss the names they bind, as ``locals()`` does.
FRAME_GETTERS = _names("_getframe currentframe")

#: Builtins that run code in the caller's frame unless given their own namespaces: ``eval(s)``
#: and ``exec(s)`` read (and ``exec`` writes) the function's locals, as ``eval(s, g)`` does not.
FRAME_EVALS = _names("eval exec")

#: Modules whose functions are pure computations on numbers.
PURE_MODULES = ("math", "cmath", "operator")

#: NumPy names that do I/O or touch process-wide state, writing or reading it (the random
#: generators are matched by their module, ``numpy.random``): a read such as ``np.geterr()``
#: must happen at every call, not once at trace time.
NUMPY_SIDE_EFFECTS = _names(
    """save savez savez_compressed savetxt load loadtxt genfromtxt fromfile fromregex memmap
    set_printoptions printoptions seterr seterrcall setbufsize info show_config show_runtime
    errstate get_printoptions geterr geterrcall getbufsize"""
)

#: Attributes that describe an array without reading its values: tests on them are static.
STATIC_ATTRIBUTES = _names("shape ndim dtype size itemsize nbytes strides")

#: Calls whose result in a test depends only on types and shapes.
STATIC_CALLS = _names("len isinstance issubclass hasattr callable type")

#: The runtime marks ``astcompile.graph_break`` with this attribute; we compare by it, not by name.
GRAPH_BREAK_ATTR = "__astcompile_graph_break__"

#: Qualified names of astcompile's own API, as the static resolver sees them.
API_GRAPH_BREAK = "astcompile.graph_break"
API_DISABLE = "astcompile.disable"
API_ALLOW = "astcompile.allow_in_graph"
API_DISALLOW = "astcompile.disallow_in_graph"
API_COMPILE = "astcompile.compile"


def numpy_call_has_side_effects(qualified: str) -> bool:
    """``numpy.random.*`` (global RNG state) and the I/O functions above run eagerly."""
    parts = qualified.split(".")
    return "random" in parts[:-1] or parts[-1] in NUMPY_SIDE_EFFECTS
