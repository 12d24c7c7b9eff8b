/* The compiled call of a function that is one region, in C: appended after fastcall_bind.c.
 *
 * CompiledFunction.__call__ (astcompile/jit/function.py) runs, for a function whose rewrite is
 * a single region's call, a few lines before the region's guards: the tiering countdown, the
 * path chosen, explain and verify, NumPy's error state, the floating-point flags. As Python
 * they cost 0.2-0.4 us, more than the guards and a small kernel together. A Switch whose route
 * is that __call__ (bound) and that was given its owner's sole region and tier runs those
 * lines here instead, reading the same Python state each call (so that whatever changes it,
 * from Python or another thread, is seen by the next call), and hands every call it does not
 * run to the route itself, which then takes exactly the path it always did:
 *
 * - a call by keyword or relying on defaults is bound to the region's arguments here as
 *   Python binds it (sole_bind, the defaults read from the function each call); anything
 *   unusual (an unknown, repeated or positional-only keyword, too many or too few arguments,
 *   the function's code replaced): the route, which raises Python's own TypeError;
 * - explain recording, verify, an error state not known to be quiet (errstate.quiet_state),
 *   a countdown at its end (a sample is due), the plain path chosen, anything unexpected in
 *   that state: the route (nothing counted here);
 * - else: the countdown less one, the flags cleared, the region's guards (read from the
 *   region each call: entries replace them), then result[0]; a miss, raised flags or RunPlain
 *   end in the route's finish(owner, region, args, result, as_made) (result None for
 *   RunPlain, the exception for an error raised after a flag; as_made the call as made where
 *   it was bound, for the rewritten function).
 *
 * What each call reads costs little (about 20 ns over the guards alone): the module globals and
 * the tier's countdown and path are read again only when their dicts changed (Python 3.11
 * gives every change of a dict a new version, never reused; the interpreter's specialised
 * attribute stores too), and the countdown is counted down where it is when only the tier's
 * dict holds it.
 */

static struct {
    PyObject *miss, *run_plain, *telemetry, *config, *errstate, *state_var, *compiled_call;
    int fp; /* whether this machine's flags are known (runtime/fpflags.py) */
} sole_ctx;
static PyObject *s_countdown, *s_plain, *s_guards, *s_recording, *s_verify, *s_quiet_state;

/* Whether a module global is set (telemetry.recording, config.verify); -1: unknown. */
static int sole_flag(PyObject *globals, PyObject *name) {
    PyObject *v = PyDict_GetItemWithError(globals, name);
    return v == NULL ? -1 : PyObject_IsTrue(v);
}

/* What the module globals a call reads said when their dicts had these versions (Python 3.11
 * gives every change of a dict a new version, never reused): the globals are read again only
 * when one of the three modules changed since; the dict holds quiet_state, so it stays alive. */
#if PY_VERSION_HEX < 0x030C0000
static struct {
    uint64_t telemetry, config, errstate;
    int allow;            /* neither telemetry.recording nor config.verify */
    PyObject *quiet_state; /* borrowed from errstate's dict */
} sole_seen;
#define SOLE_VERSION(dict) (((PyDictObject *)(dict))->ma_version_tag)
#endif

/* Whether neither explain nor verify asks for the full path; *quiet_state: errstate's. */
static int sole_globals(PyObject **quiet_state) {
#if PY_VERSION_HEX < 0x030C0000
    uint64_t t = SOLE_VERSION(sole_ctx.telemetry), c = SOLE_VERSION(sole_ctx.config),
             e = SOLE_VERSION(sole_ctx.errstate);
    if (t == sole_seen.telemetry && c == sole_seen.config && e == sole_seen.errstate) {
        *quiet_state = sole_seen.quiet_state;
        return sole_seen.allow;
    }
#endif
    int allow = sole_flag(sole_ctx.telemetry, s_recording) == 0 && sole_flag(sole_ctx.config, s_verify) == 0;
    *quiet_state = PyDict_GetItemWithError(sole_ctx.errstate, s_quiet_state);
    if (PyErr_Occurred()) return 0;
#if PY_VERSION_HEX < 0x030C0000
    sole_seen.telemetry = t, sole_seen.config = c, sole_seen.errstate = e;
    sole_seen.allow = allow, sole_seen.quiet_state = *quiet_state;
#endif
    return allow;
}

