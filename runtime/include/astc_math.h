/* astcompile runtime: math for generated kernels.
 *
 * The libm functions are re-declared simd("notinbranch") so GCC vectorises loops that call
 * them with glibc's libmvec variants (link -lmvec), without -ffast-math: libmvec is accurate
 * to a few ulp (<= 4) and handles NaN and +-inf like NumPy. Integer and floor/remainder
 * helpers give NumPy's answers where C is undefined (division by zero, INT_MIN / -1,
 * shifts >= the bit width, float -> int casts of NaN or out-of-range values).
 */
#ifndef ASTC_MATH_H
#define ASTC_MATH_H
#include <fcntl.h>
#include <fenv.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Floating-point exception flags are per thread. The caller reads the flags of the thread that
   called the kernel (runtime/fpflags.py: NumPy warns or raises from them); an OpenMP team's
   other threads clear theirs before their share and hand what it raised to the caller's. */
#define ASTC_FP_FLAGS (FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID)
static inline void astc_fp_enter(void)
{
    if (omp_get_thread_num() != 0) feclearexcept(ASTC_FP_FLAGS);
}
static inline void astc_fp_leave(int* team)
{
    const int raised = omp_get_thread_num() != 0 ? fetestexcept(ASTC_FP_FLAGS) : 0;
    if (raised) __atomic_fetch_or(team, raised, __ATOMIC_RELAXED);
}
static inline void astc_fp_join(int team)
{
    if (team) feraiseexcept(team);
}

/* The invalid flag of the calling thread's SSE arithmetic, read and cleared without libm:
   feclearexcept rewrites the x87 environment too (70 ns a call, a tenth of a count over 4096
   floats). A region whose float compares are C's own clears the flag they raised on its way
   out (structured_signals.py); x86-64 compares doubles and floats in SSE, whose MXCSR holds
   the flag in bit 0 (FE_INVALID). */
static inline int astc_invalid_raised(void)
{
#if defined(__x86_64__) && defined(__SSE__)
    return __builtin_ia32_stmxcsr() & FE_INVALID;
#else
    return fetestexcept(FE_INVALID);
#endif
}
static inline void astc_invalid_clear(void)
{
#if defined(__x86_64__) && defined(__SSE__)
    const unsigned csr = __builtin_ia32_stmxcsr();
    if (csr & FE_INVALID) __builtin_ia32_ldmxcsr(csr & ~(unsigned)FE_INVALID);
#else
    if (fetestexcept(FE_INVALID)) feclearexcept(FE_INVALID);
#endif
}

/* The threads a team may have. A positive count is the user's (OMP_NUM_THREADS,
   set_num_threads); a negative one is the default, -CPUs (runtime/parallel.py), of which only
   those idle now count: a team thread that finds no CPU free makes the caller wait for its
   static share at the join (at load 5 on 2 CPUs a clip of 4M floats took 4.6 ms on a team of
   two against 2.1 ms on one, and every size from 262k up lost). Idle: the CPUs less the tasks
   /proc/loadavg counts runnable besides the caller (our sleeping team threads are not),
   averaged over readings at most one per 10 ms (a reading costs a few microseconds). Without
   /proc, all of them. /proc/loadavg counts the whole host: on CPUs a process holds by affinity
   or cgroup quota (4 of 64 on a busy host), its runnable tasks are taken as spread evenly over
   the host's online CPUs (astc_busy4), or a team would never open there. */
