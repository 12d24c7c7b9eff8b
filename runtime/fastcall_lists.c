/* Typed Python lists (runtime/pylists.py), appended to fastcall.c when the extension is built.
 *
 * A loop over a list of floats compiles only if reading the list into a buffer costs far less
 * than the loop: NumPy's np.array(list) and a Python check that every item is a float take
 * 30-60 ns an item, more than the plain loop itself. Here one pass checks the exact type of
 * every item (a float subclass such as np.float64 is not a float) and a second copies them,
 * each a few ns an item; box() writes the buffer back, making a new Python object only for an
 * item whose value changed.
 *
 * kind(list) -> (code, n) or (code, n, m, row type), or None when the list is not typed:
 * empty, mixed or other types, an int outside int64, rows of unequal length, or one list row
 * twice (writes through one row would be seen through the other).
 */

enum { K_NONE = -1, K_FLOAT = 0, K_INT = 1, K_COMPLEX = 2, K_BOOL = 3 };
static const char *const kind_codes[] = {"d", "q", "D", "?"};
static const int kind_types[] = {NPY_FLOAT64, NPY_INT64, NPY_COMPLEX128, NPY_BOOL};

/* The value of an exact int, 1 when it fits int64. A one-digit int (|v| < 2**30, the ints of
 * most lists) is read from its digit: PyLong_AsLongLongAndOverflow costs 5 ns an item, more
 * than a plain loop's work on it. */
static inline int int64_of(PyObject *item, long long *value) {
#if PY_VERSION_HEX >= 0x030C0000
    if (PyUnstable_Long_IsCompact((PyLongObject *)item)) {
        *value = (long long)PyUnstable_Long_CompactValue((PyLongObject *)item);
        return 1;
    }
#elif PY_VERSION_HEX >= 0x030B0000
    Py_ssize_t size = Py_SIZE(item);
    if (size >= -1 && size <= 1) {
        *value = (long long)size * (long long)((PyLongObject *)item)->ob_digit[0];
        return 1;
    }
#endif
    int overflow = 0;
    *value = PyLong_AsLongLongAndOverflow(item, &overflow);
    return !overflow;
}

static int item_kind(PyObject *item) {
    if (PyFloat_CheckExact(item)) return K_FLOAT;
    if (PyLong_CheckExact(item)) {
        long long value;
        return int64_of(item, &value) ? K_INT : K_NONE;
    }
    if (PyComplex_CheckExact(item)) return K_COMPLEX;
    if (PyBool_Check(item)) return K_BOOL;
    return K_NONE;
}

/* the kind every item of `items` shares (K_NONE if not one kind) */
static int items_kind(PyObject *const *items, Py_ssize_t n, int kind) {
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = items[i];
        long long value;
        if (kind == K_FLOAT) {
            if (!PyFloat_CheckExact(item)) return K_NONE;
        } else if (kind == K_INT) {
            if (!PyLong_CheckExact(item) || !int64_of(item, &value)) return K_NONE;
        } else if (kind == K_NONE || item_kind(item) != kind) {
            return K_NONE;
        }
    }
    return kind;
}

/* whether the n pointers are distinct (an open-addressing set) */
static int distinct(PyObject *const *objects, Py_ssize_t n) {
    size_t size = 16;
    while (size < 2 * (size_t)n) size <<= 1;
    PyObject **set = PyMem_Calloc(size, sizeof(PyObject *));
    if (set == NULL) return -1;
    int ok = 1;
    for (Py_ssize_t i = 0; i < n && ok; i++) {
        size_t h = ((size_t)objects[i] >> 4) * 0x9E3779B97F4A7C15ull & (size - 1);
        while (set[h] != NULL && set[h] != objects[i]) h = (h + 1) & (size - 1);
        if (set[h] == objects[i]) ok = 0;
        set[h] = objects[i];
    }
    PyMem_Free(set);
    return ok;
}

static PyObject *rows_kind(PyObject *list, Py_ssize_t n) {
    PyObject *first = PyList_GET_ITEM(list, 0);
    PyTypeObject *row_type = Py_TYPE(first);
    Py_ssize_t m = Py_SIZE(first);
    if (m == 0) Py_RETURN_NONE;
    PyObject *const *row0 = row_type == &PyList_Type ? ((PyListObject *)first)->ob_item
                                                     : ((PyTupleObject *)first)->ob_item;
    int kind = item_kind(row0[0]);
    for (Py_ssize_t i = 0; i < n && kind != K_NONE; i++) {
        PyObject *row = PyList_GET_ITEM(list, i);
        if (Py_TYPE(row) != row_type || Py_SIZE(row) != m) Py_RETURN_NONE;
        PyObject *const *items = row_type == &PyList_Type ? ((PyListObject *)row)->ob_item
                                                          : ((PyTupleObject *)row)->ob_item;
        kind = items_kind(items, m, kind);
    }
    if (kind == K_NONE) Py_RETURN_NONE;
    if (row_type == &PyList_Type) {
        int ok = distinct(((PyListObject *)list)->ob_item, n);
        if (ok < 0) return PyErr_NoMemory();
        if (!ok) Py_RETURN_NONE;
    }
    return Py_BuildValue("(snnO)", kind_codes[kind], n, m, (PyObject *)row_type);
}

