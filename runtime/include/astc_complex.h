/* astcompile runtime: complex arithmetic as NumPy computes it.
 *
 * Values are C99 `double complex` / `float complex` (interleaved real and imaginary parts,
 * NumPy's layout), but multiply and divide never use C's `*` and `/` on complex operands:
 * those follow Annex G (calls to __muldc3/__divdc3, which recover infinities NumPy leaves as
 * NaN, and are slow and not vectorisable). NumPy multiplies with the textbook formula and
 * divides with Smith's algorithm; the helpers below are those formulas on the real and
 * imaginary parts, which GCC inlines and vectorises. NumPy's array loops on a CPU with FMA
 * fuse each part of a product into one multiply-add (astc_cmul_fused), its scalar operators,
 * reductions and powers do not (astc_cmul): (-3e38-infj)**2 is -inf+infj one way, nan+infj
 * the other. abs is hypot (NumPy's npy_cabs); exp,
 * sqrt and the general power are glibc's cexp, csqrt and cpow, as NumPy's npy_cexp, npy_csqrt
 * and npy_cpow use on Linux. Ordering comparisons are NumPy's lexicographic order.
 * complex64 math stays in float (the `f` variants), as in NumPy.
 */
#ifndef ASTC_COMPLEX_H
#define ASTC_COMPLEX_H
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#undef I /* a user variable may be called I */

#define ASTC_CMPLX(re, im) __builtin_complex((double)(re), (double)(im))
#define ASTC_CMPLXF(re, im) __builtin_complex((float)(re), (float)(im))

