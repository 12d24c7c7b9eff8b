/* Views a region returns (OP_VIEW), appended to fastcall.c when the extension is built.
 *
 * ``y = x * 2; out[:] = x + 1; return y[::2]`` returns a view of y, as NumPy does: its
 * strides, its flags and its .base (the array that owns the bytes: NumPy collapses a chain of
 * views to it). The program makes each view right after the arrays it views are allocated and
 * before any kernel runs (the kernels fill the bytes later), so a view this path cannot make
 * exactly as NumPy would (an index outside its array, an empty broadcast) fails the call over
 * to the Python path before anything ran.
 *
 * OP_VIEW dst src kind n ...: slot dst = a view of the array in slot src, by kind:
 *   VIEW_INDEX      n items of 4 words (ITEM_SLICE start length step | ITEM_INT start | ITEM_NEWAXIS),
 *                   start and length in registers, step a number: y[1::3], y[0], y[None]
 *   VIEW_TRANSPOSE  n axes: y.transpose(axes)
 *   VIEW_PART       n = 1: the constant naming the attribute, "real" or "imag"
 *   VIEW_BROADCAST  n sizes in registers: np.broadcast_to(y, shape)
 *   VIEW_RESHAPE    n sizes in registers: np.reshape(y, shape) of a C-contiguous y (a view;
 *                   of another y NumPy may copy bytes the kernels have not written yet)
 * (the kinds' enum is fastcall.c's)
 */

/* A view of src's bytes from ``data`` on, as NumPy's slicing makes one: src's dtype and the
 * flags given (src's own, contiguity and alignment recomputed), base src. */
static PyObject *view_of(PyArrayObject *src, int nd, npy_intp *dims, npy_intp *strides,
                         char *data, int flags) {
    PyArray_Descr *descr = PyArray_DESCR(src);
    Py_INCREF(descr); /* PyArray_NewFromDescr steals it */
    PyObject *v = PyArray_NewFromDescr(&PyArray_Type, descr, nd, dims, strides, data, flags, NULL);
    if (v == NULL) return NULL;
    Py_INCREF(src); /* PyArray_SetBaseObject steals it, and walks to the owner */
    if (PyArray_SetBaseObject((PyArrayObject *)v, (PyObject *)src) < 0) Py_CLEAR(v);
    return v;
}

/* src[items]: each slice's start and length checked to lie inside its axis (NumPy clips
 * them; the trace's sizes never need it, so a call that would goes to the Python path). */
static PyObject *index_view(PyArrayObject *src, const int64_t *item, int64_t n, const int64_t *regs) {
    npy_intp dims[MAX_DIMS], strides[MAX_DIMS];
    char *data = PyArray_BYTES(src);
    int axis = 0, nd = 0, ndim = PyArray_NDIM(src);
    for (int64_t k = 0; k < n; k++, item += 4) {
        if (nd == MAX_DIMS) return NULL;
        if (item[0] == ITEM_NEWAXIS) {
            dims[nd] = 1;
            strides[nd++] = 0;
            continue;
        }
        if (axis == ndim) return NULL;
        npy_intp dim = PyArray_DIM(src, axis), stride = PyArray_STRIDE(src, axis);
        int64_t start = regs[item[1]];
        axis++;
        if (item[0] == ITEM_INT) { /* the axis goes */
            if (start < 0 || start >= dim) return NULL;
            data += start * stride;
            continue;
        }
        int64_t length = regs[item[2]], step = item[3], last;
        if (start < 0 || start > dim || length < 0 || length > dim) return NULL;
        if (length > 0 && (__builtin_mul_overflow(length - 1, step, &last) ||
                           (last += start) < 0 || last >= dim)) /* the last element's index */
            return NULL;
        if (length == 0) { /* NumPy's empty slice: from the axis's start, with step 1 */
            start = 0;
            step = 1;
        }
        data += start * stride;
        dims[nd] = length;
        strides[nd++] = stride * step;
    }
    if (nd + ndim - axis > MAX_DIMS) return NULL;
    for (; axis < ndim; axis++, nd++) { /* the axes after the items, as they are */
        dims[nd] = PyArray_DIM(src, axis);
        strides[nd] = PyArray_STRIDE(src, axis);
    }
    return view_of(src, nd, dims, strides, data, PyArray_FLAGS(src));
}

/* np.broadcast_to(src, shape): read-only, stride 0 along each axis of length 1 in src or new
 * (as NumPy's nditer makes it). An empty result goes to the Python path: nditer gives an
 * empty operand strides of its own. */
static PyObject *broadcast_view(PyArrayObject *src, const int64_t *shape, int64_t n, const int64_t *regs) {
    npy_intp dims[MAX_DIMS], strides[MAX_DIMS];
    int lead = (int)n - PyArray_NDIM(src);
    if (lead < 0) return NULL;
    for (int k = 0; k < n; k++) {
        npy_intp have = k < lead ? 1 : PyArray_DIM(src, k - lead);
        dims[k] = regs[shape[k]];
        if (dims[k] <= 0 || (have != dims[k] && have != 1)) return NULL;
        strides[k] = have == 1 ? 0 : PyArray_STRIDE(src, k - lead);
    }
    return view_of(src, (int)n, dims, strides, PyArray_BYTES(src),
                   PyArray_FLAGS(src) & ~NPY_ARRAY_WRITEABLE);
}