static inline int64_t astc_runnable_others(void)
{
    char buf[128];
    const int fd = open("/proc/loadavg", O_RDONLY);
    if (fd < 0) return 0;
    const ssize_t len = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (len <= 0) return 0;
    buf[len] = 0;
    const char* p = buf;
    for (int field = 0; field < 3 && p; field++) p = strchr(p + 1, ' ');  /* "1.0 0.9 0.8 R/T" */
    const long running = p ? strtol(p + 1, NULL, 10) : 1;
    return running > 1 ? running - 1 : 0;
}
/* Others' runnable tasks on our `cpus` CPUs of the `online` the host has, times 4. */
static inline int64_t astc_busy4(int64_t others, int64_t cpus, int64_t online)
{
    return 4 * others * cpus / (online > cpus ? online : cpus);
}
static inline int64_t astc_threads(int64_t nthreads)
{
    static int64_t next_ns = 0, busy4 = -1;  /* others' runnable tasks, times 4, averaged */
    static int64_t online = 0;  /* read once: sysconf reads /sys, 5 us */
    if (nthreads >= 0) return nthreads;
    struct timespec now;
#ifdef CLOCK_MONOTONIC_COARSE
    clock_gettime(CLOCK_MONOTONIC_COARSE, &now);  /* a few ns: the vDSO's last tick */
#else
    clock_gettime(CLOCK_MONOTONIC, &now);
#endif
    const int64_t ns = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
    if (ns >= __atomic_load_n(&next_ns, __ATOMIC_RELAXED)) {
        __atomic_store_n(&next_ns, ns + 10000000LL, __ATOMIC_RELAXED);
        int64_t cpus = __atomic_load_n(&online, __ATOMIC_RELAXED);
        if (!cpus) __atomic_store_n(&online, cpus = sysconf(_SC_NPROCESSORS_ONLN), __ATOMIC_RELAXED);
        const int64_t seen = astc_busy4(astc_runnable_others(), -nthreads, cpus),
                      old = __atomic_load_n(&busy4, __ATOMIC_RELAXED);
        __atomic_store_n(&busy4, old < 0 ? seen : (3 * old + seen) / 4, __ATOMIC_RELAXED);
    }
    const int64_t idle = -nthreads - (__atomic_load_n(&busy4, __ATOMIC_RELAXED) + 2) / 4;
    return idle < 1 ? 1 : idle;
}
/* The threads of a team for `work` element operations, `cost` being what waking them costs
   in such operations: 1 (no team) unless the share the others take off the calling thread,
   work * (n - 1) / n, exceeds it (runtime's structured loops: structured_parallel.py). */
static inline int astc_team_pays(int64_t n, int64_t work, int64_t cost)
{
    return n > 1 && work * (n - 1) >= cost * n;
}
static inline int64_t astc_team(int64_t nthreads, int64_t work, int64_t cost)
{
    if (!astc_team_pays(nthreads < 0 ? -nthreads : nthreads, work, cost)) return 1;
    const int64_t n = astc_threads(nthreads);
    return astc_team_pays(n, work, cost) ? n : 1;
}
/* The iterations of a loop storing `size`-byte elements from `base[first]` on to run before
   its vector loop, so that each vector store fills whole 64-byte lines (0 when the elements
   never meet a line's start; at most `trip`). A 512-bit store across two lines halved a
   piecewise loop's speed on a Zen 4 (262k floats: 45 us stored on lines, 51-73 us at 16 or 48
   bytes past one: NumPy's buffers start 16 bytes into a line or more). */
static inline int64_t astc_line_head(const void* base, int64_t first, int64_t size, int64_t trip)
{
    const int64_t at = (int64_t)(((uintptr_t)base + (uintptr_t)(first * size)) % 64);
    const int64_t head = at % size ? 0 : (64 - at) % 64 / size;
    return head < trip ? head : trip;
}
/* A team's static share of `trip` such iterations, whole lines each: the next thread's part
   starts on a line too. */
static inline int64_t astc_line_chunk(int64_t trip, int64_t team, int64_t size)
{
    const int64_t line = size < 64 ? 64 / size : 1, share = (trip + team - 1) / team;
    return share > line ? (share + line - 1) / line * line : line;
}

#define ASTC_SIMD __attribute__((simd("notinbranch")))
#define ASTC_DECL2(name) ASTC_SIMD double name(double); ASTC_SIMD float name##f(float);
#define ASTC_DECL2B(name) \
    ASTC_SIMD double name(double, double); ASTC_SIMD float name##f(float, float);
ASTC_DECL2(exp) ASTC_DECL2(exp2) ASTC_DECL2(expm1) ASTC_DECL2(log) ASTC_DECL2(log2)
ASTC_DECL2(log10) ASTC_DECL2(log1p) ASTC_DECL2(sin) ASTC_DECL2(cos) ASTC_DECL2(tan)
ASTC_DECL2(asin) ASTC_DECL2(acos) ASTC_DECL2(atan) ASTC_DECL2(sinh) ASTC_DECL2(cosh)
ASTC_DECL2(tanh) ASTC_DECL2(asinh) ASTC_DECL2(acosh) ASTC_DECL2(atanh) ASTC_DECL2(cbrt)
ASTC_DECL2B(pow) ASTC_DECL2B(atan2) ASTC_DECL2B(hypot)

