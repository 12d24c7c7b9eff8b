/* Switch: the C base of compiled functions (astcompile/jit/function.py), appended to
 * fastcall.c when the extension is built.
 *
 * A compiled function that measuring sent to the plain path must cost nothing over calling the
 * user's function; one whose class's __call__ is that function (a staticmethod) still costs a
 * tuple per call, a dict per keyword call and, as a method, a Python __get__ per access. A
 * Switch is called through vectorcall and runs its route: the user's function alone, with the
 * caller's arguments as they are, or the measured path (CompiledFunction.__call__), with the
 * object itself put first. Measuring changes the route (route()); nothing else changes.
 *
 * The plain route of a function that calls itself by name is its twin (jit/routes.py), made
 * from the user's function as it was when the route was set: route() then names that function
 * (watched), and a call runs the twin only while the function still has the code and defaults
 * it had, else the function itself, as the user changed it.
 *
 * As a descriptor it binds like a function (a bound method of itself), and it says so
 * (Py_TPFLAGS_METHOD_DESCRIPTOR), so obj.f(x) calls f(obj, x) without making the method.
 * Subclasses get both flags in __init_subclass__ (Python 3.11 does not pass them on to heap
 * types) unless they define __call__ or __get__ of their own, and are made immutable there:
 * the interpreter specialises obj.f(x) only for methods of immutable classes (about 6 ns).
 */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *route; /* what a call runs */
    int bind;        /* whether the route gets the object itself as its first argument */
    PyObject *watched;                     /* the function the route stands for, or NULL */
    PyObject *code, *defaults, *kwdefaults; /* watched's when the route was set */
    PyObject *finish; /* with a bound route: a one-region function's calls run in C */
    PyObject *owner;  /* what a bound route gets first, NULL: the Switch itself */
    PyObject *sole, *sole_dict, *tier, *tier_dict; /* its region and tier (fastcall_sole.c) */
    Py_ssize_t sole_arity, sole_positional, sole_posonly;
    PyObject *sole_fn, *sole_code, *sole_params; /* what binds keywords and defaults there */
    uint64_t tier_version; /* tier_dict's version when it held tier_count, plain False */
    PyObject *tier_count;  /* borrowed: the dict holds it while its version is the same */
} Switch;

static int sole_call(Switch *self, PyObject *const *args, size_t nargsf, PyObject *kwnames,
                     PyObject **out); /* fastcall_sole.c */
static PyObject *sole_get_region(PyObject *op, void *closure);
static int sole_set_region(PyObject *op, PyObject *value, void *closure);
static PyObject *sole_get_tier(PyObject *op, void *closure);
static int sole_set_tier(PyObject *op, PyObject *value, void *closure);
static int add_sole(PyObject *module);
static PyObject *sole_compiled_call(PyObject *op, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames);

enum { SMALL_CALL = 8 };

static PyObject *switch_bound(PyObject *self, PyObject *route, PyObject *const *args,
                              size_t nargsf, PyObject *kwnames) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t total = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    PyObject *result;
    if (nargsf & PY_VECTORCALL_ARGUMENTS_OFFSET) { /* the caller lent the slot before args */
        PyObject **with_self = (PyObject **)args - 1;
        PyObject *saved = with_self[0];
        with_self[0] = self;
        result = PyObject_Vectorcall(route, with_self, nargs + 1, kwnames);
        with_self[0] = saved;
        return result;
    }
    PyObject *small[SMALL_CALL];
    PyObject **with_self = small;
    if (total + 1 > SMALL_CALL) {
        with_self = PyMem_Malloc((total + 1) * sizeof(PyObject *));
        if (with_self == NULL) return PyErr_NoMemory();
    }
    with_self[0] = self;
    memcpy(with_self + 1, args, total * sizeof(PyObject *));
    result = PyObject_Vectorcall(route, with_self, nargs + 1, kwnames);
    if (with_self != small) PyMem_Free(with_self);
    return result;
}