/* errstate.current() is errstate.quiet_state: the test CompiledFunction.__call__ inlines. */
static int sole_quiet(PyObject *quiet_state) {
    PyObject *state;
    if (sole_ctx.state_var == NULL || PyContextVar_Get(sole_ctx.state_var, NULL, &state) < 0)
        return 0;
    int quiet = state != NULL && state == quiet_state;
    Py_XDECREF(state);
    return quiet;
}

/* The countdown counted down where it is (1), when only the tier's __dict__ holds it (a
 * reference anywhere else, even the small ints' cache, raises its count), so that no one can
 * see it change, as CPython appends to a str only it holds: its lowest digit less one, where
 * that needs no borrow and leaves a value the small ints' cache does not hold (NEVER, 2**62,
 * once counted down by one the usual way, then ~2**30 calls this way). */
static int sole_count_in_place(PyObject *count, long long n) {
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000 && PYLONG_BITS_IN_DIGIT == 30
    digit *low = &((PyLongObject *)count)->ob_digit[0];
    if (Py_REFCNT(count) != 1 || Py_SIZE(count) < 1 || *low == 0 || n <= 256) return 0;
    *low -= 1;
    return 1;
#else
    return 0;
#endif
}

/* The tier's countdown less one, stored, when no sample is due and the compiled path runs:
 * 1; else 0 (nothing stored). */
static int sole_count(Switch *self) {
    PyObject *tier = self->tier_dict, *count;
#if PY_VERSION_HEX < 0x030C0000
    if (SOLE_VERSION(tier) == self->tier_version) {
        count = self->tier_count; /* the same int, counted down where it is (or not) since */
    } else {
#endif
        count = PyDict_GetItemWithError(tier, s_countdown);
        if (count == NULL || !PyLong_CheckExact(count) || PyDict_GetItemWithError(tier, s_plain) != Py_False)
            return 0;
#if PY_VERSION_HEX < 0x030C0000
        self->tier_version = SOLE_VERSION(tier), self->tier_count = count;
    }
#endif
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(count, &overflow) - 1;
    if (overflow || n <= 0) return 0;
    if (sole_count_in_place(count, n)) return 1;
    PyObject *left = PyLong_FromLongLong(n);
    int stored = left != NULL && PyDict_SetItem(tier, s_countdown, left) == 0;
    Py_XDECREF(left);
    return stored;
}

/* Whether a one-region function's calls can run here at all: its context and state known. */
static int sole_ready(Switch *self) {
    return sole_ctx.miss != NULL && self->finish != NULL && self->sole_dict != NULL &&
           self->tier_dict != NULL && self->sole_arity >= 0;
}

/* count: a call of the function (counted down, or left to the route when a sample is due);
 * else its compiled path alone (a sample times it, a recursion runs it). */
static int sole_taken(Switch *self, int count) {
    PyObject *quiet_state;
    return sole_globals(&quiet_state) && sole_quiet(quiet_state) &&
           (!count || sole_count(self));
}

/* The route's finish(owner, region, args, result, as_made) for a call the guards did not end:
 * args are the region's; as_made, where a call was bound, (args, kwargs) as it was made. */
static PyObject *sole_finish(Switch *self, PyObject *region, PyObject *const *args,
                             Py_ssize_t nargs, PyObject *result, const SoleMade *made) {
    PyObject *tuple = PyTuple_New(nargs);
    if (tuple == NULL) return NULL;
    for (Py_ssize_t i = 0; i < nargs; i++) PyTuple_SET_ITEM(tuple, i, Py_NewRef(args[i]));
    PyObject *as_made = made == NULL ? Py_NewRef(Py_None)
                                     : sole_as_made(made->args, made->nargs, made->kwnames);
    PyObject *out = NULL;
    if (as_made != NULL) {
        PyObject *owner = self->owner ? self->owner : (PyObject *)self;
        PyObject *call[5] = {owner, region, tuple, result, as_made};
        out = PyObject_Vectorcall(self->finish, call, 5, NULL);
    }
    Py_XDECREF(as_made);
    Py_DECREF(tuple);
    return out;
}