/* c ? a : b on a float without a jump: GCC turns a float ?: in scalar code back into a branch,
   which mispredicts on data (a loop over random values ran 2-8x slower), while the bits picked
   with a mask stay branch-free, and the vectoriser takes them as it takes ?:. Every bit of
   the chosen value is kept (NaN payloads, signed zeros). For selects of scalars
   (passes/ifconvert.py).
   astc_both is the same pick for np.where(c, a / b, 0) on arrays: NumPy computes a / b on
   every element and warns of a division by zero on one the where then drops, while GCC
   computes a side only where it is picked (a masked vdivpd on AVX-512, a branch in scalar
   code): the flag, and NumPy's warning (jit/fp_errors.py), were lost. Both sides reach its
   result through bits ANDed with astc_zero_bits, zero at run time (nobody writes it), which
   GCC cannot know of a weak symbol. */
__attribute__((weak)) uint64_t astc_zero_bits = 0;
#define ASTC_SELECT(T, U)                                                               \
    static inline T astc_blend_##T(int c, T a, T b, U keep)                             \
    {                                                                                   \
        U ia, ib, r;                                                                    \
        T out;                                                                          \
        __builtin_memcpy(&ia, &a, sizeof ia);                                           \
        __builtin_memcpy(&ib, &b, sizeof ib);                                           \
        const U mask = -(U)(c != 0);                                                    \
        r = (ia & mask) | (ib & ~mask) | ((ia | ib) & keep);                            \
        __builtin_memcpy(&out, &r, sizeof out);                                         \
        return out;                                                                     \
    }                                                                                   \
    static inline T astc_select_##T(int c, T a, T b) { return astc_blend_##T(c, a, b, 0); } \
    static inline T astc_both_##T(int c, T a, T b)                                      \
    {                                                                                   \
        return astc_blend_##T(c, a, b, (U)astc_zero_bits);                             \
    }
ASTC_SELECT(double, uint64_t)
ASTC_SELECT(float, uint32_t)
/* The same pick in a loop on SIMD lanes (structured_parallel.py), where ?: is a vector blend:
   the bits of astc_select made GCC load each operand read from memory twice more, as integers
   and for the compare (a clip of 262k floats: 54 us against 46 us when they were not 64-byte
   aligned). */
static inline double astc_pick_double(int c, double a, double b) { return c ? a : b; }
static inline float astc_pick_float(int c, float a, float b) { return c ? a : b; }

/* A value nothing reads, computed for its floating-point flags (d = x[i] - y[i], d unused:
   NumPy warns of inf - inf): an empty asm that takes it in a register is all GCC sees reading
   it, so the subtraction stays and raises its flag; no instruction is added. */
#if defined(__x86_64__)
#define ASTC_FLOAT_REGISTER "x"
#elif defined(__aarch64__)
#define ASTC_FLOAT_REGISTER "w"
#else
#define ASTC_FLOAT_REGISTER "g"
#endif
static inline void astc_keep_double(double v) { __asm__ volatile("" : : ASTC_FLOAT_REGISTER(v)); }
static inline void astc_keep_float(float v) { __asm__ volatile("" : : ASTC_FLOAT_REGISTER(v)); }
/* An integer likewise (np.int64 scalars' a * b, a // b: their helpers raise the overflow and
   divide-by-zero flags), in a general register. */
static inline void astc_keep_int(int64_t v) { __asm__ volatile("" : : "r"(v)); }

/* x OP y ? a : b on floats in a loop that runs scalar (structured_signals.py): a quiet
   compare's mask picks in the vector register (vcmpsd's ordered-quiet predicate, vblendvpd),
   as short as the maxsd Numba emits for `a if a > 1.0 else 1.0` (which raises the invalid flag
   on NaN); the compare's result through astc_select's integer masks made Newton's iteration
   over 100k floats 7% slower (3.84 ms against 3.60 ms). Bits kept as astc_select keeps them. */
#ifdef __AVX__
/* immintrin.h's _mm_cmp_sd and _mm_blendv_pd, spelled as the builtins they are: including
   that header tripled the compile time of every kernel (0.9 s against 0.3 s on 2 loaded CPUs) */
