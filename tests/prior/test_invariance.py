"""Invariant SVMs (Chapelle's thesis ch. 6) against independent computations: finite
differences, explicit feature maps, a direct solve of functional (6.1), the plain SVC."""
import numpy as np
import pytest
from scipy.optimize import minimize

from kernelnb import kernels as K
from kernelnb.prior.invariance import (InvariantKPCASVC, InvariantSVC, LinearInvariantSVC,
                                       VirtualSVC, _pair_coefficients, invariant_linear_map,
                                       kernel_input_derivative, kernel_tangent_gram,
                                       scale_free_invariance, tangent_vectors, transform_points)
from kernelnb.svm import SVC

EXACT = dict(precision="float64", tol=1e-9)


def circle(n, seed):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, (n, 2))
    return X, np.where((X ** 2).sum(1) > 0.7, 1, -1)


def fd_directional(kern, P, V, Y, h=1e-5):
    return np.array([[(kern(P[i:i + 1] + h * V[i:i + 1], Y[j:j + 1])
                       - kern(P[i:i + 1] - h * V[i:i + 1], Y[j:j + 1]))[0, 0] / (2 * h)
                      for j in range(len(Y))] for i in range(len(P))])


def fd_mixed(kern, P, V, Q, W, h=1e-4):
    def k(a, b):
        return kern(a[None], b[None])[0, 0]
    return np.array([[(k(P[i] + h * V[i], Q[j] + h * W[j]) - k(P[i] + h * V[i], Q[j] - h * W[j])
                       - k(P[i] - h * V[i], Q[j] + h * W[j]) + k(P[i] - h * V[i], Q[j] - h * W[j]))
                      / (4 * h * h) for j in range(len(Q))] for i in range(len(P))])


KERNELS = [K.Linear(), K.Polynomial(degree=3, coef0=1.0),
           K.Polynomial(degree=1, coef0=0.0), K.RBF(sigma=1.3),
           K.RBF(sigma=0.8, scales=np.array([1.0, 2.0, 0.5]))]


@pytest.mark.parametrize("kern", KERNELS, ids=lambda k: repr(k))
def test_kernel_input_derivatives_match_finite_differences(kern):
    rng = np.random.RandomState(0)
    P, V, Y, W = rng.randn(5, 3), rng.randn(5, 3), rng.randn(4, 3), rng.randn(4, 3)
    np.testing.assert_allclose(kernel_input_derivative(kern, P, V, Y),
                               fd_directional(kern, P, V, Y), atol=1e-7, rtol=1e-6)
    np.testing.assert_allclose(kernel_tangent_gram(kern, P, V, Y, W),
                               fd_mixed(kern, P, V, Y, W), atol=1e-5, rtol=1e-5)
    # symmetric when (Q, W) = (P, V)
    Kt = kernel_tangent_gram(kern, P, V)
    np.testing.assert_allclose(Kt, Kt.T, atol=1e-12)


def test_callable_kernel_uses_the_four_term_difference():
    rng = np.random.RandomState(1)
    P, V, Y = rng.randn(4, 2), rng.randn(4, 2), rng.randn(3, 2)
    rbf = K.RBF(sigma=0.9)
    as_callable = K.CallableKernel(lambda A, B: np.exp(-((A[:, None] - B[None]) ** 2).sum(-1)
                                                      / (2 * 0.9 ** 2)))
    np.testing.assert_allclose(kernel_input_derivative(as_callable, P, V, Y),
                               kernel_input_derivative(rbf, P, V, Y), atol=1e-7)
    np.testing.assert_allclose(kernel_tangent_gram(as_callable, P, V),
                               kernel_tangent_gram(rbf, P, V), atol=1e-5)
    with pytest.raises(ValueError, match="precomputed"):
        kernel_input_derivative(K.Precomputed(), P, V, Y)


