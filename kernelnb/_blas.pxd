# cython: language_level=3
# Level-1 BLAS on contiguous double vectors (scipy's BLAS, no GIL), shared (cimported) by the
# per-example loops of kernelnb.largescale._mlp and kernelnb.largescale._margin.
from scipy.linalg.cython_blas cimport ddot, daxpy, dscal


cdef inline double _dot(const double* a, const double* b, int n) noexcept nogil:
    cdef int one = 1
    return ddot(&n, <double*>a, &one, <double*>b, &one)


cdef inline void _axpy(double alpha, const double* x, double* y, int n) noexcept nogil:
    cdef int one = 1
    daxpy(&n, &alpha, <double*>x, &one, y, &one)


cdef inline void _scal(double alpha, double* x, int n) noexcept nogil:
    cdef int one = 1
    if n > 0:
        dscal(&n, &alpha, x, &one)