/* The guards of this call's region on its arguments, then result[0] or the route's finish. */
static PyObject *sole_guarded(Switch *self, PyObject *const *args, size_t nargsf,
                              const SoleMade *made) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    PyObject *region = Py_NewRef(self->sole); /* a call may rebuild: this call's own */
    PyObject *guards = PyDict_GetItemWithError(self->sole_dict, s_guards), *out;
    if (guards == NULL) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_AttributeError, "region without guards");
        Py_DECREF(region);
        return NULL;
    }
    Py_INCREF(guards);
    if (sole_ctx.fp && fetestexcept(FP_FLAGS)) feclearexcept(FP_FLAGS);
    PyObject *result = PyObject_Vectorcall(guards, args, nargsf, NULL);
    Py_DECREF(guards);
    if (result == NULL && PyErr_ExceptionMatches(sole_ctx.run_plain)) {
        PyErr_Clear();
        out = sole_finish(self, region, args, nargs, Py_None, made);
    } else if (result == NULL && sole_ctx.fp && fetestexcept(FP_FLAGS) &&
               PyErr_ExceptionMatches(PyExc_Exception)) {
        /* an error after a raised flag: NumPy may warn before it (finish decides) */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        if (tb != NULL) PyException_SetTraceback(value, tb);
        out = sole_finish(self, region, args, nargs, value, made);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
    } else if (result == NULL) {
        out = NULL;
    } else if (result == sole_ctx.miss || (sole_ctx.fp && fetestexcept(FP_FLAGS))) {
        out = sole_finish(self, region, args, nargs, result, made);
    } else {
        out = PyTuple_CheckExact(result) && PyTuple_GET_SIZE(result) > 0
                  ? Py_NewRef(PyTuple_GET_ITEM(result, 0))
                  : PySequence_GetItem(result, 0);
    }
    Py_XDECREF(result);
    Py_DECREF(region);
    return out;
}

/* 1: the call ran here (*out: its result, or NULL with an exception); 0: the route runs it.
 * A call of exactly the region's arguments by position goes to the guards as it is; any other
 * is bound first (sole_bind), and a miss then runs the rewritten function on the call as made. */
static int sole_run(Switch *self, PyObject *const *args, size_t nargsf, PyObject *kwnames,
                    int count, PyObject **out) {
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf), arity = self->sole_arity;
    int exact = nargs == arity && self->sole_positional == arity &&
                (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0);
    PyObject *buffer[SOLE_MAX + 1], **bound = buffer + 1; /* a slot before: vectorcall's offset */
    if (!sole_ready(self) || (!exact && !sole_bind(self, args, nargs, kwnames, bound))) {
        PyErr_Clear(); /* the route reads the same state and decides */
        return 0;
    }
    /* Binding may have run Python code (a str subclass's __eq__ among the keywords), and with
     * it another thread's reset(): the region is read again before it runs. */
    if (!sole_ready(self) || self->sole_arity != arity || !sole_taken(self, count)) {
        for (Py_ssize_t i = 0; !exact && i < arity; i++) Py_DECREF(bound[i]);
        PyErr_Clear();
        return 0;
    }
    if (exact) {
        *out = sole_guarded(self, args, nargsf, NULL);
        return 1;
    }
    SoleMade made = {args, nargs, kwnames};
    *out = sole_guarded(self, bound, arity | PY_VECTORCALL_ARGUMENTS_OFFSET, &made);
    for (Py_ssize_t i = 0; i < arity; i++) Py_DECREF(bound[i]);
    return 1;
}

static int sole_call(Switch *self, PyObject *const *args, size_t nargsf, PyObject *kwnames,
                     PyObject **out) {
    return sole_run(self, args, nargsf, kwnames, 1, out);
}

/* compiled_call(*args, **kwargs): CompiledFunction._compiled_call (the compiled path, not
 * counted), in C for a one-region function's calls that sole_call would run here: measuring
 * must time the compiled path that the function's calls run, not its Python twin. */
static PyObject *sole_compiled_call(PyObject *op, PyObject *const *args, Py_ssize_t nargs,
                                    PyObject *kwnames) {
    PyObject *out;
    if (sole_run((Switch *)op, args, (size_t)nargs, kwnames, 0, &out)) return out;
    if (sole_ctx.compiled_call == NULL) {
        PyErr_SetString(PyExc_TypeError, "compiled_call before sole_context");
        return NULL;
    }
    PyObject *owner = ((Switch *)op)->owner;
    return switch_bound(owner ? owner : op, sole_ctx.compiled_call, args, (size_t)nargs, kwnames);
}

/* An object's __dict__ (new), or NULL with no error: no fast calls through it. */
static PyObject *sole_dict_of(PyObject *obj) {
    if (obj == NULL || obj == Py_None) return NULL;
    PyObject *dict = PyObject_GenericGetDict(obj, NULL);
    if (dict == NULL || !PyDict_CheckExact(dict)) {
        PyErr_Clear();
        Py_XDECREF(dict);
        return NULL;
    }
    return dict;
}