def test_rotation_tangents_are_orthogonal_to_the_points():
    X, _ = circle(20, 0)
    T = tangent_vectors(X, "rotate_2d")
    np.testing.assert_allclose(T, np.c_[-X[:, 1], X[:, 0]], atol=1e-8)
    np.testing.assert_allclose((T * X).sum(1), 0, atol=1e-8)
    R = transform_points(X, "rotate_2d", np.pi / 2)
    np.testing.assert_allclose(R, np.c_[-X[:, 1], X[:, 0]], atol=1e-12)
    with pytest.raises(ValueError, match="n_features=1"):
        tangent_vectors(X[:, :1], "rotate_2d")


def test_image_translations_and_rotations():
    rng = np.random.RandomState(0)
    h, w = 5, 7
    img = rng.rand(3, h, w)
    X = img.reshape(3, -1)
    right = transform_points(X, "translate_x", 1.0, (h, w)).reshape(3, h, w)
    np.testing.assert_allclose(right[:, :, 1:], img[:, :, :-1])      # moved one pixel right
    np.testing.assert_allclose(right[:, :, 0], img[:, :, 0])         # edge repeated
    down = transform_points(X, "translate_y", 1.0, (h, w)).reshape(3, h, w)
    np.testing.assert_allclose(down[:, 1:], img[:, :-1])
    # central difference of one-pixel translations: (x[c-1] - x[c+1]) / 2 inside
    T = tangent_vectors(X, "translate_x", image_shape=(h, w)).reshape(3, h, w)
    np.testing.assert_allclose(T[:, :, 1:-1], (img[:, :, :-2] - img[:, :, 2:]) / 2)
    # forward difference with step -1: a translation to the left
    T = tangent_vectors(X, "translate_x", image_shape=(h, w), step=-1.0, method="forward")
    np.testing.assert_allclose(T.reshape(3, h, w)[:, :, :-1],
                               -(img[:, :, 1:] - img[:, :, :-1]))
    # several invariances: (n, k, d)
    T2 = tangent_vectors(X, ["translate_x", "translate_y"], image_shape=(h, w))
    assert T2.shape == (3, 2, h * w)
    # a quarter turn of a square image is a transposition with a flip
    sq = rng.rand(2, 6, 6)
    turned = transform_points(sq.reshape(2, -1), "rotate_image", np.pi / 2).reshape(2, 6, 6)
    np.testing.assert_allclose(turned, np.rot90(sq, k=1, axes=(1, 2)), atol=1e-9)
    # a rotation-invariant (radial) image has a much smaller rotation tangent than a bar
    r, c = np.meshgrid(np.arange(15) - 7.0, np.arange(15) - 7.0, indexing="ij")
    radial = np.exp(-(r ** 2 + c ** 2) / 10).ravel()
    bar = np.exp(-(r ** 2) / 2).ravel()
    Tr = tangent_vectors(np.vstack([radial, bar]), "rotate_image")
    assert np.linalg.norm(Tr[0]) < 0.1 * np.linalg.norm(Tr[1])
    with pytest.raises(ValueError, match="image_shape"):
        tangent_vectors(X, "translate_x", image_shape=(4, 4))
    with pytest.raises(ValueError, match="image_shape"):
        tangent_vectors(X, "translate_x")                 # 35 features: not a square


def test_callable_transform():
    X, _ = circle(6, 1)
    T = tangent_vectors(X, lambda Z, t: Z * np.exp(t))           # dilation: dx = x
    np.testing.assert_allclose(T, X, atol=1e-7)
    with pytest.raises(ValueError, match="shape"):
        tangent_vectors(X, lambda Z, t: Z[:, :1])