typedef double astc_v2d __attribute__((vector_size(16)));
typedef float astc_v4f __attribute__((vector_size(16)));
#define ASTC_WHERE(NAME, PRED)                                                          \
    static inline double astc_where_##NAME##_double(double x, double y, double a, double b) \
    {                                                                                   \
        const astc_v2d m = __builtin_ia32_cmpsd((astc_v2d){x, 0}, (astc_v2d){y, 0}, PRED); \
        return __builtin_ia32_blendvpd((astc_v2d){b, 0}, (astc_v2d){a, 0}, m)[0];       \
    }                                                                                   \
    static inline float astc_where_##NAME##_float(float x, float y, float a, float b)   \
    {                                                                                   \
        const astc_v4f m = __builtin_ia32_cmpss((astc_v4f){x}, (astc_v4f){y}, PRED);    \
        return __builtin_ia32_blendvps((astc_v4f){b}, (astc_v4f){a}, m)[0];             \
    }
#else
#define ASTC_WHERE(NAME, PRED)                                                          \
    static inline double astc_where_##NAME##_double(double x, double y, double a, double b) \
    {                                                                                   \
        return astc_select_double(__builtin_is##NAME(x, y), a, b);                      \
    }                                                                                   \
    static inline float astc_where_##NAME##_float(float x, float y, float a, float b)   \
    {                                                                                   \
        return astc_select_float(__builtin_is##NAME(x, y), a, b);                       \
    }
#endif
/* vcmpsd's ordered, quiet predicates (_CMP_LT_OQ, _CMP_LE_OQ, _CMP_GT_OQ, _CMP_GE_OQ) */
ASTC_WHERE(less, 0x11) ASTC_WHERE(lessequal, 0x12) ASTC_WHERE(greater, 0x1e) ASTC_WHERE(greaterequal, 0x1d)

/* Ordered comparisons of floats that raise no invalid flag on NaN, as NumPy's don't (a raised
   flag makes a region run its statements again: jit/fp_errors.py). C's < on NaN is signalling,
   and GCC's vector code uses signalling predicates for __builtin_isless too, so no NaN may
   reach the compare: it is replaced by its bits first (astc_select: GCC cannot fold it back
   into the compare), and GCC vectorises the == tests with quiet predicates. A strict compare
   needs one replacement per operand: a NaN on the left becomes the value that is never
   greater (-inf for >), one on the right the value nothing is greater than (+inf), so the
   result is false as IEEE says, with no masks to combine (count of x > t over 262k: 18.6 us
   against 21.6 us for the masked form below, 17.7 us for the signalling >). The non-strict
   ones cannot (-inf >= -inf holds): a NaN becomes +0 and the result requires both ordered. */
#define ASTC_QUIET_STRICT(T, NAME, OP, NEVER)                                           \
    static inline int astc_##NAME##_##T(T a, T b)                                       \
    {                                                                                   \
        const T never = NEVER(T) __builtin_inf();                                       \
        return astc_select_##T(a == a, a, never) OP astc_select_##T(b == b, b, -never); \
    }
#define ASTC_QUIET_COMPARE(T, NAME, OP)                                                 \
    static inline int astc_##NAME##_##T(T a, T b)                                       \
    {                                                                                   \
        const T qa = astc_select_##T(a == a, a, (T)0), qb = astc_select_##T(b == b, b, (T)0); \
        return (a == a) & (b == b) & (qa OP qb);                                        \
    }
#define ASTC_QUIET_COMPARES(T)                                                          \
    ASTC_QUIET_STRICT(T, less, <, +) ASTC_QUIET_COMPARE(T, less_equal, <=)              \
    ASTC_QUIET_STRICT(T, greater, >, -) ASTC_QUIET_COMPARE(T, greater_equal, >=)
ASTC_QUIET_COMPARES(double) ASTC_QUIET_COMPARES(float)

/* NumPy's maximum/minimum propagate NaN (from either side); fmax/fmin ignore it. Quiet, as
   NumPy's are. Of two equal values maximum/minimum give the second (np.maximum(-0.0, 0.0) is
   0.0: maxpd's rule, scalar and SIMD alike), and so do fmax/fmin (only 0-d values reach
   them, their operands ordered as NumPy picks: targets/base.py); clip keeps x at a bound
   equal to it
   (np.clip(-0.0, 0.0, 1.0) is -0.0). NumPy's sign: NaN stays NaN, +-0 gives +0. Picked with
   astc_select: GCC leaves loops over nested ?: of these unvectorised ("control flow in loop").
   ASTC_AT_PICK: np.maximum.at/minimum.at's loop is a scatter, never vectorised, whose next
   element may read the element just stored: a select there chains every element's load to the
   last one's compare (2.5x NumPy's time for 200,000 values into 1,000 bins); a branch on
   non-NaN operands, the same pick (equal values give the second), lets the loads run ahead. */
#define ASTC_PICKS(T)                                                                   \
    static inline T astc_maximum_##T(T a, T b)                                          \
    { return astc_select_##T(astc_greater_##T(a, b) | (a != a), a, b); }                \
    static inline T astc_minimum_##T(T a, T b)                                          \
    { return astc_select_##T(astc_less_##T(a, b) | (a != a), a, b); }                   \
    static inline T astc_clip_##T(T x, T lo, T hi)                                      \
    {                                                                                   \
        const T low = astc_select_##T(astc_greater_equal_##T(x, lo) | (x != x), x, lo); \
        return astc_select_##T(astc_less_equal_##T(low, hi) | (low != low), low, hi);   \
    }                                                                                   \
    static inline T astc_maximum_at_##T(T a, T b) /* np.maximum.at's loop: warns of NaN */ \
    {                                                                                   \
        if (__builtin_expect((a != a) | (b != b), 0)) {                                 \
            feraiseexcept(FE_INVALID);                                                  \
            return astc_maximum_##T(a, b);                                              \
        }                                                                               \
        return a > b ? a : b; /* astc_maximum's pick, branched: see ASTC_AT_PICK */     \
    }                                                                                   \
    static inline T astc_minimum_at_##T(T a, T b)                                       \
    {                                                                                   \
        if (__builtin_expect((a != a) | (b != b), 0)) {                                 \
            feraiseexcept(FE_INVALID);                                                  \
            return astc_minimum_##T(a, b);                                              \
        }                                                                               \
        return a < b ? a : b;                                                           \
    }                                                                                   \
    static inline T astc_fmax_##T(T a, T b)                                             \
    { return astc_select_##T(astc_greater_##T(a, b) | (b != b), a, b); }                \
    static inline T astc_fmin_##T(T a, T b)                                             \
    { return astc_select_##T(astc_less_##T(a, b) | (b != b), a, b); }                   \
    static inline T astc_sign_##T(T a)                                                  \
    {                                                                                   \
        const T q = astc_select_##T(a == a, a, (T)0); /* NaN: +0, quiet to compare */   \
        const T zero_or_nan = astc_select_##T(a == 0, (T)0, a);                         \
        return astc_select_##T(q > 0, (T)1, astc_select_##T(q < 0, (T)-1, zero_or_nan)); \
    }
ASTC_PICKS(double) ASTC_PICKS(float)

/* NumPy's scalar operators on integers (np.int8(100) + np.int8(100)) warn "overflow
   encountered in scalar add" where its array loops wrap silently: the wrapped value, and the
   CPU's overflow flag raised, so the statements run again and NumPy warns (jit/fp_errors.py). */
#define ASTC_SCALAR_INT_MATH(T, OP)                                                     \
    static inline T astc_scalar_##OP##_##T(T a, T b)                                    \
    {                                                                                   \
        T r;                                                                            \
        if (__builtin_##OP##_overflow(a, b, &r)) feraiseexcept(FE_OVERFLOW);            \
        return r;                                                                       \
    }
/* -s and abs(s) of one (NumPy's "scalar negative"/"scalar absolute"): 0 - s overflows just
   where NumPy warns, at the most negative signed value and at any unsigned value but 0. */
#define ASTC_SCALAR_INT_SIGN(T)                                                         \
    static inline T astc_scalar_neg_##T(T a) { return astc_scalar_sub_##T(0, a); }     \
    static inline T astc_scalar_abs_##T(T a) { return a < 0 ? astc_scalar_neg_##T(a) : a; }
#define ASTC_SCALAR_INT(T) ASTC_SCALAR_INT_MATH(T, add) ASTC_SCALAR_INT_MATH(T, sub) ASTC_SCALAR_INT_MATH(T, mul) \
    ASTC_SCALAR_INT_SIGN(T)
ASTC_SCALAR_INT(int8_t) ASTC_SCALAR_INT(int16_t) ASTC_SCALAR_INT(int32_t) ASTC_SCALAR_INT(int64_t)
ASTC_SCALAR_INT(uint8_t) ASTC_SCALAR_INT(uint16_t) ASTC_SCALAR_INT(uint32_t) ASTC_SCALAR_INT(uint64_t)

/* np.logaddexp, log(exp(a) + exp(b)) without overflow, transcribed from NumPy's
   npy_logaddexp: equal arguments (infinities of one sign too) give a + log(2), a NaN gives NaN. */
#define ASTC_LOGADDEXP(T, SUF)                                                          \
    static inline T astc_logaddexp_##T(T a, T b) {                                      \
        if (a == b) return a + (T)0.693147180559945309417232121458176568;               \
        const T d = a - b;                                                              \
        if (d > 0) return a + log1p##SUF(exp##SUF(-d));                                 \
        if (d <= 0) return b + log1p##SUF(exp##SUF(d));                                 \
        return d;                                                                       \
    }
ASTC_LOGADDEXP(double, ) ASTC_LOGADDEXP(float, f)

/* Integer floor division and remainder with Python signs; x // 0 == x % 0 == 0 and raises the
   divide-by-zero flag, INT_MIN // -1 wraps and raises the overflow flag, as NumPy's do (the
   region reruns its statements for NumPy's warning: jit/fp_errors.py). The flag is raised on
   the branch taken only then: GCC keeps it out of the common path. */
__attribute__((cold, noinline)) static inline void astc_raise_fp(int flag)
{
    feraiseexcept(flag);
}
#define ASTC_INT_DIVMOD(T, MIN)                                                         \
    static inline T astc_floordiv_##T(T a, T b) {                                       \
        if (__builtin_expect(b == 0, 0)) { astc_raise_fp(FE_DIVBYZERO); return 0; }     \
        if (b == -1) {  /* no trap on INT_MIN / -1: wraps (-fwrapv) */                   \
            if (__builtin_expect(a == MIN, 0)) astc_raise_fp(FE_OVERFLOW);              \
            return (T)(0 - a);                                                          \
        }                                                                               \
        T q = a / b;                                                                    \
        return (T)(q - ((a % b != 0) & ((a < 0) != (b < 0))));                          \
    }                                                                                   \
    static inline T astc_mod_##T(T a, T b) {                                            \
        if (__builtin_expect(b == 0, 0)) { astc_raise_fp(FE_DIVBYZERO); return 0; }     \
        if (b == -1) return 0;                                                          \
        T r = a % b;                                                                    \
        return (T)((r != 0 && ((r < 0) != (b < 0))) ? r + b : r);                       \
    }
#define ASTC_UINT_DIVMOD(T)                                                             \
    static inline T astc_floordiv_##T(T a, T b) {                                       \
        if (__builtin_expect(b == 0, 0)) { astc_raise_fp(FE_DIVBYZERO); return 0; }     \
        return (T)(a / b);                                                              \
    }                                                                                   \
    static inline T astc_mod_##T(T a, T b) {                                            \
        if (__builtin_expect(b == 0, 0)) { astc_raise_fp(FE_DIVBYZERO); return 0; }     \
        return (T)(a % b);                                                              \
    }
ASTC_INT_DIVMOD(int8_t, INT8_MIN) ASTC_INT_DIVMOD(int16_t, INT16_MIN)
ASTC_INT_DIVMOD(int32_t, INT32_MIN) ASTC_INT_DIVMOD(int64_t, INT64_MIN)
ASTC_UINT_DIVMOD(uint8_t) ASTC_UINT_DIVMOD(uint16_t) ASTC_UINT_DIVMOD(uint32_t)
ASTC_UINT_DIVMOD(uint64_t)

/* Shifts: a count >= the bit width (or negative) gives 0, or -1 for >> of a negative value. */
#define ASTC_SHIFTS(T, UT)                                                              \
    static inline T astc_lshift_##T(T a, T b) {                                         \
        return ((UT)b < sizeof(T) * 8) ? (T)((UT)a << (UT)b) : (T)0;                    \
    }                                                                                   \
    static inline T astc_rshift_##T(T a, T b) {                                         \
        return ((UT)b < sizeof(T) * 8) ? (T)(a >> (UT)b) : (T)(a < 0 ? -1 : 0);         \
    }