static PyObject *lists_kind(PyObject *self, PyObject *list) {
    if (!PyList_CheckExact(list)) Py_RETURN_NONE;
    Py_ssize_t n = PyList_GET_SIZE(list);
    if (n == 0) Py_RETURN_NONE;
    PyObject *first = PyList_GET_ITEM(list, 0);
    if (PyList_CheckExact(first) || PyTuple_CheckExact(first)) return rows_kind(list, n);
    int kind = items_kind(((PyListObject *)list)->ob_item, n, item_kind(first));
    if (kind == K_NONE) Py_RETURN_NONE;
    return Py_BuildValue("(sn)", kind_codes[kind], n);
}

static int kind_of_code(const char *code) {
    for (int k = 0; k < 4; k++)
        if (strcmp(code, kind_codes[k]) == 0) return k;
    return K_NONE;
}

/* store items[0..m) of kind `kind` at `out`; -1 (an error set) on an item of another type */
static int unbox_items(PyObject *const *items, Py_ssize_t m, int kind, char *out) {
    /* one loop per kind: the common ones stay a few instructions an item */
    Py_ssize_t j = 0;
    if (kind == K_FLOAT) {
        for (; j < m && PyFloat_CheckExact(items[j]); j++)
            ((double *)out)[j] = PyFloat_AS_DOUBLE(items[j]);
    } else if (kind == K_INT) {
        for (; j < m && PyLong_CheckExact(items[j]); j++)
            if (!int64_of(items[j], (long long *)out + j)) break;
    } else {
        for (; j < m && item_kind(items[j]) == kind; j++) {
            if (kind == K_COMPLEX) ((Py_complex *)out)[j] = ((PyComplexObject *)items[j])->cval;
            else ((npy_bool *)out)[j] = items[j] == Py_True;
        }
    }
    if (j < m) {
        PyErr_SetString(PyExc_TypeError, "a typed list changed while it was read");
        return -1;
    }
    return 0;
}

static PyObject *const *items_of(PyObject *row) {
    return PyList_CheckExact(row) ? ((PyListObject *)row)->ob_item
                                  : ((PyTupleObject *)row)->ob_item;
}

/* unbox(list, code, n[, m]) -> a new C-ordered array of the list's items */
static PyObject *lists_unbox(PyObject *self, PyObject *args) {
    PyObject *list;
    const char *code;
    Py_ssize_t n, m = -1;
    if (!PyArg_ParseTuple(args, "O!sn|n", &PyList_Type, &list, &code, &n, &m)) return NULL;
    int kind = kind_of_code(code);
    if (kind == K_NONE || PyList_GET_SIZE(list) != n) {
        PyErr_SetString(PyExc_TypeError, "a typed list changed while it was read");
        return NULL;
    }
    npy_intp dims[2] = {n, m};
    PyObject *array = PyArray_SimpleNew(m < 0 ? 1 : 2, dims, kind_types[kind]);
    if (array == NULL) return NULL;
    char *data = PyArray_BYTES((PyArrayObject *)array);
    int rc = 0;
    if (m < 0) {
        rc = unbox_items(((PyListObject *)list)->ob_item, n, kind, data);
    } else {
        npy_intp stride = m * PyArray_ITEMSIZE((PyArrayObject *)array);
        for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
            PyObject *row = PyList_GET_ITEM(list, i);
            if (!(PyList_CheckExact(row) || PyTuple_CheckExact(row)) || Py_SIZE(row) != m) {
                PyErr_SetString(PyExc_TypeError, "a typed list changed while it was read");
                rc = -1;
            } else {
                rc = unbox_items(items_of(row), m, kind, data + i * stride);
            }
        }
    }
    if (rc < 0) {
        Py_DECREF(array);
        return NULL;
    }
    return array;
}

/* whether `item` already holds the value at `at` (same type, same bits): then it stays */
static int same_item(PyObject *item, int kind, const char *at) {
    switch (kind) {
    case K_FLOAT:
        return PyFloat_CheckExact(item) &&
               memcmp(&((PyFloatObject *)item)->ob_fval, at, sizeof(double)) == 0;
    case K_INT: {
        long long v;
        return PyLong_CheckExact(item) && int64_of(item, &v) && v == *(const long long *)at;
    }
    case K_COMPLEX:
        return PyComplex_CheckExact(item) &&
               memcmp(&((PyComplexObject *)item)->cval, at, sizeof(Py_complex)) == 0;
    default: return item == (*(const npy_bool *)at ? Py_True : Py_False);
    }
}

