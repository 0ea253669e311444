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
    #include <string.h>
    /* GCC: these loops may be if-converted (no trapping math) and get x86-64-v4 (AVX-512) and
       x86-64-v3 (AVX2 with FMA) clones chosen at load time; other compilers build the plain
       versions.  (A clone list "avx2,fma" makes two clones, AVX2 without FMA and FMA on 128-bit
       registers.)  The AVX-512 clone is the faster where the CPU has it. */
    #if defined(__GNUC__) && !defined(__clang__)
    #pragma GCC push_options
    #pragma GCC optimize ("no-fast-math", "no-trapping-math")
    #endif
    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
    #define KN_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), unused))
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
    /* float64: exp(x) for x <= 0 as 2^k1 2^k2 exp(r), k = k1 + k2 = round(x / ln 2) split in two
       halves so that each power of two is a normal number and the product underflows gradually
       (denormal results as libm's, 0 below about -745), ln 2 in two parts (Cody and Waite: k ln2_hi
       is exact), exp(r) on |r| <= ln(2) / 2 by its degree-13 Taylor polynomial (truncation below
       5e-18 relative).  Every step stays in double arithmetic and 64-bit integer adds and shifts
       (the exponent bits are read off the rounding constant 1.5 * 2^52), which AVX2 vectorises;
       the result is within 2 ulp of libm's exp. */
    static inline double kn_pow2_int(double k) {
        /* 2^k for an integral k in [-1022, 1023] */
        double t = k + 6755399441055744.0 + 1023.0;
        uint64_t b, s;
        double sh = 6755399441055744.0;
        memcpy(&b, &t, 8);
        memcpy(&s, &sh, 8);
        b = (b - s) << 52;
        double out;
        memcpy(&out, &b, 8);
        return out;
    }
    static inline double kn_exp_neg_d(double x) {
        x = x < -750.0 ? -750.0 : x;
        x = x > 0.0 ? 0.0 : x;
        double k = (x * 1.4426950408889634 + 6755399441055744.0) - 6755399441055744.0;
        double r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
        /* Estrin's scheme (a short dependency chain: the loop's throughput, not its latency) */
        double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
        double a0 = 1.0 + r, a1 = 0.5 + r * (1.0 / 6.0);
        double a2 = 1.0 / 24.0 + r * (1.0 / 120.0), a3 = 1.0 / 720.0 + r * (1.0 / 5040.0);
        double a4 = 1.0 / 40320.0 + r * (1.0 / 362880.0);
        double a5 = 1.0 / 3628800.0 + r * (1.0 / 39916800.0);
        double a6 = 1.0 / 479001600.0 + r * (1.0 / 6227020800.0);
        double b0 = a0 + r2 * a1, b1 = a2 + r2 * a3, b2 = a4 + r2 * a5;
        double p = (b0 + r4 * b1) + r8 * (b2 + r4 * a6);
        double k1 = (k * 0.5 + 6755399441055744.0) - 6755399441055744.0;
        return (p * kn_pow2_int(k1)) * kn_pow2_int(k - k1);
    }
    /* the float64 RBF map of a Gram row, as kn_rbf_pass */
    KN_CLONES static void kn_rbf_pass_d(double* __restrict out, const double* __restrict xn,
                                        double xe, double g, int j0, int j1) {
        for (int j = j0; j < j1; j++) {
            double v = xe + xn[j] - 2.0 * out[j];
            v = v < 0.0 ? 0.0 : v;
            out[j] = kn_exp_neg_d(-g * v);
        }
    }
    /* Fused expansions (prediction): the kernel values of one row against a block of
       [j0, j1) of the support vectors land in a short buffer e (e[j - j0]) that stays in L1,
       and are combined with the coefficients at once (kn_dot_d), so no kernel block is ever
       written to memory. */
    /* e[j - j0] = exp(-g ||x - S_j||^2), S given transposed (d x m): the differences
       themselves, in float64, for few features */
    KN_CLONES static void kn_rbf_direct_d(double* __restrict e, const double* __restrict ST,
                                          int m, int d, const double* __restrict x, double g,
                                          int j0, int j1) {
        int len = j1 - j0;
        for (int j = 0; j < len; j++) e[j] = 0.0;
        for (int k = 0; k < d; k++) {
            const double* __restrict col = ST + (long) k * m + j0;
            double v = x[k];
            for (int j = 0; j < len; j++) {
                double df = col[j] - v;
                e[j] += df * df;
            }
        }
        for (int j = 0; j < len; j++) e[j] = kn_exp_neg_d(-g * e[j]);
    }
    /* e[j - j0] = exp(-g max(xe + yn[j] - 2 G[j], 0)): the map of a Gram row, out of place */
    KN_CLONES static void kn_rbf_gram_d(double* __restrict e, const double* __restrict G,
                                        const double* __restrict yn, double xe, double g,
                                        int j0, int j1) {
        for (int j = j0; j < j1; j++) {
            double v = xe + yn[j] - 2.0 * G[j];
            v = v < 0.0 ? 0.0 : v;
            e[j - j0] = kn_exp_neg_d(-g * v);
        }
    }
    /* the same from a float32 Gram row (a float32 product's values, mapped in float64) */
    KN_CLONES static void kn_rbf_gram_fd(double* __restrict e, const float* __restrict G,
                                         const double* __restrict yn, double xe, double g,
                                         int j0, int j1) {
        for (int j = j0; j < j1; j++) {
            double v = xe + yn[j] - 2.0 * (double) G[j];
            v = v < 0.0 ? 0.0 : v;
            e[j - j0] = kn_exp_neg_d(-g * v);
        }
    }
    /* sum_j e[j] c[j] over j < len, in eight lane sums added in a fixed order (so that a row's
       value never depends on the threads); GCC's vector types make the lanes explicit, since a
       reduction is vectorised only under reassociation */
    #if defined(__GNUC__)
    typedef double kn_v4d __attribute__((vector_size(32)));
    KN_CLONES static double kn_dot_d(const double* __restrict e, const double* __restrict c,
                                     int len) {
        kn_v4d a0 = {0, 0, 0, 0}, a1 = {0, 0, 0, 0}, x0, x1, y0, y1;
        int j = 0;
        for (; j + 8 <= len; j += 8) {
            memcpy(&x0, e + j, 32); memcpy(&x1, e + j + 4, 32);
            memcpy(&y0, c + j, 32); memcpy(&y1, c + j + 4, 32);
            a0 += x0 * y0;
            a1 += x1 * y1;
        }
        double acc[8];
        memcpy(acc, &a0, 32);
        memcpy(acc + 4, &a1, 32);
    #else
    static double kn_dot_d(const double* e, const double* c, int len) {
        double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        int j = 0;
        for (; j + 8 <= len; j += 8)
            for (int l = 0; l < 8; l++) acc[l] += e[j + l] * c[j + l];
    #endif
        for (int l = 0; j + l < len; l++) acc[l] += e[j + l] * c[j + l];
        return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    }
    #if defined(__GNUC__) && !defined(__clang__)
    #pragma GCC pop_options
    #endif
    """
    float kn_exp_neg(float x) nogil
    double kn_exp_neg_d(double x) nogil
    void kn_rbf_pass_d(double* out, const double* xn, double xe, double g, int j0, int j1) nogil
    void kn_rbf_pass(float* out, const float* xn, float xe, float g, int j0, int j1) nogil
    void kn_rbf_direct(float* out, const float* XT, int n, int d, const float* x, float g,
                       int j0, int j1) nogil
    void kn_rbf_direct_d(double* e, const double* ST, int m, int d, const double* x, double g,
                         int j0, int j1) nogil
    void kn_rbf_gram_d(double* e, const double* G, const double* yn, double xe, double g,
                       int j0, int j1) nogil
    void kn_rbf_gram_fd(double* e, const float* G, const double* yn, double xe, double g,
                        int j0, int j1) nogil
    double kn_dot_d(const double* e, const double* c, int len) nogil