ASTC_SHIFTS(int8_t, uint8_t) ASTC_SHIFTS(int16_t, uint16_t) ASTC_SHIFTS(int32_t, uint32_t)
ASTC_SHIFTS(int64_t, uint64_t) ASTC_SHIFTS(uint8_t, uint8_t) ASTC_SHIFTS(uint16_t, uint16_t)
ASTC_SHIFTS(uint32_t, uint32_t) ASTC_SHIFTS(uint64_t, uint64_t)

/* Float floor division and remainder, transcribed from NumPy's npy_divmod. */
#define ASTC_FLOAT_DIVMOD(T, SUF)                                                       \
    static inline T astc_fmod_pos_##T(T a, T b, T *div_out) {                           \
        T mod = fmod##SUF(a, b);                                                        \
        if (b == 0) { *div_out = a / b; return mod; }                                   \
        T div = (a - mod) / b;                                                          \
        if (mod != 0) {                                                                 \
            if ((b < 0) != (mod < 0)) { mod += b; div -= (T)1; }                        \
        } else {                                                                        \
            mod = copysign##SUF((T)0, b);                                               \
        }                                                                               \
        T fl;                                                                           \
        if (div != 0) {                                                                 \
            fl = floor##SUF(div);                                                       \
            if (div - fl > (T)0.5) fl += (T)1;                                          \
        } else {                                                                        \
            fl = copysign##SUF((T)0, a / b);                                            \
        }                                                                               \
        *div_out = fl;                                                                  \
        return mod;                                                                     \
    }                                                                                   \
    static inline T astc_floordiv_##T(T a, T b) {                                       \
        T d; astc_fmod_pos_##T(a, b, &d); return d;                                     \
    }                                                                                   \
    static inline T astc_mod_##T(T a, T b) {                                            \
        T d; return astc_fmod_pos_##T(a, b, &d);                                        \
    }
