/* The C-level call path of compiled flat regions: astcompile.runtime.fastcall builds this
 * once per machine (into the kernel cache) and loads it as a CPython extension.
 *
 * A Guards object stands for a region's specialised guard function (jit/entries.py): called
 * with the region's arguments, it runs the first of its entries whose checks hold and returns
 * the region's result tuple; whenever it cannot decide, or a check made after the guards
 * fails, it returns fallback(*args) (the Python guard function, which then takes exactly the
 * path it always did). Each entry is a small program of int64 words that
 * runtime/fastcall_program.py assembles from the entry's guard key and its wrapper's plan:
 * checks (exact types, dtypes, ranks, C order, size classes, distinct arrays), size
 * expressions, output allocation (PyArray_Empty), the views it returns (fastcall_views.c),
 * and calls of each kernel's packed entry (`void k_packed(const astc_word*)`), whose words it
 * fills from arrays, sizes and scalars.
 *
 * The module also holds Switch, the C base of compiled functions (fastcall_switch.c, which the
 * build appends to this file).
 */
#define PY_SSIZE_T_CLEAN
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <Python.h>
#include <fenv.h>
#include <numpy/arrayobject.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum {
    OP_ARRAY = 1, OP_DIM, OP_FLOAT, OP_INT, OP_IS, OP_NOTSAME, OP_CONST, OP_BIN, OP_CMP,
    OP_MINMAX, OP_COMMIT, OP_EMPTY, OP_ALIAS, OP_WN, OP_WR, OP_WP, OP_WS, OP_WD, OP_WF,
    OP_WI, OP_CALL, OP_RET, OP_EQ, OP_GLOBAL, OP_TYPEIS, OP_CODE, OP_SCRATCH, OP_CALLRC,
    OP_BOXRET, OP_WRITABLE, OP_APART, OP_KEEP, OP_UNDO, OP_FILTERS, OP_STATE, OP_VIEW, OP_ABSENT,
    OP_DATA, OP_UNIT, OP_END
};
enum { MAX_SLOTS = 256, MAX_REGS = 256, MAX_WORDS = 512, MAX_DIMS = 32, MAX_SCRATCH = 64 };
enum { MAX_KEPT = 8 };
#define FP_FLAGS (FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID)
/* How BOXRET returns an item: an object in a slot; a NumPy scalar read from scratch; a
 * Python float (int) where a bool flag in scratch holds, else the NumPy scalar; always; a
 * constant; a tuple of the next (a) items, none of them a tuple (``return L, U``); the object
 * earlier item a made (a number returned twice, ``return s, s``: one object, as in Python);
 * None where a bool flag (c) in scratch holds, else the NumPy scalar, or else always the Python
 * number (a variable that may be None, trace/optionals.py). */
enum { BOX_SLOT, BOX_SCALAR, BOX_NUMBER, BOX_ALWAYS, BOX_CONST, BOX_TUPLE, BOX_SAME,
       BOX_MAYBE_SCALAR, BOX_MAYBE_ALWAYS };
#define MAX_SAME 32 /* BOX_SAME names one of the first MAX_SAME items */
/* The views OP_VIEW makes, and an index's items (fastcall_views.c) */
enum { VIEW_INDEX, VIEW_TRANSPOSE, VIEW_PART, VIEW_BROADCAST, VIEW_RESHAPE };
enum { ITEM_SLICE, ITEM_INT, ITEM_NEWAXIS };
/* Elements of work from which a kernel call releases the GIL (cffi releases it on every call). */
enum { RELEASE_GIL_WORK = 4096 };

typedef union { int64_t i; double d; float f; const void *p; } astc_word;
typedef void (*packed_fn)(const astc_word *);
typedef int (*status_fn)(const astc_word *); /* a loop region's function: 0, or its error */

typedef struct {
    int64_t *code;
    Py_ssize_t len;
    PyObject *consts; /* tuple: dtypes and identity-checked objects the program names */
    Py_ssize_t nargs;
} Program;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    Program *programs;
    Py_ssize_t nprograms;
    PyObject *fallback, *stats, *threads_dict, *owned;
} Guards;

static PyObject *s_compiled_calls, *s_nthreads, *s_loud, *one;
static PyObject *s_filters, *s_warnings_raise;
static int add_switch(PyObject *module); /* fastcall_switch.c */
static int add_lists(PyObject *module);  /* fastcall_lists.c */
/* fastcall_views.c: OP_VIEW's view, and the number of its words (-1: malformed) */
static PyObject *make_view(PyObject *src, const int64_t *c, const int64_t *regs, PyObject *consts);
static PyObject *unit_copy(PyArrayObject *a); /* OP_UNIT's copy */
static int64_t view_words(const int64_t *c, const int64_t *end, Py_ssize_t nconsts, PyObject *consts);

static const int INT_CLASSES[8] = {7, 8, 15, 16, 31, 32, 63, 64};