static PyObject *new_item(int kind, const char *at) {
    switch (kind) {
    case K_FLOAT: return PyFloat_FromDouble(*(const double *)at);
    case K_INT: return PyLong_FromLongLong(*(const long long *)at);
    case K_COMPLEX: return PyComplex_FromCComplex(*(const Py_complex *)at);
    default: return PyBool_FromLong(*(const npy_bool *)at);
    }
}

static int box_row(PyObject *row, Py_ssize_t m, int kind, const char *data, npy_intp size) {
    if (!PyList_CheckExact(row) || PyList_GET_SIZE(row) != m) {
        PyErr_SetString(PyExc_RuntimeError, "a typed list changed size inside a region");
        return -1;
    }
    for (Py_ssize_t j = 0; j < m; j++) {
        const char *at = data + j * size;
        if (same_item(PyList_GET_ITEM(row, j), kind, at)) continue;
        PyObject *item = new_item(kind, at);
        if (item == NULL) return -1;
        PyObject *old = PyList_GET_ITEM(row, j);
        PyList_SET_ITEM(row, j, item);
        Py_DECREF(old);
    }
    return 0;
}

/* box(list, array): the array's values back into the list (and its rows), Python's types */
static PyObject *lists_box(PyObject *self, PyObject *args) {
    PyObject *list;
    PyArrayObject *array;
    if (!PyArg_ParseTuple(args, "O!O!", &PyList_Type, &list, &PyArray_Type, &array)) return NULL;
    int kind = K_NONE;
    for (int k = 0; k < 4; k++)
        if (PyArray_TYPE(array) == kind_types[k]) kind = k;
    if (kind == K_NONE || !PyArray_IS_C_CONTIGUOUS(array) || PyArray_NDIM(array) > 2) {
        PyErr_SetString(PyExc_TypeError, "box() needs a C-ordered 1-d or 2-d typed array");
        return NULL;
    }
    npy_intp size = PyArray_ITEMSIZE(array), n = PyArray_DIM(array, 0);
    const char *data = PyArray_BYTES(array);
    if (PyArray_NDIM(array) == 1) {
        if (box_row(list, n, kind, data, size) < 0) return NULL;
        Py_RETURN_NONE;
    }
    npy_intp m = PyArray_DIM(array, 1);
    if (PyList_GET_SIZE(list) != n) {
        PyErr_SetString(PyExc_RuntimeError, "a typed list changed size inside a region");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (box_row(PyList_GET_ITEM(list, i), m, kind, data + i * m * size, size) < 0)
            return NULL;
    Py_RETURN_NONE;
}

/* overlap(lists) -> whether any list, or list row of one, appears twice among them */
static PyObject *lists_overlap(PyObject *self, PyObject *lists) {
    if (!PyTuple_CheckExact(lists)) {
        PyErr_SetString(PyExc_TypeError, "overlap() takes a tuple of lists");
        return NULL;
    }
    Py_ssize_t total = 0, count = PyTuple_GET_SIZE(lists);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *list = PyTuple_GET_ITEM(lists, i);
        total += 1 + (PyList_CheckExact(list) ? PyList_GET_SIZE(list) : 0);
    }
    PyObject **objects = PyMem_Malloc((total ? total : 1) * sizeof(PyObject *));
    if (objects == NULL) return PyErr_NoMemory();
    Py_ssize_t k = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *list = PyTuple_GET_ITEM(lists, i);
        objects[k++] = list;
        if (!PyList_CheckExact(list)) continue;
        for (Py_ssize_t j = 0; j < PyList_GET_SIZE(list); j++)
            if (PyList_CheckExact(PyList_GET_ITEM(list, j)))
                objects[k++] = PyList_GET_ITEM(list, j);
    }
    int ok = distinct(objects, k);
    PyMem_Free(objects);
    if (ok < 0) return PyErr_NoMemory();
    return PyBool_FromLong(!ok);
}

static PyMethodDef lists_methods[] = {
    {"list_kind", lists_kind, METH_O, "The typed-list kind of a list, or None."},
    {"list_unbox", lists_unbox, METH_VARARGS, "A typed list's items as a new array."},
    {"list_box", lists_box, METH_VARARGS, "An array's values written back into a typed list."},
    {"list_overlap", lists_overlap, METH_O, "Whether typed lists share a list object."},
    {NULL, NULL, 0, NULL},
};

static int add_lists(PyObject *module) { return PyModule_AddFunctions(module, lists_methods); }
