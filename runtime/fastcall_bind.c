/* Binding a call to a one-region function's parameters, in C: appended after fastcall_switch.c,
 * before fastcall_sole.c, which runs the calls bound here.
 *
 * A call by keyword, or one relying on defaults, is bound as CPython binds it (positional
 * arguments first, then each keyword to its parameter, then the defaults, read from the
 * function as it is now: __defaults__ and __kwdefaults__ may be assigned at any time). Anything
 * Python would refuse, or that this does not describe, is left to the route, whose own call
 * then raises Python's TypeError with Python's message.
 */

enum { SOLE_MAX = 16 }; /* the most parameters a call binds here (more: the route) */

/* The index of the parameter a keyword names (positional-only ones never), or -1. */
static Py_ssize_t sole_param(PyObject *params, Py_ssize_t from, PyObject *name) {
    Py_ssize_t n = PyTuple_GET_SIZE(params);
    for (Py_ssize_t i = from; i < n; i++)
        if (PyTuple_GET_ITEM(params, i) == name) return i; /* both interned, mostly */
    if (!PyUnicode_CheckExact(name)) return -1; /* a str subclass: Python's own binding */
    for (Py_ssize_t i = from; i < n; i++)
        if (PyUnicode_Compare(PyTuple_GET_ITEM(params, i), name) == 0) return i;
    return -1;
}

/* The region's arguments of a call with keywords or relying on defaults, bound into bound[]
 * (new references) as the function's own call binds them, its defaults read from it as they
 * are now (__defaults__ and __kwdefaults__ may be assigned at any time): 1. 0 where anything is
 * unusual (too many arguments; a keyword unknown, repeated or positional-only; a parameter
 * without a value; the function's code replaced): the route runs the call, and raises
 * Python's own TypeError. */
static int sole_bind_to(Switch *self, PyObject *fn, PyObject *params, PyObject *const *args,
                        Py_ssize_t nargs, PyObject *kwnames, PyObject **bound) {
    Py_ssize_t arity = self->sole_arity, positional = self->sole_positional;
    for (Py_ssize_t i = 0; i < arity; i++) bound[i] = i < nargs ? args[i] : NULL;
    Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; k++) {
        Py_ssize_t at = sole_param(params, self->sole_posonly, PyTuple_GET_ITEM(kwnames, k));
        if (at < 0 || bound[at] != NULL) return 0;
        bound[at] = args[nargs + k];
    }
    PyObject *defaults = PyFunction_GET_DEFAULTS(fn), *kwdefaults = PyFunction_GET_KW_DEFAULTS(fn);
    Py_ssize_t first = positional - (defaults == NULL ? 0 : PyTuple_GET_SIZE(defaults));
    for (Py_ssize_t i = nargs; i < arity; i++) {
        if (bound[i] != NULL) continue;
        if (i < positional)
            bound[i] = i < first ? NULL : PyTuple_GET_ITEM(defaults, i - first);
        else if (kwdefaults != NULL && PyDict_CheckExact(kwdefaults))
            bound[i] = PyDict_GetItemWithError(kwdefaults, PyTuple_GET_ITEM(params, i));
        if (bound[i] == NULL) return 0;
    }
    for (Py_ssize_t i = 0; i < arity; i++) Py_INCREF(bound[i]); /* a default may be rebound */
    return 1;
}

static int sole_bind(Switch *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                     PyObject **bound) {
    PyObject *fn = self->sole_fn, *params = self->sole_params;
    if (params == NULL || nargs > self->sole_positional || PyFunction_GET_CODE(fn) != self->sole_code)
        return 0;
    Py_INCREF(fn); /* a lookup in __kwdefaults__ may run Python code, which may rebuild */
    Py_INCREF(params);
    int done = sole_bind_to(self, fn, params, args, nargs, kwnames, bound);
    Py_DECREF(fn);
    Py_DECREF(params);
    return done;
}

/* (args, kwargs): the call as it was made, for the rewritten function after a miss. */
static PyObject *sole_as_made(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *tuple = PyTuple_New(nargs), *kwargs = PyDict_New(), *made = NULL;
    if (tuple != NULL && kwargs != NULL) {
        for (Py_ssize_t i = 0; i < nargs; i++) PyTuple_SET_ITEM(tuple, i, Py_NewRef(args[i]));
        Py_ssize_t nkw = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames), k = 0;
        while (k < nkw && PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]) == 0)
            k++;
        if (k == nkw) made = PyTuple_Pack(2, tuple, kwargs);
    }
    Py_XDECREF(tuple);
    Py_XDECREF(kwargs);
    return made;
}

/* A call as it was made (before sole_bind), for the route's finish. */
typedef struct {
    PyObject *const *args;
    Py_ssize_t nargs;
    PyObject *kwnames;
} SoleMade;

/* How calls bind to the region's arguments, from the function (its attribute fn) as it is
 * now: the region's `positional` first ones by position (CompiledFunction sets it), the rest
 * keyword-only, its parameters' names, and the code they are read from (sole_bind checks it).
 * Left NULL (every call but an exact one goes to the route) where that does not describe it. */
static void sole_layout(Switch *self, PyObject *region) {
    PyObject *count = PyObject_GetAttrString(region, "positional");
    Py_ssize_t positional = count == NULL ? -1 : PyLong_AsSsize_t(count);
    Py_XDECREF(count);
    self->sole_positional = positional < 0 ? self->sole_arity : positional;
    PyObject *fn = PyObject_GetAttrString((PyObject *)self, "fn");
    PyCodeObject *code = fn && PyFunction_Check(fn) ? (PyCodeObject *)PyFunction_GET_CODE(fn) : NULL;
    if (code != NULL && !(code->co_flags & (CO_VARARGS | CO_VARKEYWORDS)) &&
        code->co_argcount == positional && self->sole_arity <= SOLE_MAX &&
        code->co_argcount + code->co_kwonlyargcount == self->sole_arity) {
        PyObject *names = PyObject_GetAttrString((PyObject *)code, "co_varnames");
        if (names != NULL && PyTuple_Check(names)) {
            self->sole_params = PyTuple_GetSlice(names, 0, self->sole_arity);
            self->sole_fn = Py_NewRef(fn);
            self->sole_code = Py_NewRef((PyObject *)code);
            self->sole_posonly = code->co_posonlyargcount;
        }
        Py_XDECREF(names);
    }
    Py_XDECREF(fn);
    PyErr_Clear();
}