def test_invariant_linear_map_and_scale_free_invariance():
    rng = np.random.RandomState(0)
    T = rng.randn(10, 3)
    Cinv, g = invariant_linear_map(T, 0.7)
    S = (T ** 2).sum()
    assert g == pytest.approx(0.7 / (S + 0.7 * (1 - S)))
    C2 = (1 - g) * np.eye(3) + g * T.T @ T
    np.testing.assert_allclose(Cinv @ Cinv @ C2, np.eye(3), atol=1e-10)
    np.testing.assert_allclose(Cinv, Cinv.T, atol=1e-12)
    # the scale-free functional (1-g) w^2 + g sum (w.dx)^2 / S is proportional to (6.1) with the
    # substituted trade-off, for every w
    for _ in range(3):
        w = rng.randn(3)
        lhs = 0.3 * w @ w + 0.7 * ((T @ w) ** 2).sum() / S
        rhs = (1 - g) * w @ w + g * ((T @ w) ** 2).sum()
        assert lhs / rhs == pytest.approx(0.3 / (1 - g))
    # the scale-free trade-off makes the weight of the tangent term independent of their scale
    g10 = invariant_linear_map(10 * T, 0.7)[1]
    assert g10 * 100 / (1 - g10) == pytest.approx(g / (1 - g))
    assert scale_free_invariance(0.7, 1.0) == pytest.approx(0.7)
    Cinv0, g0 = invariant_linear_map(T, 0.0)
    np.testing.assert_allclose(Cinv0, np.eye(3), atol=1e-12)


def brute_force_invariant_svm(Z, y, T, g):
    """Hard-margin minimiser of (1-g) w^2 + g sum (w.dx_i)^2 s.t. y_i (w.z_i + b) >= 1."""
    d = Z.shape[1]
    A = (1 - g) * np.eye(d) + g * T.T @ T

    def obj(v):
        return v[:d] @ A @ v[:d]

    cons = [{"type": "ineq", "fun": lambda v, i=i: y[i] * (Z[i] @ v[:d] + v[d]) - 1,
             "jac": lambda v, i=i: y[i] * np.r_[Z[i], 1.0]} for i in range(len(y))]
    # start from a strictly feasible point: the plain hard-margin SVM, scaled up
    svm = SVC(kernel="linear", C=np.inf, **EXACT).fit(Z, y)
    v0 = 1.5 * np.r_[svm.dual_coef_[0] @ svm.support_vectors_, svm.intercept_[0]]
    res = minimize(obj, v0, jac=lambda v: np.r_[2 * A @ v[:d], 0.0],
                   constraints=cons, method="SLSQP", options=dict(ftol=1e-12, maxiter=1000))
    assert res.success
    return res.x[:d], res.x[d]


def separable_linear(n, seed):
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 2)
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
    X += 0.4 * y[:, None] * np.array([1.0, 0.5])
    return X, y


def test_linear_invariant_svc_solves_functional_6_1():
    X, y = separable_linear(16, 0)
    rng = np.random.RandomState(1)
    T = rng.randn(16, 2) * np.array([1.0, 0.2])          # tangents mostly along the first axis
    for inv in (0.3, 0.9):
        clf = LinearInvariantSVC(invariance=inv, C=np.inf, **EXACT).fit(X, y, tangents=T)
        w, b = brute_force_invariant_svm(X, y, T, clf.invariance_)
        Xt = rng.randn(50, 2)
        np.testing.assert_allclose(clf.decision_function(Xt), Xt @ w + b, atol=1e-5)
        np.testing.assert_allclose(clf.invariance_rms_, np.sqrt(np.mean((T @ w) ** 2)),
                                   rtol=1e-4)
    # more invariance, smaller tangent terms
    rms = [LinearInvariantSVC(invariance=inv, C=np.inf, **EXACT).fit(
        X, y, tangents=T).invariance_rms_ for inv in (0.0, 0.5, 0.99)]
    assert rms[0] > rms[1] > rms[2]