static int int_class(PyObject *v, int64_t *code) {
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || (x == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return -1; /* beyond int64: left to the Python guard */
    }
    int neg = x < 0;
    unsigned long long m = neg ? (unsigned long long)~x : (unsigned long long)x;
    int bits = m ? 64 - __builtin_clzll(m) : 0, k = 0;
    while (k < 8 && bits > INT_CLASSES[k]) k++;
    *code = neg * 16 + k;
    return 0;
}

static int binop(int64_t op, int64_t a, int64_t b, int64_t *out) {
    switch (op) {
    case 0: return __builtin_add_overflow(a, b, out) ? -1 : 0;
    case 1: return __builtin_sub_overflow(a, b, out) ? -1 : 0;
    case 2: return __builtin_mul_overflow(a, b, out) ? -1 : 0;
    case 3: case 4: {
        if (b == 0 || (a == INT64_MIN && b == -1)) return -1;
        int64_t q = a / b, r = a % b;
        if (r != 0 && ((r < 0) != (b < 0))) { q -= 1; r += b; } /* Python's floor rules */
        *out = op == 3 ? q : r;
        return 0;
    }
    case 5: *out = a > b ? a : b; return 0;
    }
    return -1;
}

static int compare(int64_t rel, int64_t a, int64_t b) {
    switch (rel) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    case 5: return a >= b;
    }
    return 0;
}

static int int_word(PyObject *v, int64_t bits, int64_t is_signed, int64_t *out) {
    if (!PyLong_CheckExact(v)) return -1;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || (x == -1 && PyErr_Occurred())) { PyErr_Clear(); return -1; }
    if (is_signed) {
        if (bits < 64 && (x < -(1LL << (bits - 1)) || x >= (1LL << (bits - 1)))) return -1;
    } else if (x < 0 || (bits < 64 && x >= (1LL << bits))) {
        return -1;
    }
    *out = x;
    return 0;
}

/* One returned item (kind, a, b, c), as the region's result template boxes it. */
static PyObject *box_new(const int64_t *item, PyObject **slots, const int64_t *regs,
                         PyObject *consts) {
    if (item[0] == BOX_SLOT) return Py_NewRef(slots[item[1]]);
    if (item[0] == BOX_CONST) return Py_NewRef(PyTuple_GET_ITEM(consts, item[1]));
    if ((item[0] == BOX_MAYBE_SCALAR || item[0] == BOX_MAYBE_ALWAYS) &&
        *(const npy_bool *)(intptr_t)regs[item[3]])
        return Py_NewRef(Py_None);
    void *data = (void *)(intptr_t)regs[item[1]];
    PyArray_Descr *descr = (PyArray_Descr *)PyTuple_GET_ITEM(consts, item[2]);
    if (item[0] == BOX_ALWAYS || item[0] == BOX_MAYBE_ALWAYS ||
        (item[0] == BOX_NUMBER && *(const npy_bool *)(intptr_t)regs[item[3]])) {
        if (descr->type_num == NPY_FLOAT64) return PyFloat_FromDouble(*(const double *)data);
        if (descr->type_num == NPY_BOOL) return PyBool_FromLong(*(const npy_bool *)data);
        return PyLong_FromLongLong(*(const int64_t *)data); /* int64: the assembler checks */
    }
    return PyArray_Scalar(data, descr, NULL);
}

/* Item ``at`` of BOXRET, kept (borrowed: the result holds it) in ``made`` for a BOX_SAME. */
static PyObject *box(const int64_t *c, int64_t at, PyObject **made, PyObject **slots,
                     const int64_t *regs, PyObject *consts) {
    const int64_t *item = c + 1 + 4 * at;
    PyObject *v = item[0] == BOX_SAME ? Py_NewRef(made[item[1]])
                                      : box_new(item, slots, regs, consts);
    if (at < MAX_SAME) made[at] = v;
    return v;
}

/* The tuple of BOXRET's n items after the count ``c[0]``: a BOX_TUPLE item makes one item of
 * it from the items it groups. */
static PyObject *boxret(const int64_t *c, PyObject **slots, const int64_t *regs, PyObject *consts) {
    int64_t top = 0;
    for (int64_t k = 0; k < c[0]; k++, top++)
        if (c[1 + 4 * k] == BOX_TUPLE) k += c[2 + 4 * k];
    PyObject *t = PyTuple_New(top), *made[MAX_SAME];
    int64_t at = 0;
    for (int64_t k = 0; t != NULL && k < top; k++) {
        PyObject *v;
        const int64_t *item = c + 1 + 4 * at;
        if (item[0] == BOX_TUPLE) {
            v = PyTuple_New(item[1]);
            for (int64_t j = 0; v != NULL && j < item[1]; j++) {
                PyObject *w = box(c, at + 1 + j, made, slots, regs, consts);
                if (w == NULL) Py_CLEAR(v);
                else PyTuple_SET_ITEM(v, j, w);
            }
            at += item[1] + 1;
        } else {
            v = box(c, at, made, slots, regs, consts);
            at += 1;
        }
        if (v == NULL) Py_CLEAR(t);
        else PyTuple_SET_ITEM(t, k, v);
    }
    return t;
}

