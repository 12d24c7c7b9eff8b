/* astcompile runtime: np.median of a window, x[i:i + k] in a loop (targets/c/structured_numpy.py).
 *
 * NumPy partitions a copy and takes the middle value, or for an even count the mean of the two
 * middle values: ((0 + a) + b) / 2 in the array's own type (np.mean of float32 sums in
 * float32), 0 + a for an odd count, so either zero gives +0. The values are copied (on the
 * stack up to 64 of them) and the middle found by quickselect: with no NaN among them the
 * middle values are the same whichever order equal values take. Where the answer could differ
 * from NumPy's, or NumPy warns (a NaN in the window, no values, inf - inf, a sum that
 * overflows), the helper returns NaN without raising a flag, and the region's check hands the
 * call to its own statements (trace/numpy_steps.py).
 */
#ifndef ASTC_MEDIAN_H
#define ASTC_MEDIAN_H

#define ASTC_MEDIAN(T, HALF_MAX)                                                              \
    /* v[k] as if v[0..n) were sorted, with v[0..k) <= v[k] <= v[k + 1..n): no NaN in v */   \
    static inline T astc_nth_##T(T* v, int64_t n, int64_t k)                              \
    {                                                                                         \
        int64_t lo = 0, hi = n - 1;                                                           \
        while (hi - lo > 8) {                                                                 \
            const T pivot = v[lo + (hi - lo) / 2];                                            \
            int64_t i = lo, j = hi;                                                           \
            while (i <= j) {                                                                  \
                while (v[i] < pivot) i++;                                                     \
                while (v[j] > pivot) j--;                                                     \
                if (i <= j) {                                                                 \
                    const T t = v[i];                                                         \
                    v[i++] = v[j];                                                            \
                    v[j--] = t;                                                               \
                }                                                                             \
            }                                                                                 \
            if (k <= j) hi = j;                                                               \
            else if (k >= i) lo = i;                                                          \
            else return v[k];                                                                 \
        }                                                                                     \
        for (int64_t i = lo + 1; i <= hi; i++) { /* a few left: insertion sort */             \
            const T t = v[i];                                                                 \
            int64_t j = i;                                                                    \
            for (; j > lo && v[j - 1] > t; j--) v[j] = v[j - 1];                              \
            v[j] = t;                                                                         \
        }                                                                                     \
        return v[k];                                                                          \
    }                                                                                         \
    static inline T astc_median_of_##T(T* v, int64_t n)                                       \
    {                                                                                         \
        const int64_t k = n / 2;                                                              \
        const T b = astc_nth_##T(v, n, k);                                                 \
        if (n % 2) return (T)0 + b;                                                           \
        T a = v[0];                                                                           \
        for (int64_t i = 1; i < k; i++) a = v[i] > a ? v[i] : a;                              \
        if (isinf(a) ? isinf(b) && a != b : !isinf(b) && (fabs(a) >= HALF_MAX || fabs(b) >= HALF_MAX)) \
            return (T)NAN; /* NumPy warns: invalid (inf - inf), overflow */                   \
        return ((T)0 + a + b) / 2;                                                            \
    }                                                                                         \
    static inline T astc_median_##T(const T* x, int64_t s, int64_t n)                         \
    {                                                                                         \
        T small[64];                                                                          \
        T* v = n <= 64 ? small : (T*)malloc((size_t)(n > 0 ? n : 1) * sizeof(T));             \
        T m = (T)NAN;                                                                         \
        int64_t i = 0;                                                                        \
        if (v == NULL) return m;                                                              \
        for (; i < n && x[i * s] == x[i * s]; i++) v[i] = x[i * s];                           \
        if (n > 0 && i == n) m = astc_median_of_##T(v, n);                                    \
        if (v != small) free(v);                                                              \
        return m;                                                                             \
    }

ASTC_MEDIAN(double, 0x1p1023)
ASTC_MEDIAN(float, 0x1p127f)
#undef ASTC_MEDIAN
#endif