/* _sole_region: the region a one-region function's calls run (CompiledFunction's attribute,
 * held here on a Switch so that a call reads it without a lookup), None when there is none. */
static PyObject *sole_get_region(PyObject *op, void *closure) {
    PyObject *region = ((Switch *)op)->sole;
    return Py_NewRef(region ? region : Py_None);
}

static int sole_set_region(PyObject *op, PyObject *value, void *closure) {
    Switch *self = (Switch *)op;
    Py_ssize_t arity = -1;
    PyObject *names = value && value != Py_None ? PyObject_GetAttrString(value, "names") : NULL;
    if (names != NULL) arity = PyObject_Length(names);
    Py_XDECREF(names);
    PyErr_Clear(); /* a region without names runs through the route */
    Py_CLEAR(self->sole);
    Py_CLEAR(self->sole_dict);
    Py_CLEAR(self->sole_fn);
    Py_CLEAR(self->sole_code);
    Py_CLEAR(self->sole_params);
    self->sole_arity = self->sole_positional = arity;
    if (value != NULL && value != Py_None) {
        self->sole = Py_NewRef(value);
        self->sole_dict = sole_dict_of(value);
        sole_layout(self, value);
    }
    return 0;
}

/* _tier: the function's tiering state (jit/tiering.Tier), whose countdown a call counts. */
static PyObject *sole_get_tier(PyObject *op, void *closure) {
    PyObject *tier = ((Switch *)op)->tier;
    if (tier == NULL) {
        PyErr_SetString(PyExc_AttributeError, "_tier");
        return NULL;
    }
    return Py_NewRef(tier);
}

static int sole_set_tier(PyObject *op, PyObject *value, void *closure) {
    Switch *self = (Switch *)op;
    Py_CLEAR(self->tier);
    Py_CLEAR(self->tier_dict);
    self->tier_version = 0, self->tier_count = NULL;
    if (value != NULL) {
        self->tier = Py_NewRef(value);
        self->tier_dict = sole_dict_of(value);
    }
    return 0;
}

/* sole_context(miss, run_plain, telemetry, config, errstate, state_var, fp, compiled_call):
 * what a sole call reads (the modules' globals), and the Python compiled path it stands for,
 * once per process (astcompile/jit/sole_region.py). */
static PyObject *sole_context(PyObject *module, PyObject *args) {
    PyObject *miss, *run_plain, *telemetry, *config, *errstate, *state_var, *compiled_call;
    int fp;
    if (!PyArg_ParseTuple(args, "OOO!O!O!OpO", &miss, &run_plain, &PyDict_Type, &telemetry,
                          &PyDict_Type, &config, &PyDict_Type, &errstate, &state_var, &fp,
                          &compiled_call))
        return NULL;
    if (state_var != Py_None && !PyContextVar_CheckExact(state_var)) {
        PyErr_SetString(PyExc_TypeError, "state_var must be a ContextVar or None");
        return NULL;
    }
    Py_XSETREF(sole_ctx.miss, Py_NewRef(miss));
    Py_XSETREF(sole_ctx.run_plain, Py_NewRef(run_plain));
    Py_XSETREF(sole_ctx.telemetry, Py_NewRef(telemetry));
    Py_XSETREF(sole_ctx.config, Py_NewRef(config));
    Py_XSETREF(sole_ctx.errstate, Py_NewRef(errstate));
    Py_XSETREF(sole_ctx.state_var, state_var == Py_None ? NULL : Py_NewRef(state_var));
    sole_ctx.fp = fp;
    Py_XSETREF(sole_ctx.compiled_call, Py_NewRef(compiled_call));
    Py_RETURN_NONE;
}

static PyMethodDef sole_methods[] = {
    {"sole_context", sole_context, METH_VARARGS,
     "sole_context(miss, run_plain, telemetry, config, errstate, state_var, fp, compiled_call)"},
    {NULL},
};

static int add_sole(PyObject *module) {
    s_countdown = PyUnicode_InternFromString("countdown");
    s_plain = PyUnicode_InternFromString("plain");
    s_guards = PyUnicode_InternFromString("guards");
    s_recording = PyUnicode_InternFromString("recording");
    s_verify = PyUnicode_InternFromString("verify");
    s_quiet_state = PyUnicode_InternFromString("quiet_state");
    return PyModule_AddFunctions(module, sole_methods);
}