def poly2_features(X):
    """Explicit feature map of (1 + x.y)^2 in 2-D, and its Jacobian."""
    x1, x2 = X[:, 0], X[:, 1]
    r = np.sqrt(2.0)
    Phi = np.c_[np.ones_like(x1), r * x1, r * x2, x1 ** 2, x2 ** 2, r * x1 * x2]
    J = np.zeros((X.shape[0], 6, 2))
    J[:, 1, 0] = r
    J[:, 2, 1] = r
    J[:, 3, 0] = 2 * x1
    J[:, 4, 1] = 2 * x2
    J[:, 5, 0] = r * x2
    J[:, 5, 1] = r * x1
    return Phi, J


def test_invariant_svc_equals_the_invariant_hyperplane_in_an_explicit_feature_space():
    X, y = circle(25, 3)
    T = tangent_vectors(X, "rotate_2d")
    Phi, J = poly2_features(X)
    dPhi = np.einsum("nij,nj->ni", J, T)
    np.testing.assert_allclose(Phi @ Phi.T, (1 + X @ X.T) ** 2, atol=1e-12)
    kern = K.Polynomial(degree=2, coef0=1.0)
    np.testing.assert_allclose(kernel_tangent_gram(kern, X, T), dPhi @ dPhi.T, atol=1e-10)
    Xt, _ = circle(40, 4)
    Phit, _ = poly2_features(Xt)
    for inv in (0.5, 0.95):
        isvm = InvariantSVC(invariance=inv, kernel="poly", degree=2, coef0=1.0, C=np.inf,
                            **EXACT).fit(X, y)
        # the same functional minimised directly over w in the 6-D feature space
        w, b = brute_force_invariant_svm(Phi, y, dPhi, isvm.invariance_)
        assert isvm.invariance_ == pytest.approx(scale_free_invariance(inv, (dPhi ** 2).sum()))
        np.testing.assert_allclose(isvm.decision_function(Xt), Phit @ w + b, atol=1e-5)
        np.testing.assert_allclose(isvm.invariance_rms_, np.sqrt(np.mean((dPhi @ w) ** 2)),
                                   rtol=1e-4)
        # IH_KPCA: 25 points span the (centred) feature space, so nothing is lost (6.13 = 1)
        ih = InvariantKPCASVC(invariance=inv, kernel="poly", degree=2, coef0=1.0, C=np.inf,
                              **EXACT).fit(X, y)
        np.testing.assert_allclose(ih.information_ratios_, 1.0, atol=1e-8)
        np.testing.assert_allclose(ih.decision_function(Xt), Phit @ w + b, atol=1e-5)
        # the linear invariant SVM on the explicit features is the same machine
        lin = LinearInvariantSVC(invariance=inv, C=np.inf, **EXACT).fit(Phi, y, tangents=dPhi)
        np.testing.assert_allclose(lin.decision_function(Phit), Phit @ w + b, atol=1e-5)


@pytest.mark.parametrize("cls", [InvariantSVC, InvariantKPCASVC, LinearInvariantSVC])
def test_invariance_zero_is_the_plain_svc(cls):
    X, y = circle(30, 5)
    Xt, _ = circle(50, 6)
    kernel = "linear" if cls is LinearInvariantSVC else "rbf"
    ref = SVC(C=10.0, kernel=kernel, sigma=0.7, **EXACT).fit(X, y)
    clf = cls(invariance=0.0, C=10.0, kernel=kernel, sigma=0.7, **EXACT).fit(X, y)
    np.testing.assert_allclose(clf.decision_function(Xt), ref.decision_function(Xt), atol=1e-6)
    np.testing.assert_array_equal(clf.predict(Xt), ref.predict(Xt))


@pytest.mark.parametrize("cls", [InvariantSVC, InvariantKPCASVC, LinearInvariantSVC])
def test_invariance_rms_is_the_derivative_of_the_decision_function(cls):
    """(6.14) = RMS over the training tangents of d f(x_i + t dx_i)/dt, checked by finite
    differences of the fitted decision function (any kernel: the LIH case included)."""
    X, y = circle(30, 7)
    T = tangent_vectors(X, "rotate_2d")
    clf = cls(invariance=0.8, C=10.0, kernel="rbf", sigma=0.8, **EXACT).fit(X, y)
    h = 1e-5
    deriv = (clf.decision_function(X + h * T) - clf.decision_function(X - h * T)) / (2 * h)
    assert clf.invariance_rms_ == pytest.approx(np.sqrt(np.mean(deriv ** 2)), rel=1e-5)


