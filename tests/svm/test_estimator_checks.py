"""scikit-learn's common estimator checks: the floor for API conformance and bad input."""
import pytest
from sklearn.utils.estimator_checks import (
    check_sample_weight_equivalence_on_dense_data,
    parametrize_with_checks,
)

from kernelnb.svm import SVC, SVR

# The check compares weighted and repeated-sample fits at rtol=1e-7, but a decomposition solver
# stops at a KKT gap of `tol` (1e-3 by default), so two equivalent problems reach solutions that
# differ at the 1e-4 level (scikit-learn's own SVC is marked the same way).  The equivalence of
# the *exact* optima is tested below with a tight tolerance.
_TOL_BOUND = {
    "check_sample_weight_equivalence_on_dense_data":
        "equivalent only at the exact optimum; tested with tol=1e-10 in this module",
}


@parametrize_with_checks(
    [SVC(sigma="scale"), SVC(kernel="linear"), SVR(sigma="scale")],
    expected_failed_checks=lambda est: _TOL_BOUND,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", [SVC(tol=1e-10), SVC(kernel="linear", tol=1e-10),
                                       SVR(tol=1e-10)], ids=repr)
def test_sample_weight_equivalence_at_tight_tolerance(estimator):
    check_sample_weight_equivalence_on_dense_data(type(estimator).__name__, estimator)