#define ASTC_COMPLEX_OPS(T, C, SUF, MK)                                                 \
    /* (ar*br - ai*bi) + (ar*bi + ai*br)i: NumPy's multiply, NaN where C99 gives inf */ \
    static inline C astc_cmul##SUF(C a, C b) {                                          \
        const T ar = creal##SUF(a), ai = cimag##SUF(a);                                 \
        const T br = creal##SUF(b), bi = cimag##SUF(b);                                 \
        return MK(ar * br - ai * bi, ar * bi + ai * br);                                \
    }                                                                                   \
    /* NumPy's array loop where it fuses (AVX2/AVX-512): each part one multiply-add */   \
    static inline C astc_cmul_fused##SUF(C a, C b) {                                    \
        const T ar = creal##SUF(a), ai = cimag##SUF(a);                                 \
        const T br = creal##SUF(b), bi = cimag##SUF(b);                                 \
        return MK(fma##SUF(ar, br, -(ai * bi)), fma##SUF(ar, bi, ai * br));             \
    }                                                                                   \
    /* Smith's algorithm, as NumPy's complex divide (x / 0 gives inf or NaN parts) */   \
    static inline C astc_cdiv##SUF(C a, C b) {                                          \
        const T ar = creal##SUF(a), ai = cimag##SUF(a);                                 \
        const T br = creal##SUF(b), bi = cimag##SUF(b);                                 \
        const T abs_br = fabs##SUF(br), abs_bi = fabs##SUF(bi);                         \
        if (abs_br >= abs_bi) {                                                         \
            if (abs_br == 0 && abs_bi == 0) return MK(ar / abs_br, ai / abs_br);        \
            const T rat = bi / br, scl = (T)1 / (br + bi * rat);                        \
            return MK((ar + ai * rat) * scl, (ai - ar * rat) * scl);                    \
        }                                                                               \
        const T rat = br / bi, scl = (T)1 / (bi + br * rat);                            \
        return MK((ar * rat + ai) * scl, (ai * rat - ar) * scl);                        \
    }                                                                                   \
    static inline T astc_cabs##SUF(C a) { return hypot##SUF(creal##SUF(a), cimag##SUF(a)); } \
    static inline C astc_cexp##SUF(C a) { return cexp##SUF(a); }                       \
    static inline C astc_csqrt##SUF(C a) { return csqrt##SUF(a); }                     \
    static inline C astc_conj##SUF(C a) { return MK(creal##SUF(a), -cimag##SUF(a)); }   \
    /* a ** n for a small integer n: NumPy's repeated squaring (then 1 / r for n < 0) */ \
    static inline C astc_cpowi##SUF(C a, int64_t n) {                                   \
        if (n == 2) return astc_cmul##SUF(a, a);                                        \
        if (n == 3) return astc_cmul##SUF(a, astc_cmul##SUF(a, a));                     \
        int64_t m = n < 0 ? -n : n, mask = 1;                                           \
        C acc = MK(1, 0), p = a;                                                        \
        for (;;) {                                                                      \
            if (m & mask) acc = astc_cmul##SUF(acc, p);                                 \
            mask <<= 1;                                                                 \
            if (m < mask) break;                                                        \
            p = astc_cmul##SUF(p, p);                                                   \
        }                                                                               \
        return n < 0 ? astc_cdiv##SUF(MK(1, 0), acc) : acc;                             \
    }                                                                                   \
    /* NumPy's nc_pow: special cases for zero and small integer exponents, else cpow; */ \
    /* 0 ** w for a w whose real part is not > 0 is NaN with the invalid flag raised */ \
    static inline C astc_cpow##SUF(C a, C b) {                                          \
        const T ar = creal##SUF(a), ai = cimag##SUF(a);                                 \
        const T br = creal##SUF(b), bi = cimag##SUF(b);                                 \
        if (br == 0 && bi == 0) return MK(1, 0);                                        \
        if (ar == 0 && ai == 0) {                                                       \
            if (br > 0) return MK(0, 0);                                                \
            astc_raise_fp(FE_INVALID);                                                  \
            return MK(NAN, NAN);                                                        \
        }                                                                               \
        if (bi == 0 && br > -100 && br < 100 && (T)(int64_t)br == br) {                 \
            return (int64_t)br == 1 ? a : astc_cpowi##SUF(a, (int64_t)br);              \
        }                                                                               \
        return cpow##SUF(a, b);                                                         \
    }                                                                                   \
    /* NumPy's lexicographic order: real parts first, NaN anywhere compares false; its    \
       C < raises the invalid flag on a NaN it meets (a real part, or an imaginary one    \
       where the real parts are equal), which GCC may fold away (x < x): raised here */   \
    static inline void astc_cinvalid##SUF(T ar, T ai, T br, T bi) {                     \
        if (__builtin_expect(ar != ar || br != br || (ar == br && (ai != ai || bi != bi)), 0)) \
            astc_raise_fp(FE_INVALID);                                                  \
    }                                                                                   \
    static inline int astc_clt##SUF(C a, C b) {                                         \
        const T ar = creal##SUF(a), ai = cimag##SUF(a);                                 \
        const T br = creal##SUF(b), bi = cimag##SUF(b);                                 \
        astc_cinvalid##SUF(ar, ai, br, bi);                                             \
        return (ar < br && ai == ai && bi == bi) || (ar == br && ai < bi);              \
    }                                                                                   \
    static inline int astc_cle##SUF(C a, C b) {                                         \
        const T ar = creal##SUF(a), ai = cimag##SUF(a);                                 \
        const T br = creal##SUF(b), bi = cimag##SUF(b);                                 \
        astc_cinvalid##SUF(ar, ai, br, bi);                                             \
        return (ar < br && ai == ai && bi == bi) || (ar == br && ai <= bi);             \
    }                                                                                   \
    static inline int astc_cgt##SUF(C a, C b) { return astc_clt##SUF(b, a); }           \
    static inline int astc_cge##SUF(C a, C b) { return astc_cle##SUF(b, a); }           \
    static inline int astc_cisnan##SUF(C a) {                                           \
        return creal##SUF(a) != creal##SUF(a) || cimag##SUF(a) != cimag##SUF(a);        \
    }                                                                                   \
    static inline int astc_cisinf##SUF(C a) {                                           \
        return __builtin_isinf(creal##SUF(a)) || __builtin_isinf(cimag##SUF(a));       \
    }                                                                                   \
    static inline int astc_cisfinite##SUF(C a) {                                        \
        return __builtin_isfinite(creal##SUF(a)) && __builtin_isfinite(cimag##SUF(a));  \
    }
ASTC_COMPLEX_OPS(double, double complex, , ASTC_CMPLX)
ASTC_COMPLEX_OPS(float, float complex, f, ASTC_CMPLXF)

/* Python's `complex` (complex128), with CPython's algorithms: add, subtract and negate act on
 * each part as NumPy's do; abs is hypot of the parts; these are the others. The
 * errors Python raises (a zero divisor, cmath's range and domain errors) are checks the
 * generated code makes around the call, so each helper only computes. */

