"""Margin losses: values from the formulas, derivatives vs finite differences, convexity, errors."""
import math
import warnings

import numpy as np
import pytest

from kernelnb.losses import LOSS_NAMES, LOSSES, Loss, get_loss, zero_one

# Kinks of each loss with default parameters (derivative checks stay away from them).
KINKS = {"hinge": [1.0], "perceptron": [0.0], "zero_one": [0.0], "epsilon_insensitive": [-0.1, 0.1],
         "vrm_hinge": [math.sqrt(math.pi / 2)]}
# ... and where the second derivative jumps, which biases central differences by O(h)
FD_AVOID = {**KINKS, "squared_hinge": [1.0]}

# Reference formulas written with the math module, one point at a time.
FORMULAS = {
    "hinge": lambda m: max(0.0, 1 - m),
    "squared_hinge": lambda m: max(0.0, 1 - m) ** 2,
    "logistic": lambda m: math.log1p(math.exp(-m)),
    "logitboost": lambda m: math.log2(1 + math.exp(-2 * m)),
    "exponential": lambda m: math.exp(-m),
    "1-tanh": lambda m: 1 - math.tanh(m),
    "tanh": lambda m: (0.65 - math.tanh(m)) ** 2,
    "squared": lambda m: (1 - m) ** 2,
    "perceptron": lambda m: max(0.0, -m),
    "zero_one": lambda m: 1.0 if m <= 0 else 0.0,
    # Chapelle's thesis Eq. 1.16, phi(x) = (1 + erf(x / sqrt 2)) / 2, and Fig. 2.2's surrogate
    "vrm": lambda m: (1 + math.erf(-m / math.sqrt(2))) / 2,
    "vrm_hinge": lambda m: max(0.0, 0.5 - m / math.sqrt(2 * math.pi)),
    "epsilon_insensitive": lambda r: max(0.0, abs(r) - 0.1),
}

GRID = np.linspace(-3, 3, 241)


def _away_from_kinks(name, grid, gap=1e-3):
    keep = np.ones(grid.shape, bool)
    for k in FD_AVOID.get(name, []):
        keep &= np.abs(grid - k) > gap
    return grid[keep]


def test_registry_is_complete_and_consistent():
    expected = {"hinge", "squared_hinge", "logistic", "logitboost", "exponential", "1-tanh", "tanh",
                "squared", "perceptron", "zero_one", "vrm", "vrm_hinge", "epsilon_insensitive"}
    assert set(LOSSES) == expected == set(LOSS_NAMES) == set(FORMULAS)
    labels = [loss.label for loss in LOSSES.values()]
    assert len(set(labels)) == len(labels) and all(labels)
    for name, loss in LOSSES.items():
        assert isinstance(loss, Loss) and loss.name == name
        assert loss.kind == ("regression" if name == "epsilon_insensitive" else "margin")
    assert "LogitBoost" in LOSSES["logistic"].label
    assert "AdaBoost" in LOSSES["exponential"].label
    assert "0.65" in LOSSES["tanh"].label
    assert zero_one is LOSSES["zero_one"]


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_values_match_the_formulas(name):
    loss = LOSSES[name]
    points = [-3.0, -1.0, -0.3, 0.0, 0.05, 0.1, 0.5, 1.0, 1.7, 4.0]
    got = loss.value(np.array(points))
    ref = [FORMULAS[name](m) for m in points]
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-15)
    assert isinstance(loss.value(0.5), float)  # a scalar in, a scalar out
    assert loss.value(np.zeros((3, 4))).shape == (3, 4)


def test_specific_values():
    assert LOSSES["hinge"].value(-1.0) == 2.0
    assert LOSSES["hinge"].value(1.0) == 0.0
    assert LOSSES["squared_hinge"].value(-1.0) == 4.0
    assert LOSSES["logistic"].value(0.0) == pytest.approx(math.log(2))
    assert LOSSES["logitboost"].value(0.0) == pytest.approx(1.0)
    assert LOSSES["exponential"].value(-1.0) == pytest.approx(math.e)
    assert LOSSES["1-tanh"].value(0.0) == 1.0
    assert LOSSES["tanh"].value(0.0) == pytest.approx(0.65 ** 2)
    assert LOSSES["tanh"].value(math.atanh(0.65)) == pytest.approx(0.0, abs=1e-15)
    assert LOSSES["squared"].value(1.0) == 0.0 and LOSSES["squared"].value(-1.0) == 4.0
    assert LOSSES["zero_one"].value(0.0) == 1.0 and LOSSES["zero_one"].value(1e-9) == 0.0
    assert LOSSES["epsilon_insensitive"].value(-0.3) == pytest.approx(0.2)
    assert get_loss("epsilon_insensitive", epsilon=0.5).value(0.3) == 0.0