/* Whether BOXRET's item i of n, a BOX_TUPLE, groups items that are there and no tuple. */
static int tuple_fits(const int64_t *items, int64_t n, int64_t i) {
    int64_t a = items[4 * i + 1];
    if (a < 0 || i + a >= n) return 0;
    for (int64_t j = i + 1; j <= i + a; j++)
        if (items[4 * j] == BOX_TUPLE) return 0;
    return 1;
}

/* Whether BOXRET's item i, a BOX_SAME, names an earlier item that makes an object. */
static int same_fits(const int64_t *items, int64_t i) {
    int64_t a = items[4 * i + 1];
    return a >= 0 && a < i && a < MAX_SAME && items[4 * a] != BOX_TUPLE;
}

/* raiser(status, err, checks, sites) of a loop region's error status: raiser is (function,
 * checks, sites), err the status words as an int64 array, as the Python wrapper passes them. */
static void raise_status(int rc, PyObject *raiser, int64_t address, int64_t nerr) {
    npy_intp n = (npy_intp)nerr;
    PyObject *err = PyArray_SimpleNew(1, &n, NPY_INT64);
    if (err == NULL) return;
    memcpy(PyArray_DATA((PyArrayObject *)err), (const void *)(intptr_t)address, n * sizeof(int64_t));
    PyObject *r = PyObject_CallFunction(PyTuple_GET_ITEM(raiser, 0), "iOOO", rc, err,
                                        PyTuple_GET_ITEM(raiser, 1), PyTuple_GET_ITEM(raiser, 2));
    Py_DECREF(err);
    if (r != NULL) {
        Py_DECREF(r);
        PyErr_Format(PyExc_RuntimeError, "astcompile: region failed with status %d", rc);
    }
}

/* Whether two C-ordered arrays' bytes are apart (np.may_share_memory is False) */
static int apart(PyArrayObject *a, PyArrayObject *b) {
    char *pa = PyArray_BYTES(a), *pb = PyArray_BYTES(b);
    npy_intp na = PyArray_NBYTES(a), nb = PyArray_NBYTES(b);
    return na == 0 || nb == 0 || pa + na <= pb || pb + nb <= pa;
}

/* Whether a flag in ``loud`` is raised, where copies were kept: then the kept arguments have
 * their values back and the flags are cleared, for the Python path to run (UNDO) */
static int undone(PyObject **kept, PyObject **copies, int nkept, long loud) {
    if (!nkept || !fetestexcept((int)loud)) return 0;
    for (int k = 0; k < nkept; k++)
        if (PyArray_CopyInto((PyArrayObject *)kept[k], (PyArrayObject *)copies[k]) < 0) return -1;
    feclearexcept(FP_FLAGS);
    return 1;
}

/* The error state object last sorted (held: its identity is not reused) and the CPU flags of
 * the errors it does not ignore: NumPy's states are immutable, so a call reads the context
 * variable ``var`` and compares; errstate.loud() (in dict ``names``) sorts a new one */
static PyObject *seen_state;
static long seen_loud;

static __attribute__((noinline)) long loud_flags(PyObject *var, PyObject *names) { /* -1 on an error */
    PyObject *state = NULL;
    if (PyContextVar_Get(var, NULL, &state) < 0 || state == NULL) return -1;
    Py_DECREF(state); /* the context holds it while this call runs */
    if (state == seen_state) return seen_loud;
    PyObject *fn = PyDict_GetItemWithError(names, s_loud);
    PyObject *loud = fn != NULL ? PyObject_CallNoArgs(fn) : NULL;
    seen_loud = loud != NULL ? PyLong_AsLong(loud) : -1;
    Py_XDECREF(loud);
    Py_XSETREF(seen_state, seen_loud < 0 ? NULL : Py_NewRef(state));
    return seen_loud;
}

/* The warnings filters list last seen (held, with its first filter), its length and
 * errstate.warnings_raise()'s verdict on it: a filter added goes first, catch_warnings swaps in
 * another list, so the verdict holds while the three are unchanged (one dict read a call) */
static PyObject *seen_filters, *seen_first;
static Py_ssize_t seen_n;
static int seen_verdict;

/* errstate.warnings_raise() (dict ``names``) for warnings.filters (dict ``warnings``); -1 on
 * an error. Not inlined: inlined in run(), it slowed every call */
static __attribute__((noinline)) int warnings_raise(PyObject *names, PyObject *warnings) {
    PyObject *filters = PyDict_GetItemWithError(warnings, s_filters);
    if (filters == NULL || !PyList_Check(filters)) return -1;
    Py_ssize_t n = PyList_GET_SIZE(filters);
    PyObject *first = n ? PyList_GET_ITEM(filters, 0) : Py_None;
    if (filters == seen_filters && n == seen_n && first == seen_first) return seen_verdict;
    PyObject *fn = PyDict_GetItemWithError(names, s_warnings_raise);
    Py_INCREF(filters); /* held while Python code runs */
    PyObject *verdict = fn != NULL ? PyObject_CallNoArgs(fn) : NULL;
    if (verdict == NULL) {
        Py_DECREF(filters);
        return -1;
    }
    Py_DECREF(verdict);
    seen_n = PyList_GET_SIZE(filters);
    Py_XSETREF(seen_first, Py_NewRef(seen_n ? PyList_GET_ITEM(filters, 0) : Py_None));
    Py_XSETREF(seen_filters, filters);
    seen_verdict = verdict != Py_False;
    return seen_verdict;
}