def test_invariant_svc_prediction_uses_the_training_kernel():
    X, y = circle(30, 8)
    clf = InvariantSVC(invariance=0.9, sigma=0.5, C=10.0, **EXACT).fit(X, y)
    # K~ at fit, rebuilt from eq. (6.12) by hand with an explicit eigendecomposition
    T = tangent_vectors(X, "rotate_2d")
    kern = clf.kernel_
    Kt = kernel_tangent_gram(kern, X, T)
    lam, U = np.linalg.eigh(Kt)
    g = clf.invariance_
    G = U.T @ kernel_input_derivative(kern, X, T, X)
    big = lam > 1e-10 * lam.max()
    coef = (1 / lam[big]) * (1 / (g * lam[big] + 1 - g) - 1 / (1 - g))
    Ktilde = kern(X) / (1 - g) + (G[big].T * coef) @ G[big]
    ref = SVC(kernel="precomputed", C=10.0, **EXACT).fit(Ktilde, y)
    Xt, _ = circle(40, 9)
    Gt = U.T @ kernel_input_derivative(kern, X, T, Xt)
    Ktest = kern(Xt, X) / (1 - g) + (Gt[big].T * coef) @ G[big]
    np.testing.assert_allclose(clf.decision_function(Xt), ref.decision_function(Ktest),
                               atol=1e-6)


def test_rotation_invariance_on_the_circle():
    """The rotation toy of section 6.6.2: the invariant SVMs lower the tangent terms (6.14),
    the ratio (6.13) is at most 1, near 1 for a wide RBF, and IH_KPCA then equals ISVM."""
    X, y = circle(30, 10)
    narrow = InvariantKPCASVC(invariance=0.9, sigma=0.1, C=10.0).fit(X, y)
    wide = InvariantKPCASVC(invariance=0.9, sigma=3.0, C=10.0, **EXACT).fit(X, y)
    assert np.all(narrow.information_ratios_ <= 1 + 1e-9)
    assert narrow.information_ratio_ < 0.9
    assert wide.information_ratio_ > 0.999
    isvm = InvariantSVC(invariance=0.9, sigma=3.0, C=10.0, **EXACT).fit(X, y)
    Xt, yt = circle(500, 11)
    np.testing.assert_allclose(wide.decision_function(Xt), isvm.decision_function(Xt),
                               atol=1e-3 * np.abs(isvm.decision_function(Xt)).max())
    rms = [InvariantSVC(invariance=g, sigma=1.0, C=10.0, **EXACT).fit(X, y).invariance_rms_
           for g in (0.0, 0.5, 0.9)]
    assert rms[0] > rms[1] > rms[2]


def test_virtual_svc_is_an_svc_on_the_augmented_set():
    X, y = circle(30, 12)
    t = 0.1
    vsv = VirtualSVC(C=10.0, sigma=0.7, step=t, **EXACT).fit(X, y)
    first = SVC(C=10.0, sigma=0.7, **EXACT).fit(X, y)
    sv = X[first.support_]
    c, s = np.cos(t), np.sin(t)
    R = np.array([[c, -s], [s, c]])
    Xa = np.vstack([X, sv @ R.T, sv @ R])
    ya = np.r_[y, y[first.support_], y[first.support_]]
    ref = SVC(C=10.0, sigma=0.7, **EXACT).fit(Xa, ya)
    Xt, _ = circle(50, 13)
    np.testing.assert_allclose(vsv.decision_function(Xt), ref.decision_function(Xt), atol=1e-6)
    assert vsv.n_virtual_ == 2 * len(first.support_)
    once = VirtualSVC(C=10.0, sigma=0.7, virtual_from="all", both_directions=False).fit(X, y)
    assert once.n_virtual_ == 30 and once.svc_.shape_fit_[0] == 60