/* Whether the watched function still has what its twin was made with (the user may assign
 * __code__, __defaults__ and __kwdefaults__ at any time: IPython's autoreload does). */
static int switch_as_routed(Switch *self) {
    PyObject *fn = self->watched;
    return PyFunction_GET_CODE(fn) == self->code && PyFunction_GET_DEFAULTS(fn) == self->defaults &&
           PyFunction_GET_KW_DEFAULTS(fn) == self->kwdefaults;
}

static PyObject *switch_call(PyObject *op, PyObject *const *args, size_t nargsf,
                             PyObject *kwnames) {
    Switch *self = (Switch *)op;
    PyObject *route = self->route;
    if (self->watched != NULL && !switch_as_routed(self)) route = self->watched;
    if (route == NULL) {
        PyErr_SetString(PyExc_TypeError, "compiled function called before its route was set");
        return NULL;
    }
    PyObject *result;
    if (self->finish != NULL && route == self->route && sole_call(self, args, nargsf, kwnames, &result))
        return result;
    Py_INCREF(route); /* the call may change the route (measuring decides inside it) */
    result = self->bind ? switch_bound(self->owner ? self->owner : op, route, args, nargsf, kwnames)
                                  : PyObject_Vectorcall(route, args, nargsf, kwnames);
    Py_DECREF(route);
    return result;
}

static PyObject *switch_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    Switch *self = (Switch *)type->tp_alloc(type, 0);
    if (self != NULL) self->vectorcall = switch_call;
    return (PyObject *)self;
}

static int switch_traverse(PyObject *op, visitproc visit, void *arg) {
    Switch *self = (Switch *)op;
    Py_VISIT(self->route);
    Py_VISIT(self->watched);
    Py_VISIT(self->code);
    Py_VISIT(self->defaults);
    Py_VISIT(self->kwdefaults);
    Py_VISIT(self->finish);
    Py_VISIT(self->owner);
    Py_VISIT(self->sole);
    Py_VISIT(self->sole_dict);
    Py_VISIT(self->tier);
    Py_VISIT(self->tier_dict);
    Py_VISIT(self->sole_fn);
    Py_VISIT(self->sole_code);
    Py_VISIT(self->sole_params);
    return 0;
}

/* Forget the function a route stood for (what it had is held, so that no new object can take
 * its address and pass for it). */
static void switch_unwatch(Switch *self) {
    Py_CLEAR(self->watched);
    Py_CLEAR(self->code);
    Py_CLEAR(self->defaults);
    Py_CLEAR(self->kwdefaults);
}

static int switch_clear(PyObject *op) {
    Switch *self = (Switch *)op;
    Py_CLEAR(self->route);
    Py_CLEAR(self->finish);
    Py_CLEAR(self->owner);
    Py_CLEAR(self->sole);
    Py_CLEAR(self->sole_dict);
    Py_CLEAR(self->tier);
    Py_CLEAR(self->tier_dict);
    Py_CLEAR(self->sole_fn);
    Py_CLEAR(self->sole_code);
    Py_CLEAR(self->sole_params);
    switch_unwatch(self);
    return 0;
}