/* OP_VIEW's view (c: src, kind, n, its words); NULL where the Python path makes it. */
static PyObject *make_view(PyObject *src, const int64_t *c, const int64_t *regs, PyObject *consts) {
    if (Py_TYPE(src) != &PyArray_Type) return NULL;
    PyArrayObject *arr = (PyArrayObject *)src;
    switch (c[1]) {
    case VIEW_INDEX: return index_view(arr, c + 3, c[2], regs);
    case VIEW_TRANSPOSE: {
        npy_intp axes[MAX_DIMS];
        for (int64_t k = 0; k < c[2]; k++) axes[k] = (npy_intp)c[3 + k];
        PyArray_Dims permute = {axes, (int)c[2]};
        return PyArray_Transpose(arr, &permute);
    }
    case VIEW_PART: return PyObject_GetAttr(src, PyTuple_GET_ITEM(consts, c[3]));
    case VIEW_BROADCAST: return broadcast_view(arr, c + 3, c[2], regs);
    case VIEW_RESHAPE: {
        npy_intp dims[MAX_DIMS];
        for (int64_t k = 0; k < c[2]; k++) dims[k] = (npy_intp)regs[c[3 + k]];
        PyArray_Dims shape = {dims, (int)c[2]};
        return PyArray_IS_C_CONTIGUOUS(arr) ? PyArray_Newshape(arr, &shape, NPY_CORDER) : NULL;
    }
    }
    return NULL;
}

/* OP_VIEW's words after the opcode (dst, src, kind, n, ...), -1 when malformed. */
static int64_t view_words(const int64_t *c, const int64_t *end, Py_ssize_t nconsts, PyObject *consts) {
    if (c + 4 > end || c[2] < VIEW_INDEX || c[2] > VIEW_RESHAPE || c[3] < 0 || c[3] > MAX_DIMS)
        return -1;
    int64_t n = 4 + (c[2] == VIEW_INDEX ? 4 * c[3] : c[3]);
    if (c + n > end || c[0] >= MAX_SLOTS || c[1] >= MAX_SLOTS || c[0] < 0 || c[1] < 0) return -1;
    for (int64_t k = 4; k < n; k++) {
        int64_t w = c[k];
        if (c[2] == VIEW_INDEX && (k - 4) % 4 == 0 && (w < ITEM_SLICE || w > ITEM_NEWAXIS)) return -1;
        if (c[2] == VIEW_INDEX && (k - 4) % 4 == 3 ? w == 0 : (w < 0 || w >= MAX_REGS)) return -1;
        if (c[2] == VIEW_TRANSPOSE && w >= MAX_DIMS) return -1;
    }
    if (c[2] == VIEW_PART &&
        (c[3] != 1 || c[4] >= nconsts || !PyUnicode_CheckExact(PyTuple_GET_ITEM(consts, c[4]))))
        return -1;
    return n;
}

/* OP_UNIT's copy of ``a``, whose last stride is not its item size: a C-ordered copy, except
 * that an axis ``a`` broadcasts (stride 0) other than the last stays broadcast, so a broadcast
 * input costs one row of copying, not the whole array (the Python wrapper's unit_last). */
static PyObject *unit_copy(PyArrayObject *a) {
    int nd = PyArray_NDIM(a), broadcast = 0;
    npy_intp dims[MAX_DIMS], strides[MAX_DIMS];
    for (int k = 0; k < nd; k++) {
        int kept = k < nd - 1 && PyArray_STRIDE(a, k) == 0 && PyArray_DIM(a, k) > 1;
        broadcast |= kept;
        dims[k] = kept ? 1 : PyArray_DIM(a, k);
    }
    if (!broadcast) return PyArray_NewCopy(a, NPY_CORDER);
    PyObject *part = view_of(a, nd, dims, PyArray_STRIDES(a), PyArray_BYTES(a), 0);
    PyObject *copy = part != NULL ? PyArray_NewCopy((PyArrayObject *)part, NPY_CORDER) : NULL;
    Py_XDECREF(part);
    if (copy == NULL) return NULL;
    for (int k = 0; k < nd; k++) {
        dims[k] = PyArray_DIM(a, k);
        strides[k] = dims[k] > 1 && PyArray_DIM((PyArrayObject *)copy, k) == 1
                         ? 0 : PyArray_STRIDE((PyArrayObject *)copy, k);
    }
    PyObject *out = view_of((PyArrayObject *)copy, nd, dims, strides, PyArray_BYTES((PyArrayObject *)copy), 0);
    Py_DECREF(copy);
    return out;
}