/* 1: ran, *result set; 0: this entry's guards do not hold (try the next); -1: fall back */
static int run(const Program *p, PyObject *const *args, Guards *g, PyObject **result) {
    PyObject *slots[MAX_SLOTS];
    PyObject *owned[MAX_SLOTS];
    int nowned = 0;
    int64_t regs[MAX_REGS];
    astc_word words[MAX_WORDS];
    int64_t scratch[MAX_SCRATCH]; /* a loop region's scalar outputs and error words */
    int nwords = 0, nscratch = 0, committed = 0, status = -1, nkept = 0;
    long loud = 0; /* the flags the error state reports (STATE), where KEEP keeps copies */
    PyObject *kept[MAX_KEPT], *copies[MAX_KEPT];
    const int64_t *c = p->code;
    for (Py_ssize_t i = 0; i < p->nargs; i++) slots[i] = args[i];
    for (;;) {
        switch (*c++) {
        case OP_ARRAY: {
            PyObject *a = args[c[0]];
            if (Py_TYPE(a) != &PyArray_Type) goto fail;
            PyArrayObject *arr = (PyArrayObject *)a;
            if ((PyObject *)PyArray_DESCR(arr) != PyTuple_GET_ITEM(p->consts, c[1])) goto fail;
            if (PyArray_NDIM(arr) != c[2] || !PyArray_IS_C_CONTIGUOUS(arr)) goto fail;
            c += 3;
            break;
        }
        case OP_DIM: regs[c[0]] = PyArray_DIM((PyArrayObject *)args[c[1]], (int)c[2]); c += 3; break;
        case OP_FLOAT: if (!PyFloat_CheckExact(slots[c[0]])) goto fail; c += 1; break;
        case OP_INT: {
            int64_t code;
            if (!PyLong_CheckExact(slots[c[0]]) || int_class(slots[c[0]], &code) || code != c[1])
                goto fail;
            c += 2;
            break;
        }
        case OP_IS: if (slots[c[0]] != PyTuple_GET_ITEM(p->consts, c[1])) goto fail; c += 2; break;
        case OP_TYPEIS:
            if ((PyObject *)Py_TYPE(slots[c[0]]) != PyTuple_GET_ITEM(p->consts, c[1])) goto fail;
            c += 2;
            break;
        case OP_GLOBAL: { /* slot = globals[name], a global the region reads (held: an
                             * allocation's finalizers could change the globals meanwhile) */
            PyObject *v = PyDict_GetItemWithError(PyTuple_GET_ITEM(p->consts, c[1]),
                                                  PyTuple_GET_ITEM(p->consts, c[2]));
            if (v == NULL) goto fail;
            Py_INCREF(v);
            slots[c[0]] = owned[nowned++] = v;
            c += 3;
            break;
        }
        case OP_ABSENT: { /* a name the region looked up in builtins is still not a global
                           * (globals c[0], name c[1]): one bound since shadows the builtin */
            int found = PyDict_Contains(PyTuple_GET_ITEM(p->consts, c[0]),
                                        PyTuple_GET_ITEM(p->consts, c[1]));
            if (found != 0) goto fail;
            c += 2;
            break;
        }
        case OP_KEEP: { /* a copy of argument c[0], which the region stores into and reads,
                         * where the error state reports a flag (STATE); UNDO puts it back
                         * after such a flag */
            PyArrayObject *arg = (PyArrayObject *)args[*c++];
            if (!loud || !PyArray_ISWRITEABLE(arg)) break; /* a read-only one's store raises */
            PyObject *copy = nkept < MAX_KEPT ? PyArray_NewCopy(arg, NPY_CORDER) : NULL;
            if (copy == NULL) goto fail;
            owned[nowned++] = copy;
            kept[nkept] = (PyObject *)arg;
            copies[nkept++] = copy;
            break;
        }
        case OP_UNDO: /* after the kernels: on a loud flag the kept arguments get their values
                       * back and the Python path runs (jit/fp_errors.restoring reruns) */
            if (undone(kept, copies, nkept, loud)) goto fail;
            break;
        case OP_FILTERS: /* out parameters, kept only on the Python path: calls under a
                          * warnings filter that makes NumPy's RuntimeWarning an error go there */
            if (warnings_raise(PyTuple_GET_ITEM(p->consts, c[0]),
                               PyTuple_GET_ITEM(p->consts, c[1])) != 0)
                goto fail;
            c += 2;
            break;
        case OP_STATE: /* the flags NumPy's error state (context variable c[0]) reports, as
                        * the errstate module (dict c[1]) sorts it: read once for the KEEPs */
            loud = loud_flags(PyTuple_GET_ITEM(p->consts, c[0]), PyTuple_GET_ITEM(p->consts, c[1]));
            if (loud < 0) goto fail;
            c += 2;
            break;
        case OP_CODE: /* slot = fn.__code__ of the user's function, for the IS that follows
                       * (a swapped code object, as autoreload makes, fails it) */
            slots[c[0]] = PyFunction_GET_CODE(PyTuple_GET_ITEM(p->consts, c[1]));
            c += 2;
            break;
        case OP_EQ: { /* a value guard: arg == value, as Python compares (a NaN never holds) */
            PyObject *eq = PyObject_RichCompare(slots[c[0]], PyTuple_GET_ITEM(p->consts, c[1]), Py_EQ);
            int holds = eq == NULL ? -1 : PyObject_IsTrue(eq);
            Py_XDECREF(eq);
            if (holds != 1) goto fail;
            c += 2;
            break;
        }
        case OP_NOTSAME: if (args[c[0]] == args[c[1]]) goto fail; c += 2; break;
        case OP_CONST: regs[c[0]] = c[1]; c += 2; break;
        case OP_BIN:
            if (binop(c[1], regs[c[2]], regs[c[3]], &regs[c[0]])) goto fail;
            c += 4;
            break;
        case OP_CMP: if (!compare(c[0], regs[c[1]], regs[c[2]])) goto fail; c += 3; break;
        case OP_MINMAX: if (!(regs[c[0]] != 0 || regs[c[1]] == 0)) goto fail; c += 2; break;
        case OP_COMMIT: committed = 1; break;
        case OP_EMPTY: {
            npy_intp dims[MAX_DIMS];
            for (int64_t k = 0; k < c[2]; k++) dims[k] = (npy_intp)regs[c[3 + k]];
            PyArray_Descr *descr = (PyArray_Descr *)PyTuple_GET_ITEM(p->consts, c[1]);
            Py_INCREF(descr); /* PyArray_Empty steals it */
            PyObject *out = PyArray_Empty((int)c[2], dims, descr, 0);
            if (out == NULL) { status = -2; goto fail; } /* np.empty's own error */
            slots[c[0]] = owned[nowned++] = out;
            c += 3 + c[2];
            break;
        }
        case OP_ALIAS: slots[c[0]] = slots[c[1]]; c += 2; break;
        case OP_DATA: /* reg = the data of the 0-d array in a slot, which BOXRET boxes as a
                       * number (a flat region's x.sum() returned as a NumPy scalar) */
            regs[c[0]] = (int64_t)(intptr_t)PyArray_DATA((PyArrayObject *)slots[c[1]]);
            c += 2;
            break;
        case OP_UNIT: { /* slot c[0] = the array in slot c[1] with last stride c[2], the item
                         * size the kernels read it with: itself, or a copy made here, before
                         * the first kernel that reads it (where the Python wrapper makes it) */
            PyArrayObject *a = (PyArrayObject *)slots[c[1]];
            int nd = PyArray_NDIM(a);
            if (nd == 0 || PyArray_STRIDE(a, nd - 1) == c[2]) {
                slots[c[0]] = (PyObject *)a;
            } else {
                PyObject *copy = unit_copy(a);
                if (copy == NULL) { status = -2; goto fail; } /* NumPy's own error */
                slots[c[0]] = owned[nowned++] = copy;
            }
            c += 3;
            break;
        }
        case OP_VIEW: { /* a view of an argument or of an array just allocated, as NumPy
                         * makes it (fastcall_views.c); before the kernels run */
            PyObject *v = make_view(slots[c[1]], c + 1, regs, p->consts);
            if (v == NULL) goto fail;
            slots[c[0]] = owned[nowned++] = v;
            c += 4 + (c[2] == VIEW_INDEX ? 4 * c[3] : c[3]);
            break;
        }
        case OP_WN: {
            PyObject *n = PyDict_GetItemWithError(g->threads_dict, s_nthreads);
            if (n == NULL) goto fail;
            words[nwords++].i = PyLong_AsLongLong(n);
            if (PyErr_Occurred()) goto fail;
            break;
        }
        case OP_WR: words[nwords++].i = regs[c[0]]; c += 1; break;
        case OP_WP: words[nwords++].p = PyArray_DATA((PyArrayObject *)slots[c[0]]); c += 1; break;
        case OP_WS:
            words[nwords++].i = PyArray_STRIDE((PyArrayObject *)slots[c[0]], (int)c[1]);
            c += 2;
            break;
        case OP_WD: case OP_WF: {
            PyObject *v = slots[c[0]];
            double d;
            if (PyFloat_CheckExact(v)) {
                d = PyFloat_AS_DOUBLE(v);
            } else if (PyLong_CheckExact(v)) { /* as cffi converts an int */
                d = PyLong_AsDouble(v);
                if (d == -1.0 && PyErr_Occurred()) goto fail;
            } else {
                goto fail;
            }
            if (c[-1] == OP_WD) words[nwords++].d = d; else words[nwords++].f = (float)d;
            c += 1;
            break;
        }
        case OP_WI: {
            int64_t x;
            if (int_word(slots[c[0]], c[1], c[2], &x)) goto fail;
            words[nwords++].i = x;
            c += 3;
            break;
        }
        case OP_CALL:
            if (regs[c[1]] >= RELEASE_GIL_WORK) { /* as cffi does: other threads run meanwhile */
                Py_BEGIN_ALLOW_THREADS
                ((packed_fn)(uintptr_t)c[0])(words);
                Py_END_ALLOW_THREADS
            } else { /* a few hundred nanoseconds of work: releasing would cost more */
                ((packed_fn)(uintptr_t)c[0])(words);
            }
            nwords = 0;
            c += 2;
            break;
        case OP_SCRATCH: /* reg = the address of n words of this call's own scratch */
            regs[c[0]] = (int64_t)(intptr_t)(scratch + nscratch);
            nscratch += (int)c[1];
            c += 2;
            break;
        case OP_CALLRC: { /* a loop region's function (fn, work, raiser, err, its words); an
                           * error status raises its exception, as the Python wrapper does */
            int rc;
            if (regs[c[1]] >= RELEASE_GIL_WORK) {
                Py_BEGIN_ALLOW_THREADS
                rc = ((status_fn)(uintptr_t)c[0])(words);
                Py_END_ALLOW_THREADS
            } else {
                rc = ((status_fn)(uintptr_t)c[0])(words);
            }
            nwords = 0;
            if (rc) { /* NumPy warns before the error: after a loud flag, the Python path */
                if (undone(kept, copies, nkept, loud)) goto fail;
                raise_status(rc, PyTuple_GET_ITEM(p->consts, c[2]), regs[c[3]], c[4]);
                status = -2;
                goto fail;
            }
            c += 5;
            break;
        }
        case OP_WRITABLE: /* a written argument: read-only goes to the Python path */
            if (!PyArray_ISWRITEABLE((PyArrayObject *)args[c[0]])) goto fail;
            c += 1;
            break;
        case OP_APART: /* a written argument and another (both C order) share no byte */
            if (!apart((PyArrayObject *)args[c[0]], (PyArrayObject *)args[c[1]])) goto fail;
            c += 2;
            break;
        case OP_BOXRET: {
            PyObject *t = boxret(c, slots, regs, p->consts);
            if (t == NULL) { status = -2; goto fail; }
            while (nowned) Py_DECREF(owned[--nowned]);
            *result = t;
            return 1;
        }
        case OP_RET: {
            PyObject *t = PyTuple_New(c[0]);
            if (t == NULL) { status = -2; goto fail; }
            for (int64_t k = 0; k < c[0]; k++) {
                PyObject *v = slots[c[1 + k]];
                Py_INCREF(v);
                PyTuple_SET_ITEM(t, k, v);
            }
            while (nowned) Py_DECREF(owned[--nowned]);
            *result = t;
            return 1;
        }
        default: goto fail;
        }
    }
fail:
    while (nowned) Py_DECREF(owned[--nowned]);
    if (status == -2) return -2;
    if (PyErr_Occurred()) PyErr_Clear();
    return committed ? -1 : 0;
}