ASTC_FLOAT_DIVMOD(float, f)
ASTC_FLOAT_DIVMOD(double, )

/* A constant the code casts (1e300 to float32, which NumPy warns of at every call), read at
 * run time: GCC would fold the conversion, and its overflow flag with it. */
static inline double astc_at_run_time(double x) { volatile double v = x; return v; }

/* Float -> int casts as NumPy does on x86-64: NaN and out-of-range give INT_MIN of the
 * 32- or 64-bit conversion, with the invalid flag the conversion instruction raises there
 * (NumPy's "invalid value encountered in cast"); narrower targets truncate the 32-bit result. */
static inline int32_t astc_f2i32(double x) {
    if (x > -2147483649.0 && x < 2147483648.0) return (int32_t)x;
    feraiseexcept(FE_INVALID);
    return INT32_MIN;
}
static inline int64_t astc_f2i64(double x) {
    if (x >= -9223372036854775808.0 && x < 9223372036854775808.0) return (int64_t)x;
    feraiseexcept(FE_INVALID);
    return INT64_MIN;
}

/* A NaN result with the sign NumPy's own loop gives it (libmvec's vector functions, glibc's
 * scalar ones and NumPy's SIMD loops differ there; codegen/nan_signs.py asks NumPy): `in` for
 * a NaN argument (0 its sign, 1 the other, 2 +, 3 -), `neg` for a NaN from a number. */