def test_multiple_invariances_and_multiclass():
    rng = np.random.RandomState(0)
    X = rng.rand(45, 16)
    y = np.repeat([0, 1, 2], 15)
    X[y == 1, :8] += 1.0
    X[y == 2, 8:] += 1.0
    inv = ["translate_x", "translate_y"]
    for cls in (InvariantSVC, InvariantKPCASVC, LinearInvariantSVC, VirtualSVC):
        extra = {} if cls is VirtualSVC else dict(invariance=0.5)
        clf = cls(transformation=inv, image_shape=(4, 4), kernel="poly", degree=2, C=10.0,
                  **extra).fit(X, y)
        assert clf.score(X, y) > 0.9
        assert clf.decision_function(X).shape == (45, 3)
    ih = InvariantKPCASVC(transformation=inv, image_shape=(4, 4), invariance=0.5).fit(X, y)
    assert ih.information_ratios_.shape == (90,)


@pytest.mark.parametrize("n_classes", [2, 3, 4])
def test_pair_coefficients_give_the_one_vs_one_decisions(n_classes):
    """The per-pair coefficients rebuilt from SVC's public dual_coef_/n_support_ give its
    one-vs-one decision values: K(X, support_vectors_) @ coef + intercept_."""
    rng = np.random.RandomState(n_classes)
    X = rng.randn(20 * n_classes, 2)
    y = np.repeat(np.arange(n_classes), 20)
    X += 1.5 * np.c_[np.cos(y), np.sin(y)]
    svc = SVC(C=1.0, sigma=0.8, decision_function_shape="ovo", **EXACT).fit(X, y)
    coef = _pair_coefficients(svc)
    assert coef.shape == (svc.support_.shape[0], n_classes * (n_classes - 1) // 2)
    Xt = rng.randn(30, 2)
    dec = svc.kernel_(Xt, svc.support_vectors_) @ coef + svc.intercept_
    np.testing.assert_allclose(dec, svc.decision_function(Xt).reshape(30, -1), atol=1e-10)


def test_subset_kpca_speed_up():
    X, y = circle(60, 14)
    ih = InvariantKPCASVC(invariance=0.9, sigma=1.0, C=10.0, method="subset", n_components=20,
                          random_state=0).fit(X, y)
    assert ih.kpca_.n_components_ <= 20
    assert np.all(ih.information_ratios_ <= 1 + 1e-9)
    Xt, yt = circle(300, 15)
    assert ih.score(Xt, yt) > 0.8


def test_bad_arguments():
    X, y = circle(20, 16)
    with pytest.raises(ValueError, match="tangents must have shape"):
        InvariantSVC().fit(X, y, tangents=np.ones((20, 3)))
    with pytest.raises(ValueError, match="invariance"):
        InvariantSVC(invariance=1.0).fit(X, y)
    with pytest.raises(ValueError, match="transformation"):
        LinearInvariantSVC(transformation="shear").fit(X, y)
    with pytest.raises(ValueError, match="n_components"):
        InvariantKPCASVC(method="subset").fit(X, y)
    with pytest.raises(TypeError):
        InvariantSVC(0.5)                       # keyword-only constructors
    with pytest.raises(ValueError, match="kernel"):
        InvariantSVC(kernel="precomputed").fit(X, y)
    with pytest.raises(ValueError, match="step"):
        VirtualSVC(step=0.0).fit(X, y)
    with pytest.raises(ValueError, match="two classes"):
        InvariantSVC().fit(X, np.ones(20))


def test_invariant_linear_map_against_sqrtm():
    """C_gamma^{-1} of eq. (6.2) against scipy's matrix square root, for (m, d) and (n, k, d)
    tangents (the k invariances of a point are k rows of Sigma)."""
    from scipy.linalg import sqrtm
    rng = np.random.RandomState(2)
    T = rng.randn(6, 2, 4) * np.array([3.0, 1.0, 0.1, 0.0])    # Sigma is singular
    for scale_free in (False, True):
        Cinv, g = invariant_linear_map(T, 0.8, scale_free=scale_free)
        flat = T.reshape(-1, 4)
        C = np.real(sqrtm((1 - g) * np.eye(4) + g * flat.T @ flat))
        np.testing.assert_allclose(Cinv, np.linalg.inv(C), atol=1e-10)


def test_central_translation_tangent_is_the_image_derivative():
    """On a smooth image the central difference of the 1-pixel translations is -dI/dc (a move
    to the right) within the Taylor remainder h^2/6 max|I'''| (h = 1 pixel); the thesis's
    forward difference L_1 x - x is not a derivative but the 1-pixel translate itself."""
    s, c0, r0 = 2.5, 7.3, 7.8
    r, c = np.meshgrid(np.arange(16.0), np.arange(16.0), indexing="ij")
    u = c - c0
    img = np.exp(-(u ** 2 + (r - r0) ** 2) / (2 * s ** 2))
    T = tangent_vectors(img.reshape(1, -1), "translate_x").reshape(16, 16)
    third = np.abs((3 * u / s ** 4 - u ** 3 / s ** 6) * img)
    bound = third.max() / 6
    inner = (slice(None), slice(1, -1))                 # the edge pixels are repeated outside
    err = np.abs(T - u / s ** 2 * img)[inner]
    assert err.max() <= bound
    assert bound < 0.1 * np.abs(u / s ** 2 * img).max()
    F = tangent_vectors(img.reshape(1, -1), "translate_x", method="forward").reshape(16, 16)
    np.testing.assert_allclose(F[:, 1:], img[:, :-1] - img[:, 1:], atol=1e-12)


@pytest.mark.parametrize("cls", [InvariantSVC, InvariantKPCASVC])
def test_invariance_to_one_is_the_svm_orthogonal_to_the_tangents(cls):
    """gamma -> 1: (1 - gamma) K~ tends to the kernel of the feature space projected
    orthogonally to the tangents, so the hard-margin machine is the SVM on the projected
    explicit features (rotations of the circle leave the constant and x1^2 + x2^2)."""
    X, y = circle(25, 3)
    T = np.c_[-X[:, 1], X[:, 0]]                         # the exact rotation tangents
    Phi, J = poly2_features(X)
    dPhi = np.einsum("nij,nj->ni", J, T)
    proj = np.eye(6) - np.linalg.pinv(dPhi) @ dPhi        # onto the complement of span dPhi
    assert np.linalg.matrix_rank(proj, tol=1e-8) == 2
    ref = SVC(kernel="linear", C=np.inf, **EXACT).fit(Phi @ proj, y)
    clf = cls(invariance=1 - 1e-7, scale_free=False, kernel="poly", degree=2, coef0=1.0,
              C=np.inf, **EXACT).fit(X, y, tangents=T)
    Xt, _ = circle(40, 4)
    Phit, _ = poly2_features(Xt)
    ref_dec = ref.decision_function(Phit @ proj)
    np.testing.assert_allclose(clf.decision_function(Xt), ref_dec,
                               atol=1e-4 * np.abs(ref_dec).max())
    assert clf.invariance_rms_ < 1e-4 * np.sqrt(np.mean(ref_dec ** 2))


def test_difference_tangents_equal_the_invariant_hyperplane_on_feature_differences():
    """feature_tangents='difference': dPhi(x_i) = Phi(x_i + dx_i) - Phi(x_i) (eq. 6.7) for a
    finite dx_i; ISVM and IH_KPCA (ratio 1: the points span the feature space) against the
    functional (6.1) minimised over w in the explicit feature space of (1 + x.y)^2."""
    X, y = circle(25, 3)
    T = 0.4 * tangent_vectors(X, "rotate_2d")            # a finite step: not a derivative
    Phi, J = poly2_features(X)
    dPhi = poly2_features(X + T)[0] - Phi
    assert np.abs(dPhi - np.einsum("nij,nj->ni", J, T)).max() > 0.05   # the two differ here
    Xt, _ = circle(40, 4)
    Phit, _ = poly2_features(Xt)
    common = dict(invariance=0.99, kernel="poly", degree=2, coef0=1.0, C=np.inf,
                  feature_tangents="difference", **EXACT)
    isvm = InvariantSVC(**common).fit(X, y, tangents=T)
    assert isvm.invariance_ == pytest.approx(scale_free_invariance(0.99, (dPhi ** 2).sum()))
    w, b = brute_force_invariant_svm(Phi, y, dPhi, isvm.invariance_)
    np.testing.assert_allclose(isvm.decision_function(Xt), Phit @ w + b, atol=1e-5)
    # at this trade-off the derivative tangents give another machine
    other = InvariantSVC(**{**common, "feature_tangents": "derivative"}).fit(X, y, tangents=T)
    assert np.abs(other.decision_function(Xt) - (Phit @ w + b)).max() > 0.5
    # (6.14) is then the change of the output under the transformation, f(x + dx) - f(x)
    np.testing.assert_allclose(isvm.invariance_rms_, np.sqrt(np.mean((dPhi @ w) ** 2)),
                               rtol=1e-4)
    ih = InvariantKPCASVC(**common).fit(X, y, tangents=T)
    np.testing.assert_allclose(ih.information_ratios_, 1.0, atol=1e-8)
    np.testing.assert_allclose(ih.decision_function(Xt), Phit @ w + b, atol=1e-5)


@pytest.mark.parametrize("feature_tangents", ["derivative", "difference"])
def test_kpca_tangents_are_those_of_the_map(feature_tangents):
    """IH_KPCA's tangents in the kernel PCA coordinates, checked through C_gamma^{-1}: the
    derivative of the fitted map psi along dx (central differences of kpca_.transform), or
    psi(x + dx) - psi(x); a narrow RBF on few points loses information (ratio 6.13 < 1)."""
    from scipy.linalg import sqrtm
    X, y = circle(20, 17)
    T = 0.5 * tangent_vectors(X, "rotate_2d")
    ih = InvariantKPCASVC(invariance=0.7, sigma=0.3, C=10.0, feature_tangents=feature_tangents,
                          **EXACT).fit(X, y, tangents=T)
    psi = ih.kpca_.transform
    if feature_tangents == "derivative":
        h = 1e-5
        dPsi = (psi(X + h * T) - psi(X - h * T)) / (2 * h)
    else:
        dPsi = psi(X + T) - psi(X)
    k = dPsi.shape[1]
    g = ih.invariance_
    C = np.real(sqrtm((1 - g) * np.eye(k) + g * dPsi.T @ dPsi))
    np.testing.assert_allclose(ih.preprocessing_, np.linalg.inv(C), atol=1e-6)
    kern = K.RBF(sigma=0.3)
    if feature_tangents == "derivative":                 # the four-term difference (6.7)
        h = 1e-4
        A, B = X + h * T, X - h * T
        dphi = np.sqrt(np.diag(kern(A, A) - 2 * kern(A, B) + kern(B, B))) / (2 * h)
    else:
        Q = X + T
        dphi = np.sqrt(np.diag(kern(Q, Q)) - 2 * np.diag(kern(Q, X)) + np.diag(kern(X, X)))
    np.testing.assert_allclose(ih.information_ratios_,
                               np.linalg.norm(dPsi, axis=1) / dphi, rtol=1e-5)
    assert ih.information_ratio_ < 0.95