static int count_call(Guards *g) {
    PyObject *n = PyObject_GetAttr(g->stats, s_compiled_calls);
    PyObject *n1 = n ? PyNumber_Add(n, one) : NULL;
    Py_XDECREF(n);
    int failed = n1 == NULL || PyObject_SetAttr(g->stats, s_compiled_calls, n1) < 0;
    Py_XDECREF(n1);
    return failed ? -1 : 0;
}

static PyObject *guards_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kw) {
    Guards *g = (Guards *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kw == NULL) {
        for (Py_ssize_t e = 0; e < g->nprograms; e++) {
            const Program *p = &g->programs[e];
            if (p->nargs != nargs) break;
            PyObject *result = NULL;
            int status = run(p, args, g, &result);
            if (status == 0) continue;
            if (status == -1) break;
            /* counted as the Python guard function counts: a compiled call, also one that
             * raised (np.empty's error, a loop region's error status) */
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            if (count_call(g) < 0) {
                Py_XDECREF(type);
                Py_XDECREF(value);
                Py_XDECREF(tb);
                Py_XDECREF(result);
                return NULL;
            }
            PyErr_Restore(type, value, tb);
            return result;
        }
    }
    return PyObject_Vectorcall(g->fallback, args, nargsf, kw);
}

/* Check a program's words are well formed before any call runs it: operand counts, indices
 * of arguments, registers, slots and constants in range, words per call within the buffer. */