def test_logistic_is_numerically_stable():
    lg = LOSSES["logistic"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert lg.value(-1000.0) == pytest.approx(1000.0)
        assert lg.value(1000.0) == pytest.approx(0.0, abs=1e-300)
        assert lg.value(40.0) == pytest.approx(math.exp(-40.0), rel=1e-12)
        assert lg.derivative(-1000.0) == pytest.approx(-1.0)
        assert lg.derivative(1000.0) == pytest.approx(0.0, abs=1e-300)
        assert LOSSES["logitboost"].value(-1000.0) == pytest.approx(2000.0 / math.log(2))
        assert np.isinf(LOSSES["exponential"].value(-1000.0))  # overflows to inf, no warning


def test_logitboost_is_the_rescaled_logistic():
    np.testing.assert_allclose(LOSSES["logitboost"].value(GRID),
                               LOSSES["logistic"].value(2 * GRID) / math.log(2), rtol=1e-13)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_derivatives_match_central_differences(name):
    loss = LOSSES[name]
    m = _away_from_kinks(name, GRID)
    h = 1e-6
    fd = (loss.value(m + h) - loss.value(m - h)) / (2 * h)
    np.testing.assert_allclose(loss.derivative(m), fd, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name,params", [("hinge", {"beta": 0.5}), ("tanh", {"target": 0.9}),
                                         ("epsilon_insensitive", {"epsilon": 0.3})])
def test_parametrised_derivatives(name, params):
    loss = get_loss(name, **params)
    kink = {"hinge": [0.5], "tanh": [], "epsilon_insensitive": [-0.3, 0.3]}[name]
    m = GRID[np.all([np.abs(GRID - k) > 1e-3 for k in kink], axis=0)] if kink else GRID
    h = 1e-6
    fd = (loss.value(m + h) - loss.value(m - h)) / (2 * h)
    np.testing.assert_allclose(loss.derivative(m), fd, rtol=1e-6, atol=1e-7)


def test_derivative_at_kinks_is_a_subgradient():
    for name, kinks in KINKS.items():
        loss = LOSSES[name]
        for k in kinks:
            h = 1e-7
            left = (loss.value(k) - loss.value(k - h)) / h
            right = (loss.value(k + h) - loss.value(k)) / h
            d = loss.derivative(k)
            if name != "zero_one":
                assert min(left, right) - 1e-6 <= d <= max(left, right) + 1e-6
            assert d == 0.0


def test_tanh_derivative_formula_of_the_kmp_paper():
    """seed_002.md §1.8: -dL/df = -2 (tanh f - 0.65 y)(1 - tanh^2 f) for L = (tanh f - 0.65 y)^2."""
    rng = np.random.RandomState(0)
    y = rng.choice([-1.0, 1.0], 50)
    f = rng.uniform(-3, 3, 50)
    loss = LOSSES["tanh"]
    np.testing.assert_allclose(loss.loss(y, f), (np.tanh(f) - 0.65 * y) ** 2, rtol=1e-12)
    np.testing.assert_allclose(-loss.gradient(y, f),
                               -2 * (np.tanh(f) - 0.65 * y) * (1 - np.tanh(f) ** 2), rtol=1e-12, atol=1e-15)


