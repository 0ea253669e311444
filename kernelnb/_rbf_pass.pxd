# cython: language_level=3
# The one RBF pass of kernelnb, shared (cimported) by kernelnb._kernels and kernelnb.svm._smo.
#
# Element-wise kernel maps in plain C that the compiler vectorises (the libm expf call in a loop
# is not: at d = 2 it was three quarters of a kernel row's cost).  exp is evaluated as
# 2^k exp(r) with k = round(x / ln 2), |r| <= ln(2) / 2 and exp(r) by its degree-7 Taylor
# polynomial (relative error below 1e-8, under float32's 6e-8).  The functions are compiled with
# IEEE semantics also where a module is built with -ffast-math (kernelnb._kernels): the pragma
# below turns fast-math off for them, so the rounding trick (t + 1.5 * 2^23) - 1.5 * 2^23 is
# kept as written (under -ffast-math it was folded away: errors of 100%), and then turns trapping
# math off again, in that order, so that the loops still vectorise (no-fast-math alone makes
# them scalar, eight times slower).
cdef extern from *:
    """
    #include <stdint.h>
    /* GCC: these loops may be if-converted (no trapping math) and get an AVX2 clone chosen at
       load time; other compilers build the plain versions. */
    #if defined(__GNUC__) && !defined(__clang__)
    #pragma GCC push_options
    #pragma GCC optimize ("no-fast-math", "no-trapping-math")
    #endif
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define KN_CLONES __attribute__((target_clones("avx2,fma", "default"), unused))
    #elif defined(__GNUC__)
    #define KN_CLONES __attribute__((unused))
    #else
    #define KN_CLONES
    #endif
    static inline float kn_exp_neg(float x) {
        x = x < -87.0f ? -87.0f : x;
        float k = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
        float r = (x - k * 0.693145751953125f) - k * 1.428606820309417232e-6f;
        float p = 1.0f / 5040.0f;
        p = p * r + 1.0f / 720.0f;
        p = p * r + 1.0f / 120.0f;
        p = p * r + 1.0f / 24.0f;
        p = p * r + 1.0f / 6.0f;
        p = p * r + 0.5f;
        p = p * r + 1.0f;
        p = p * r + 1.0f;
        union { int32_t i; float f; } u;
        u.i = ((int32_t) k + 127) << 23;
        return p * u.f;
    }
    /* out[j] = exp(-g max(xe + xn[j] - 2 out[j], 0)) for j in [j0, j1): the RBF map of a Gram row */
    KN_CLONES static void kn_rbf_pass(float* __restrict out, const float* __restrict xn, float xe, float g,
                            int j0, int j1) {
        for (int j = j0; j < j1; j++) {
            float v = xe + xn[j] - 2.0f * out[j];
            v = v < 0.0f ? 0.0f : v;
            out[j] = kn_exp_neg(-g * v);
        }
    }
    /* out[j] = exp(-g ||x - X_j||^2) for j in [j0, j1), X given transposed (d x n, column j is X_j):
       for small d, d sequential passes beat a GEMM whose inner dimension is d */
    KN_CLONES static void kn_rbf_direct(float* __restrict out, const float* __restrict XT, int n, int d,
                              const float* __restrict x, float g, int j0, int j1) {
        for (int j = j0; j < j1; j++) out[j] = 0.0f;
        for (int k = 0; k < d; k++) {
            const float* __restrict col = XT + (long) k * n;
            float v = x[k];
            for (int j = j0; j < j1; j++) {
                float df = col[j] - v;
                out[j] += df * df;
            }
        }
        for (int j = j0; j < j1; j++) out[j] = kn_exp_neg(-g * out[j]);
    }
    #if defined(__GNUC__) && !defined(__clang__)
    #pragma GCC pop_options
    #endif
    """
    float kn_exp_neg(float x) nogil
    void kn_rbf_pass(float* out, const float* xn, float xe, float g, int j0, int j1) nogil
    void kn_rbf_direct(float* out, const float* XT, int n, int d, const float* x, float g,
                       int j0, int j1) nogil