static int validate(const Program *p) {
    static const int ARGS[] = {0, 3, 3, 1, 2, 2, 2, 2, 4, 3, 2, 0, -1, 2, 0, 1, 1, 2, 1, 1, 3,
                               2, -1, 2, 3, 2, 2, 2, 5, -1, 1, 2, 1, 0, 2, 2, 0, 2, 2, 3};
    const int64_t *c = p->code, *end = p->code + p->len;
    Py_ssize_t nconsts = PyTuple_GET_SIZE(p->consts);
    int64_t nwords = 0, nheld = 0, nscratch = 0, nkept = 0;
    while (c < end) {
        int64_t op = *c++;
        if (op == OP_END) return c == end ? 0 : -1;
        if (op < OP_ARRAY || op > OP_UNIT) return -1;
        if (op == OP_VIEW) { /* its own checks: a step may be negative */
            int64_t n = view_words(c, end, nconsts, p->consts);
            if (n < 0 || ++nheld > MAX_SLOTS) return -1;
            c += n;
            continue;
        }
        int64_t n = ARGS[op];
        if (op == OP_EMPTY) n = (c + 2 < end && c[2] >= 0 && c[2] <= MAX_DIMS) ? 3 + c[2] : -1;
        if (op == OP_RET) n = (c < end && c[0] >= 0) ? 1 + c[0] : -1;
        if (op == OP_BOXRET) n = (c < end && c[0] >= 0 && c[0] < MAX_SLOTS) ? 1 + 4 * c[0] : -1;
        if (n < 0 || c + n > end) return -1;
        for (int64_t k = 0; k < n; k++) {
            int free_operand = (op == OP_CONST && k == 1) ||
                               ((op == OP_CALL || op == OP_CALLRC) && k == 0);
            if (!free_operand && (c[k] < 0 || c[k] >= MAX_REGS)) return -1;
        }
        int takes_arg = op == OP_ARRAY || op == OP_NOTSAME || op == OP_WRITABLE ||
                        op == OP_APART; /* the others take any slot */
        if (takes_arg && c[0] >= p->nargs) return -1;
        if ((op == OP_NOTSAME || op == OP_DIM || op == OP_APART) && c[1] >= p->nargs) return -1;
        if (op == OP_CALLRC) {
            PyObject *raiser = c[2] < nconsts ? PyTuple_GET_ITEM(p->consts, c[2]) : NULL;
            if (raiser == NULL || !PyTuple_CheckExact(raiser) || PyTuple_GET_SIZE(raiser) != 3 ||
                c[4] < 1 || c[4] > MAX_SCRATCH)
                return -1;
        }
        int takes_const = op == OP_ARRAY || op == OP_EMPTY || op == OP_IS || op == OP_EQ ||
                          op == OP_TYPEIS || op == OP_GLOBAL || op == OP_CODE;
        if (takes_const && c[1] >= nconsts) return -1;
        if (op == OP_CODE && !PyFunction_Check(PyTuple_GET_ITEM(p->consts, c[1]))) return -1;
        if (op == OP_GLOBAL &&
            (c[2] >= nconsts || !PyDict_CheckExact(PyTuple_GET_ITEM(p->consts, c[1]))))
            return -1;
        if (op == OP_ABSENT &&
            (c[0] >= nconsts || c[1] >= nconsts ||
             !PyDict_CheckExact(PyTuple_GET_ITEM(p->consts, c[0]))))
            return -1;
        if (op == OP_KEEP && (c[0] >= p->nargs || ++nkept > MAX_KEPT || ++nheld > MAX_SLOTS))
            return -1;
        if ((op == OP_FILTERS || op == OP_STATE) &&
            (c[0] >= nconsts || c[1] >= nconsts ||
             !PyDict_CheckExact(PyTuple_GET_ITEM(p->consts, c[1])) ||
             !(op == OP_FILTERS ? PyDict_CheckExact(PyTuple_GET_ITEM(p->consts, c[0]))
                                : PyContextVar_CheckExact(PyTuple_GET_ITEM(p->consts, c[0])))))
            return -1;
        if (op >= OP_WN && op <= OP_WI && ++nwords > MAX_WORDS) return -1;
        if ((op == OP_EMPTY || op == OP_GLOBAL || op == OP_UNIT) && ++nheld > MAX_SLOTS) return -1;
        if (op == OP_SCRATCH && (c[1] < 1 || (nscratch += c[1]) > MAX_SCRATCH)) return -1;
        if (op == OP_BOXRET)
            for (int64_t k = 1; k < n; k += 4)
                if (c[k] == BOX_TUPLE ? !tuple_fits(c + 1, c[0], (k - 1) / 4) :
                    c[k] == BOX_SAME ? !same_fits(c + 1, (k - 1) / 4) :
                    (c[k] < BOX_SLOT || c[k] > BOX_MAYBE_ALWAYS ||
                     (c[k] == BOX_CONST && c[k + 1] >= nconsts) ||
                     (c[k] != BOX_SLOT && c[k] != BOX_CONST && (c[k + 2] >= nconsts ||
                                          !PyArray_DescrCheck(PyTuple_GET_ITEM(p->consts, c[k + 2]))))))
                    return -1;
        if (op == OP_CALL || op == OP_CALLRC) nwords = 0;
        c += n;
    }
    return -1;
}