#define ASTC_NANSIGN(T, SUF)                                                            \
    static inline T astc_nansign_##T(T r, T x, int in, int neg) {                      \
        const T s = in == 0 ? x : in == 1 ? -x : in == 2 ? (T)1 : (T)-1;               \
        return r == r ? r : copysign##SUF(r, x == x ? (neg ? (T)-1 : (T)1) : s);        \
    }
ASTC_NANSIGN(double, ) ASTC_NANSIGN(float, f)

/* np.searchsorted(a, v, side) of one value v in a 1-D array a of n elements, stride s (in
   elements), inside a loop region: NumPy's binary search, probe for probe (so an unsorted a
   gives NumPy's answer too), in NumPy's order, where NaN comes after every number; quiet. */
#define ASTC_SEARCH(T, LESS)                                                            \
    static inline int64_t astc_search_left_##T(const T* a, int64_t s, int64_t n, T v)  \
    {                                                                                   \
        int64_t lo = 0, hi = n;                                                         \
        while (lo < hi) {                                                               \
            const int64_t mid = lo + ((hi - lo) >> 1);                                  \
            if (LESS(a[mid * s], v)) lo = mid + 1; else hi = mid;                       \
        }                                                                               \
        return lo;                                                                      \
    }                                                                                   \
    static inline int64_t astc_search_right_##T(const T* a, int64_t s, int64_t n, T v) \
    {                                                                                   \
        int64_t lo = 0, hi = n;                                                         \
        while (lo < hi) {                                                               \
            const int64_t mid = lo + ((hi - lo) >> 1);                                  \
            if (LESS(v, a[mid * s])) hi = mid; else lo = mid + 1;                       \
        }                                                                               \
        return lo;                                                                      \
    }