static void switch_dealloc(PyObject *self) {
    PyObject_GC_UnTrack(self);
    switch_clear(self);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *switch_get(PyObject *self, PyObject *obj, PyObject *type) {
    if (obj == NULL || obj == Py_None) return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

/* route(target, bind, watched=None, finish=None, owner=None): from now on a call runs
 * target(*args) or, with bind, target(self, *args); with watched (a function), only while
 * watched keeps the code and defaults it has now, and watched(*args) once it does not. With
 * finish (and bind), a call of a one-region function runs target's first lines in C
 * (fastcall_sole.c), ending in finish(self, region, args, result) where the guards did not end
 * it. With owner (and bind), owner stands for self in those calls: the Switch is the twin of a
 * compiled function made before the extension was loaded (jit/routes.py). */
static PyObject *switch_route(PyObject *op, PyObject *args) {
    PyObject *target, *watched = Py_None, *finish = Py_None, *owner = Py_None;
    int bind;
    if (!PyArg_ParseTuple(args, "Op|OOO", &target, &bind, &watched, &finish, &owner)) return NULL;
    if (owner != Py_None && !bind) {
        PyErr_SetString(PyExc_TypeError, "an owner needs a bound route");
        return NULL;
    }
    if (finish != Py_None && (!bind || !PyCallable_Check(finish))) {
        PyErr_SetString(PyExc_TypeError, "finish must be callable, with a bound route");
        return NULL;
    }
    if (!PyCallable_Check(target)) {
        PyErr_SetString(PyExc_TypeError, "a route must be callable");
        return NULL;
    }
    if (watched != Py_None && (bind || !PyFunction_Check(watched))) {
        PyErr_SetString(PyExc_TypeError, "an unbound route can watch a Python function");
        return NULL;
    }
    Switch *self = (Switch *)op;
    PyObject *old = self->route;
    switch_unwatch(self);
    if (watched != Py_None) {
        self->code = Py_NewRef(PyFunction_GET_CODE(watched));
        self->defaults = Py_XNewRef(PyFunction_GET_DEFAULTS(watched));
        self->kwdefaults = Py_XNewRef(PyFunction_GET_KW_DEFAULTS(watched));
        self->watched = Py_NewRef(watched);
    }
    self->route = Py_NewRef(target);
    self->bind = bind;
    Py_XSETREF(self->finish, finish == Py_None ? NULL : Py_NewRef(finish));
    Py_XSETREF(self->owner, owner == Py_None ? NULL : Py_NewRef(owner));
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

static PyObject *switch_init_subclass(PyObject *cls, PyObject *args, PyObject *kw) {
    PyTypeObject *type = (PyTypeObject *)cls;
    if (type->tp_call == PyVectorcall_Call) type->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    if (type->tp_descr_get == switch_get) type->tp_flags |= Py_TPFLAGS_METHOD_DESCRIPTOR | Py_TPFLAGS_IMMUTABLETYPE;
    Py_RETURN_NONE;
}

static PyObject *switch_current(PyObject *self, void *closure) {
    PyObject *route = ((Switch *)self)->route;
    return Py_NewRef(route ? route : Py_None);
}

static PyMethodDef switch_methods[] = {
    {"route", switch_route, METH_VARARGS,
     "route(target, bind, watched=None, finish=None, owner=None): what calls run from now on"},
    {"compiled_call", (PyCFunction)(void (*)(void))sole_compiled_call, METH_FASTCALL | METH_KEYWORDS,
     "a one-region function's compiled path, not counted (fastcall_sole.c)"},
    {"__init_subclass__", (PyCFunction)(void (*)(void))switch_init_subclass,
     METH_VARARGS | METH_KEYWORDS | METH_CLASS, NULL},
    {NULL},
};

static PyGetSetDef switch_getset[] = {
    {"current_route", switch_current, NULL, "what a call runs now", NULL},
    {"_sole_region", sole_get_region, sole_set_region, "the region of a one-region function", NULL},
    {"_tier", sole_get_tier, sole_set_tier, "the function's tiering state", NULL},
    {NULL},
};

static PyTypeObject SwitchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "astcompile_fastcall.Switch",
    .tp_basicsize = sizeof(Switch),
    .tp_dealloc = switch_dealloc,
    .tp_vectorcall_offset = offsetof(Switch, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = switch_get,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC |
                Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_new = switch_new,
    .tp_traverse = switch_traverse,
    .tp_clear = switch_clear,
    .tp_methods = switch_methods,
    .tp_getset = switch_getset,
    .tp_doc = "A callable that runs one route: the user's function, or the measured path.",
};

static int add_switch(PyObject *module) {
    if (PyType_Ready(&SwitchType) < 0 || add_sole(module) < 0) return -1;
    Py_INCREF(&SwitchType);
    return PyModule_AddObject(module, "Switch", (PyObject *)&SwitchType);
}