static void guards_dealloc(PyObject *self) {
    Guards *g = (Guards *)self;
    for (Py_ssize_t e = 0; e < g->nprograms; e++) Py_XDECREF(g->programs[e].consts);
    PyMem_Free(g->programs);
    Py_XDECREF(g->fallback);
    Py_XDECREF(g->stats);
    Py_XDECREF(g->threads_dict);
    Py_XDECREF(g->owned);
    Py_TYPE(self)->tp_free(self);
}

static PyTypeObject GuardsType;

/* Guards(programs, fallback, stats, threads_dict); programs: [(bytes of int64, consts, nargs)] */
static PyObject *guards_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    PyObject *programs, *fallback, *stats, *threads;
    if (!PyArg_ParseTuple(args, "O!OOO!", &PyList_Type, &programs, &fallback, &stats,
                          &PyDict_Type, &threads))
        return NULL;
    Guards *g = (Guards *)type->tp_alloc(type, 0);
    if (g == NULL) return NULL;
    g->vectorcall = guards_call;
    Py_INCREF(programs); g->owned = programs;
    Py_INCREF(fallback); g->fallback = fallback;
    Py_INCREF(stats); g->stats = stats;
    Py_INCREF(threads); g->threads_dict = threads;
    Py_ssize_t n = PyList_GET_SIZE(programs);
    g->programs = PyMem_Calloc(n ? n : 1, sizeof(Program));
    if (g->programs == NULL) { Py_DECREF(g); return PyErr_NoMemory(); }
    for (Py_ssize_t e = 0; e < n; e++) {
        PyObject *code, *consts;
        Py_ssize_t nargs;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(programs, e), "SO!n", &code, &PyTuple_Type,
                              &consts, &nargs)) {
            Py_DECREF(g);
            return NULL;
        }
        Program *p = &g->programs[e];
        p->code = (int64_t *)PyBytes_AS_STRING(code);
        p->len = PyBytes_GET_SIZE(code) / (Py_ssize_t)sizeof(int64_t);
        Py_INCREF(consts); p->consts = consts;
        p->nargs = nargs;
        g->nprograms = e + 1;
        if (nargs < 0 || nargs > MAX_SLOTS || validate(p)) {
            Py_DECREF(g);
            PyErr_SetString(PyExc_ValueError, "malformed fast-call program");
            return NULL;
        }
    }
    return (PyObject *)g;
}