def test_squared_is_the_squared_error_for_pm1_labels():
    rng = np.random.RandomState(1)
    y = rng.choice([-1.0, 1.0], 40)
    f = rng.normal(size=40)
    loss = LOSSES["squared"]
    np.testing.assert_allclose(loss.loss(y, f), (y - f) ** 2, rtol=1e-12)
    np.testing.assert_allclose(loss.gradient(y, f), -2 * (y - f), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_gradient_in_f_matches_finite_differences(name):
    loss = LOSSES[name]
    rng = np.random.RandomState(2)
    y = rng.choice([-1.0, 1.0], 30) if loss.kind == "margin" else rng.normal(size=30)
    f = rng.uniform(-2, 2, 30)
    arg = y * f if loss.kind == "margin" else y - f
    keep = np.ones(30, bool)
    for k in FD_AVOID.get(name, []):
        keep &= np.abs(arg - k) > 1e-3
    y, f = y[keep], f[keep]
    h = 1e-6
    fd = (loss.loss(y, f + h) - loss.loss(y, f - h)) / (2 * h)
    np.testing.assert_allclose(loss.gradient(y, f), fd, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_convexity_flag_holds(name):
    loss = LOSSES[name]
    rng = np.random.RandomState(3)
    a, b = rng.uniform(-3, 3, (2, 2000))
    lam = rng.uniform(0, 1, 2000)
    gap = lam * loss.value(a) + (1 - lam) * loss.value(b) - loss.value(lam * a + (1 - lam) * b)
    if loss.convex:
        assert gap.min() >= -1e-12
    else:
        assert gap.min() < -1e-3, "a non-convex loss should show a chord below the curve"


def test_convex_ones_are_the_expected_ones():
    assert {n for n, loss in LOSSES.items() if not loss.convex} == {"1-tanh", "tanh", "zero_one",
                                                                     "vrm"}
    assert {n for n, loss in LOSSES.items() if not loss.smooth} == {
        "hinge", "perceptron", "zero_one", "vrm_hinge", "epsilon_insensitive"}


def test_shapes_of_the_curves():
    """Monotone losses never increase with the margin; squared and (0.65 - tanh)^2 rise again."""
    for name in ("hinge", "squared_hinge", "logistic", "logitboost", "exponential", "1-tanh",
                 "perceptron", "zero_one", "vrm", "vrm_hinge"):
        assert np.all(np.diff(LOSSES[name].value(GRID)) <= 0), name
    for name in ("squared", "tanh"):
        v = LOSSES[name].value(GRID)
        assert np.argmin(v) not in (0, len(GRID) - 1) and v[-1] > v.min(), name
    # the tanh loss rises only slightly for large margins: up to (1 - 0.65)^2 = 0.35^2
    assert LOSSES["tanh"].value(50.0) == pytest.approx(0.35 ** 2)


def test_get_loss_names_aliases_and_params():
    assert get_loss("hinge") == LOSSES["hinge"]
    assert get_loss("AdaBoost").name == "exponential"
    assert get_loss("exp").name == "exponential"
    assert get_loss("Squared-Hinge").name == "squared_hinge"
    assert get_loss("1-tanh").name == "1-tanh" and get_loss("doom2").name == "1-tanh"
    assert get_loss("kmp-tanh").name == "tanh"
    assert get_loss("mse").name == "squared"
    assert get_loss("epsilon-insensitive").name == "epsilon_insensitive"
    h = get_loss("hinge", beta=0.5)
    assert h.value(0.0) == 0.5 and h.params == {"beta": 0.5} and "0.5" in h.label
    assert h != LOSSES["hinge"]
    assert get_loss(h) is h
    t = get_loss("tanh", target=0.8)
    assert t.value(0.0) == pytest.approx(0.64) and "0.8" in t.label
    assert repr(t) == "get_loss('tanh', target=0.8)"
    e = get_loss("epsilon_insensitive", epsilon=0.0)
    np.testing.assert_allclose(e.value(GRID), np.abs(GRID))
    assert e.gradient(1.0, 0.0) == -1.0  # d|y - f|/df at y - f = 1


def test_get_loss_errors():
    with pytest.raises(ValueError, match=r"unknown loss 'huber'; valid names: hinge, squared_hinge, .*epsilon_insensitive"):
        get_loss("huber")
    with pytest.raises(TypeError, match="loss name must be a string or a Loss, got 3"):
        get_loss(3)
    with pytest.raises(TypeError, match=r"the 'hinge' loss takes no parameter 'epsilon' \(its parameters: \['beta'\]\)"):
        get_loss("hinge", epsilon=0.1)
    with pytest.raises(TypeError, match=r"the 'logistic' loss takes no parameter 'scale' \(its parameters: none\)"):
        get_loss("logistic", scale=2.0)
    with pytest.raises(ValueError, match=r"The 'epsilon' parameter of the 'epsilon_insensitive' loss must be a float in the range \[0\.0, inf\)\. Got -0\.1 instead"):
        get_loss("epsilon_insensitive", epsilon=-0.1)
    with pytest.raises(ValueError, match="The 'beta' parameter of the 'hinge' loss must be .* Got nan instead"):
        get_loss("hinge", beta=float("nan"))
    with pytest.raises(TypeError, match="The 'target' parameter of the 'tanh' loss must be .* Got 'a' instead"):
        get_loss("tanh", target="a")
    with pytest.raises(TypeError, match="get_loss got a Loss object and parameters"):
        get_loss(LOSSES["tanh"], target=0.5)


@pytest.mark.parametrize("sigma", [0.3, 1.0, 2.5])
def test_vrm_loss_is_the_gaussian_vicinal_risk(sigma):
    """phi(-m/sigma) is the probability that x ~ N(x_i, sigma^2 I) falls across a boundary at
    signed distance m (thesis Eq. 1.14 for a linear f): checked against scipy's normal law and by
    Monte Carlo on a 2-D half-plane."""
    from scipy.stats import norm
    loss = get_loss("vrm", sigma=sigma)
    m = np.linspace(-4, 4, 81)
    np.testing.assert_allclose(loss.value(m), norm.cdf(-m / sigma), rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(loss.derivative(m), -norm.pdf(m / sigma) / sigma, rtol=1e-12)
    h = 1e-6
    fd = (loss.value(m + h) - loss.value(m - h)) / (2 * h)
    np.testing.assert_allclose(loss.derivative(m), fd, rtol=1e-6, atol=1e-9)
    rng = np.random.RandomState(4)
    w = np.array([3.0, 4.0]) / 5.0                       # unit normal, boundary w.x = 0
    x_i = 0.7 * sigma * w                                # at distance 0.7 sigma, on the + side
    draws = x_i + sigma * rng.normal(size=(200_000, 2))
    wrong = np.mean(draws @ w <= 0)
    assert wrong == pytest.approx(loss.value(0.7 * sigma), abs=3e-3)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.0])
def test_vrm_surrogate_is_the_tangent_at_zero_with_its_zero_at_sqrt_pi_over_2_sigma(sigma):
    erf_loss, sur = get_loss("vrm", sigma=sigma), get_loss("vrm_hinge", sigma=sigma)
    zero = math.sqrt(math.pi / 2) * sigma
    assert sur.value(zero) == pytest.approx(0.0, abs=1e-15)
    assert sur.value(zero * (1 - 1e-9)) > 0 and sur.value(zero * 1.01) == 0.0
    assert sur.kink == pytest.approx(zero)
    # same value and slope as phi(-m/sigma) at m = 0 (Fig. 2.2)
    assert sur.value(0.0) == pytest.approx(erf_loss.value(0.0)) == 0.5
    assert sur.derivative(0.0) == pytest.approx(erf_loss.derivative(0.0), rel=1e-12)
    h = 1e-6
    assert (sur.value(h) - sur.value(-h)) / (2 * h) == pytest.approx(
        (erf_loss.value(h) - erf_loss.value(-h)) / (2 * h), rel=1e-6)
    # linear below the zero, with the tangent's slope, and zero beyond it
    m = np.linspace(-3 * sigma, zero - 1e-3, 50)
    np.testing.assert_allclose(sur.value(m), 0.5 - m / (sigma * math.sqrt(2 * math.pi)),
                               rtol=1e-12, atol=1e-14)
    assert np.all(sur.value(np.linspace(zero, 10, 20)) == 0)
    # a scaled hinge: max(0, zero - m) / (sigma sqrt(2 pi))
    np.testing.assert_allclose(sur.value(m), get_loss("hinge", beta=zero).value(m) /
                               (sigma * math.sqrt(2 * math.pi)), rtol=1e-12)
    mm = np.concatenate([m, np.linspace(zero + 1e-3, 5, 10)])
    fd = (sur.value(mm + 1e-7) - sur.value(mm - 1e-7)) / 2e-7
    np.testing.assert_allclose(sur.derivative(mm), fd, rtol=1e-6, atol=1e-9)


def test_vrm_names_and_errors():
    assert get_loss("erf").name == "vrm" and get_loss("vrm-surrogate").name == "vrm_hinge"
    v = get_loss("vrm", sigma=2.0)
    assert v.params == {"sigma": 2.0} and v != LOSSES["vrm"] and "2" in v.label
    assert repr(v) == "get_loss('vrm', sigma=2.0)"
    with pytest.raises(ValueError, match=r"The 'sigma' parameter of the 'vrm' loss must be a float "
                                         r"in the range \(0\.0, inf\)\. Got 0 instead"):
        get_loss("vrm", sigma=0)
    with pytest.raises(ValueError, match="The 'sigma' parameter of the 'vrm_hinge' loss"):
        get_loss("vrm_hinge", sigma=-1.0)