#define ASTC_SORT_LESS(T)                                                               \
    static inline int astc_sort_less_##T(T a, T b)                                      \
    { return astc_less_##T(a, b) | ((b != b) & (a == a)); }
#define ASTC_INT_LESS(a, b) ((a) < (b))
ASTC_SORT_LESS(double) ASTC_SORT_LESS(float)
ASTC_SEARCH(double, astc_sort_less_double) ASTC_SEARCH(float, astc_sort_less_float)
ASTC_SEARCH(int64_t, ASTC_INT_LESS) ASTC_SEARCH(int32_t, ASTC_INT_LESS)

/* np.interp(x, xp, fp) of one value x (n >= 1 points, strides sx and sf): NumPy's loop for
   one value. One point gives fp[0]; NaN gives itself; the interval j with xp[j] <= x <
   xp[j + 1] is found as NumPy finds it for a first value (a linear search of up to 4 points;
   else its guess, 1, and the two intervals after it, then bisection, of 8 points past the
   guess when x is below the ninth), so an unsorted xp gives NumPy's answer too; the value at
   a point is fp there, and a NaN from one end of the interval is tried from the other.
   Comparisons are quiet. */
static inline int64_t astc_interp_interval(const double* xp, int64_t sx, int64_t n, double x)
{
    if (astc_greater_double(x, xp[(n - 1) * sx])) return n;
    if (astc_less_double(x, xp[0])) return -1;
    int64_t lo = 1, hi = n;
    if (n <= 4) {
        while (lo < n && astc_greater_equal_double(x, xp[lo * sx])) lo++;
        return lo - 1;
    }
    if (astc_less_double(x, xp[sx])) return 0;
    if (astc_less_double(x, xp[2 * sx])) return 1;
    if (astc_less_double(x, xp[3 * sx])) return 2;
    lo = 3;
    if (n > 10 && astc_less_double(x, xp[9 * sx])) hi = 9;
    while (lo < hi) {
        const int64_t mid = lo + ((hi - lo) >> 1);
        if (astc_greater_equal_double(x, xp[mid * sx])) lo = mid + 1; else hi = mid;
    }
    return lo - 1;
}
static inline double astc_interp_double(
    const double* xp, int64_t sx, const double* fp, int64_t sf, int64_t n, double x)
{
    if (n == 1) return fp[0];
    if (x != x) return x;
    const int64_t j = astc_interp_interval(xp, sx, n, x);
    if (j == -1) return fp[0];
    if (j >= n - 1) return fp[(n - 1) * sf];
    const double x0 = xp[j * sx], x1 = xp[(j + 1) * sx], y0 = fp[j * sf], y1 = fp[(j + 1) * sf];
    if (x0 == x) return y0;
    const double slope = (y1 - y0) / (x1 - x0);
    double y = slope * (x - x0) + y0;
    if (y != y) {
        y = slope * (x - x1) + y1;
        if (y != y && y0 == y1) y = y0;
    }
    return y;
}

/* np.polyval(c, x) of one value x and n >= 1 coefficients (stride s): NumPy's loop, y = 0
   then y = y * x + c[k], each a float64 operation (no fused multiply-add: -ffp-contract=off). */
static inline double astc_polyval_double(const double* c, int64_t s, int64_t n, double x)
{
    double y = 0.0;
    for (int64_t k = 0; k < n; k++) y = y * x + c[k * s];
    return y;
}

#include "astc_complex.h"
#include "astc_median.h"
#endif
