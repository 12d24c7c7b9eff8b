/* A parallel float32 copy: the memory-bandwidth ceiling the benchmark compares kernels with. */
#include <stdint.h>

void astc_copy_f32(int64_t nthreads, const float* restrict src, float* restrict dst, int64_t n)
{
    #pragma omp parallel for simd num_threads(nthreads) schedule(static)
    for (int64_t i = 0; i < n; i++) dst[i] = src[i];
}