/* A product rounded before it is added: GCC 12's vectoriser fuses the products of a complex
 * multiply into vfmaddsub even under -ffp-contract=off (one rounding instead of two: an
 * infinity where CPython gets NaN, a last bit off); a barrier keeps them two operations. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_assoc_barrier)
#define ASTC_ROUNDED(x) __builtin_assoc_barrier(x)
#endif
#endif
#ifndef ASTC_ROUNDED
#define ASTC_ROUNDED(x) (x)
#endif

/* a * b as CPython's _Py_c_prod: the textbook formula, NaN where C99 recovers an infinity */
static inline double complex astc_pycmul(double complex a, double complex b) {
    const double ar = creal(a), ai = cimag(a), br = creal(b), bi = cimag(b);
    return ASTC_CMPLX(ASTC_ROUNDED(ar * br) - ASTC_ROUNDED(ai * bi),
                      ASTC_ROUNDED(ar * bi) + ASTC_ROUNDED(ai * br));
}

/* a / b as CPython's _Py_c_quot: Smith's algorithm dividing by the denominator, where NumPy
 * multiplies by its reciprocal (the last bit differs); NaN parts when a part of b is NaN. */
static inline double complex astc_pycdiv(double complex a, double complex b) {
    const double ar = creal(a), ai = cimag(a), br = creal(b), bi = cimag(b);
    const double abs_br = fabs(br), abs_bi = fabs(bi);
    if (abs_br >= abs_bi) {
        if (abs_br == 0.0) return ASTC_CMPLX(0.0, 0.0); /* ZeroDivisionError, checked */
        const double ratio = bi / br, denom = br + ASTC_ROUNDED(bi * ratio);
        return ASTC_CMPLX((ar + ASTC_ROUNDED(ai * ratio)) / denom,
                          (ai - ASTC_ROUNDED(ar * ratio)) / denom);
    }
    if (abs_bi >= abs_br) {
        const double ratio = br / bi, denom = ASTC_ROUNDED(br * ratio) + bi;
        return ASTC_CMPLX((ASTC_ROUNDED(ar * ratio) + ai) / denom,
                          (ASTC_ROUNDED(ai * ratio) - ar) / denom);
    }
    return ASTC_CMPLX(NAN, NAN);
}

#define ASTC_PY_E 2.7182818284590452354 /* Py_MATH_E */
/* cmath.exp: CPython's formula for finite z (exp(x - 1) * e past log(DBL_MAX / 4), so that
 * exp(x) may overflow while the result does not); C99's special values, as glibc's cexp. */
static inline double complex astc_pycexp(double complex z) {
    const double x = creal(z), y = cimag(z);
    if (!__builtin_isfinite(x) || !__builtin_isfinite(y)) return cexp(z);
    if (x > log(DBL_MAX / 4.0)) {
        const double l = exp(x - 1.0);
        return ASTC_CMPLX(l * cos(y) * ASTC_PY_E, l * sin(y) * ASTC_PY_E);
    }
    const double l = exp(x);
    return ASTC_CMPLX(l * cos(y), l * sin(y));
}

/* cmath.sqrt: CPython's scaled formula (subnormal parts scaled by 2**53); C99's special
 * values, as glibc's csqrt. */
static inline double complex astc_pycsqrt(double complex z) {
    const double x = creal(z), y = cimag(z);
    if (!__builtin_isfinite(x) || !__builtin_isfinite(y)) return csqrt(z);
    if (x == 0.0 && y == 0.0) return ASTC_CMPLX(0.0, y);
    double ax = fabs(x), s;
    const double ay = fabs(y);
    if (ax < DBL_MIN && ay < DBL_MIN) {
        ax = ldexp(ax, 53);
        s = ldexp(sqrt(ax + hypot(ax, ldexp(ay, 53))), -27);
    } else {
        ax /= 8.0;
        s = 2.0 * sqrt(ax + hypot(ax, ay / 8.0));
    }
    const double d = ay / (2.0 * s);
    return x >= 0.0 ? ASTC_CMPLX(s, copysign(d, y)) : ASTC_CMPLX(d, copysign(s, y));
}
#endif