static PyObject *guards_fallback(PyObject *self, void *closure) {
    return Py_NewRef(((Guards *)self)->fallback);
}

/* The Python guard function's source stands for both (debug output, tests). */
static PyObject *guards_source(PyObject *self, void *closure) {
    return PyObject_GetAttrString(((Guards *)self)->fallback, "py_source");
}

static PyGetSetDef guards_getset[] = {
    {"fallback", guards_fallback, NULL, "the Python guard function behind it", NULL},
    {"py_source", guards_source, NULL, "the Python guard function's source", NULL},
    {NULL},
};

static PyTypeObject GuardsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "astcompile_fastcall.Guards",
    .tp_basicsize = sizeof(Guards),
    .tp_dealloc = guards_dealloc,
    .tp_vectorcall_offset = offsetof(Guards, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = guards_new,
    .tp_getset = guards_getset,
    .tp_doc = "A region's guards and compiled call, in C (see runtime/fastcall.c).",
};

/* The calling thread's floating-point flags around a region's compiled run (runtime/fpflags.py):
 * tens of nanoseconds here against about 0.2 us for the same libm calls through cffi. */
static PyObject *fp_clear(PyObject *self, PyObject *unused) {
    if (fetestexcept(FP_FLAGS)) feclearexcept(FP_FLAGS); /* clearing costs 5x testing */
    Py_RETURN_NONE;
}

static PyObject *fp_raised(PyObject *self, PyObject *unused) {
    return PyLong_FromLong(fetestexcept(FP_FLAGS));
}

static PyMethodDef module_methods[] = {
    {"fp_clear", fp_clear, METH_NOARGS, "clear the calling thread's floating-point flags"},
    {"fp_raised", fp_raised, METH_NOARGS, "the floating-point flags raised on it (0: none)"},
    {NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "astcompile_fastcall", NULL, -1, module_methods
};

PyMODINIT_FUNC PyInit_astcompile_fastcall(void) {
    import_array();
    if (PyType_Ready(&GuardsType) < 0) return NULL;
    s_compiled_calls = PyUnicode_InternFromString("compiled_calls");
    s_nthreads = PyUnicode_InternFromString("_nthreads");
    s_loud = PyUnicode_InternFromString("loud");
    s_filters = PyUnicode_InternFromString("filters");
    s_warnings_raise = PyUnicode_InternFromString("warnings_raise");
    one = PyLong_FromLong(1);
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&GuardsType);
    if (PyModule_AddObject(m, "Guards", (PyObject *)&GuardsType) < 0) return NULL;
    if (add_switch(m) < 0) return NULL;
    if (add_lists(m) < 0) return NULL;
    return m;
}
