"""MLPClassifier / MLPRegressor: gradients against finite differences, the Cython epoch against a
numpy re-implementation, early stopping, learning a toy, scikit-learn conformance, bad input."""
import numpy as np
import pytest

from kernelnb.largescale import MLPClassifier, MLPRegressor
from kernelnb.largescale import _mlp
from kernelnb.largescale.mlp import init_mlp_weights, mlp_loss_grad


# -- loss and gradient ----------------------------------------------------------------------
def _tiny(loss, seed=0, n=7, d=3, H=4):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n, d))
    K = {"squared": 2, "tanh_squared": 2, "logistic": 1, "softmax": 3}[loss]
    if loss in ("squared", "tanh_squared"):
        T = rng.standard_normal((n, K))
    elif loss == "logistic":
        T = rng.choice([-1.0, 1.0], (n, 1))
    else:
        T = np.eye(K)[rng.randint(K, size=n)]
    W1, b1, W2, b2 = (rng.standard_normal((H, d)), rng.standard_normal(H),
                      rng.standard_normal((K, H)), rng.standard_normal(K))
    return X, T, [W1, b1, W2, b2]


def _naive_loss(X, T, W, loss, wd):
    """The loss written directly in numpy (independent of the Cython code)."""
    W1, b1, W2, b2 = W
    O = np.tanh(X @ W1.T + b1) @ W2.T + b2
    if loss == "squared":
        Q = 0.5 * ((O - T) ** 2).sum(axis=1)
    elif loss == "tanh_squared":
        Q = 0.5 * ((np.tanh(O) - T) ** 2).sum(axis=1)
    elif loss == "logistic":
        Q = np.log1p(np.exp(-T[:, 0] * O[:, 0]))
    else:
        Q = -(T * (O - np.log(np.exp(O).sum(axis=1, keepdims=True)))).sum(axis=1)
    return Q.mean() + 0.5 * wd * ((W1 ** 2).sum() + (W2 ** 2).sum())


@pytest.mark.parametrize("loss", ["squared", "tanh_squared", "logistic", "softmax"])
@pytest.mark.parametrize("wd", [0.0, 0.3])
def test_loss_and_gradient_against_finite_differences(loss, wd):
    X, T, W = _tiny(loss)
    J, *G = mlp_loss_grad(X, T, *W, loss=loss, weight_decay=wd)
    assert J == pytest.approx(_naive_loss(X, T, W, loss, wd), rel=1e-12)
    eps = 1e-6
    for p, (Wp, Gp) in enumerate(zip(W, G)):
        assert Gp.shape == Wp.shape
        fd = np.zeros_like(Wp)
        for idx in np.ndindex(Wp.shape):
            plus = [w.copy() for w in W]
            minus = [w.copy() for w in W]
            plus[p][idx] += eps
            minus[p][idx] -= eps
            fd[idx] = (_naive_loss(X, T, plus, loss, wd)
                       - _naive_loss(X, T, minus, loss, wd)) / (2 * eps)
        np.testing.assert_allclose(Gp, fd, rtol=1e-6, atol=1e-8)


def test_logistic_loss_is_stable_for_large_margins():
    X, T, W = _tiny("logistic")
    W[2] = W[2] * 1e3                                  # outputs of order 1e3: exp would overflow
    J, *G = mlp_loss_grad(X, T, *W, loss="logistic")
    O = np.tanh(X @ W[0].T + W[1]) @ W[2].T + W[3]
    z = T[:, 0] * O[:, 0]
    assert J == pytest.approx(np.mean(np.logaddexp(0.0, -z)), rel=1e-12)
    assert all(np.all(np.isfinite(g)) for g in G)


# -- one epoch against numpy ----------------------------------------------------------------
def _numpy_epochs(X, T, W, orders, lr, decay, wd, loss):
    """Per-example SGD written out in numpy, in the documented order of the updates."""
    W1, b1, W2, b2 = (w.copy() for w in W)
    t = 0
    for order in orders:
        for l in order:
            lam = lr / (1 + decay * t)
            x, y = X[l], T[l]
            h = np.tanh(W1 @ x + b1)
            o = W2 @ h + b2
            if loss == "squared":
                go = o - y
            elif loss == "tanh_squared":
                z = np.tanh(o)
                go = -(y - z) * (1 - z ** 2)
            elif loss == "logistic":
                go = -y / (1 + np.exp(y * o))
            else:
                p = np.exp(o - o.max())
                go = p / p.sum() * y.sum() - y
            gh = (W2.T @ go) * (1 - h ** 2)
            W2 = (1 - lam * wd) * W2 - lam * np.outer(go, h)
            b2 = b2 - lam * go
            W1 = (1 - lam * wd) * W1 - lam * np.outer(gh, x)
            b1 = b1 - lam * gh
            t += 1
    return W1, b1, W2, b2


@pytest.mark.parametrize("loss,n_classes", [("cross_entropy", 2), ("cross_entropy", 3),
                                            ("squared", 2), ("squared", 3), ("regression", 0),
                                            ("tanh_squared", 2), ("tanh_squared", 3)])
def test_estimator_epochs_match_numpy_sgd(loss, n_classes):
    rng = np.random.RandomState(3)
    n, d, H = 30, 4, 6
    X = rng.standard_normal((n, d)) * [1.0, 3.0, 0.5, 2.0] + 5.0
    Xs = (X - X.mean(0)) / X.std(0)
    kw = dict(n_hidden=H, learning_rate=0.05, decay=0.01, weight_decay=0.02, max_iter=2,
              n_iter_no_change=50, random_state=7)
    if loss == "regression":
        y = rng.standard_normal(n) * 4 + 1
        est = MLPRegressor(**kw).fit(X, y)
        T = ((y - y.mean()) / y.std())[:, None]
        kind = "squared"
    else:
        y = rng.randint(n_classes, size=n)
        est = MLPClassifier(loss=loss, **kw).fit(X, y)
        if n_classes == 2:
            T = (2.0 * y - 1)[:, None]
            kind = "logistic" if loss == "cross_entropy" else loss
        elif loss == "cross_entropy":
            T, kind = np.eye(n_classes)[y], "softmax"
        else:
            T, kind = 2 * np.eye(n_classes)[y] - 1, loss
    r = np.random.RandomState(7)                       # the estimator's stream: init, then orders
    W = init_mlp_weights(r, d, H, T.shape[1])
    orders = [r.permutation(n), r.permutation(n)]
    ref = _numpy_epochs(Xs, T, W, orders, 0.05, 0.01, 0.02, kind)
    got = (est.hidden_weights_, est.hidden_bias_, est.output_weights_, est.output_bias_)
    for g, w in zip(got, ref):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-10)
    assert est.n_iter_ == 2 and len(est.loss_curve_) == 2


def test_epoch_function_returns_counter_and_mean_loss():
    X, T, W = _tiny("squared")
    W = [w.copy() for w in W]
    order = np.array([2, 0, 5, 5, 1], dtype=np.intp)
    W0 = [w.copy() for w in W]
    loss, t = _mlp.mlp_epoch(X, T, order, *W, 0.01, 0.0, 0.0, 10, _mlp.LOSSES["squared"])
    assert t == 15
    # the mean loss is that of each example before its own update: the first equals the naive
    assert loss > 0
    first = _naive_loss(X[[2]], T[[2]], W0, "squared", 0.0)
    W1 = [w.copy() for w in W0]
    loss1, _ = _mlp.mlp_epoch(X, T, order[:1], *W1, 0.01, 0.0, 0.0, 0, _mlp.LOSSES["squared"])
    assert loss1 == pytest.approx(first, rel=1e-12)
    with pytest.raises(ValueError, match="order"):
        _mlp.mlp_epoch(X, T, np.array([0, 99], dtype=np.intp), *W, 0.01)


# -- learning -------------------------------------------------------------------------------
def _xor(n=80, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, (n, 2))
    X = X[np.abs(X).min(axis=1) > 0.1][:n]             # a gap around the axes: separable
    y = np.where(X[:, 0] * X[:, 1] > 0, "same", "diff")
    return X, y


@pytest.mark.parametrize("loss", ["cross_entropy", "squared", "tanh_squared"])
def test_mlp_learns_xor(loss):
    X, y = _xor()
    est = MLPClassifier(n_hidden=10, loss=loss, learning_rate=0.1, max_iter=300,
                        random_state=0).fit(X, y)
    assert est.score(X, y) >= 0.97
    assert est.loss_curve_[-1] < 0.5 * est.loss_curve_[0]
    assert np.all(np.isin(est.predict(X), ["same", "diff"]))


def test_multiclass_probabilities_and_decision():
    rng = np.random.RandomState(0)
    centres = np.array([[0, 0], [3, 0], [0, 3]])
    y = np.repeat([0, 1, 2], 20)
    X = centres[y] + 0.5 * rng.standard_normal((60, 2))
    est = MLPClassifier(n_hidden=6, learning_rate=0.05, max_iter=100, random_state=0)
    est.fit(X, y)
    assert est.score(X, y) >= 0.95
    D = est.decision_function(X)
    P = est.predict_proba(X)
    assert D.shape == P.shape == (60, 3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    E = np.exp(D - D.max(axis=1, keepdims=True))
    np.testing.assert_allclose(P, E / E.sum(axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(est.predict_log_proba(X), np.log(P), rtol=1e-9, atol=1e-12)
    assert not hasattr(MLPClassifier(loss="squared").fit(X, y), "predict_proba")


def test_regressor_fits_a_sine_and_stores_standardisation():
    rng = np.random.RandomState(0)
    X = rng.uniform(-3, 3, (80, 1)) * 10 + 100
    y = 50 * np.sin((X[:, 0] - 100) / 10) + 7
    est = MLPRegressor(n_hidden=10, learning_rate=0.05, max_iter=300, random_state=0)
    est.fit(X, y)
    assert est.score(X, y) > 0.95
    np.testing.assert_allclose(est.mean_, X.mean(0))
    np.testing.assert_allclose(est.scale_, X.std(0))
    assert est.y_mean_[0] == pytest.approx(y.mean())
    Y2 = np.column_stack([y, -y])
    P = MLPRegressor(n_hidden=10, learning_rate=0.05, max_iter=50, random_state=0) \
        .fit(X, Y2).predict(X)
    assert P.shape == (80, 2)


# -- early stopping -------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["classifier", "regressor"])
def test_early_stopping_keeps_the_best_validation_weights(kind):
    rng = np.random.RandomState(1)
    X = rng.standard_normal((60, 5))
    Xv = rng.standard_normal((40, 5))
    if kind == "classifier":
        f = lambda Z: np.where(Z[:, 0] + 0.8 * rng.standard_normal(len(Z)) > 0, 1, -1)  # noqa
        Est = MLPClassifier
    else:
        f = lambda Z: Z[:, 0] + 1.0 * rng.standard_normal(len(Z))  # noqa: E731
        Est = MLPRegressor
    y, yv = f(X), f(Xv)
    kw = dict(n_hidden=30, learning_rate=0.1, tol=0.0, n_iter_no_change=5, random_state=0)
    est = Est(max_iter=300, **kw).fit(X, y, X_val=Xv, y_val=yv)
    scores = est.validation_scores_
    assert est.n_iter_ < 300                                     # it stopped
    assert est.n_iter_ == est.best_epoch_ + 5 == len(scores)
    assert est.best_validation_score_ == max(scores) == scores[est.best_epoch_ - 1]
    assert est.score(Xv, yv) == pytest.approx(max(scores), abs=1e-12)
    # the kept weights are those of an explicit run stopped at the best epoch
    ref = Est(max_iter=est.best_epoch_, **{**kw, "n_iter_no_change": 1000}).fit(X, y)
    np.testing.assert_allclose(est.hidden_weights_, ref.hidden_weights_, atol=1e-12)
    np.testing.assert_allclose(est.output_weights_, ref.output_weights_, atol=1e-12)


def test_early_stopping_with_an_internal_split():
    X, y = _xor(80, seed=2)
    est = MLPClassifier(n_hidden=10, learning_rate=0.1, validation_fraction=0.25, n_iter_no_change=3, max_iter=200,
                        random_state=0).fit(X, y)
    assert len(est.validation_scores_) == est.n_iter_
    assert est.best_validation_score_ == max(est.validation_scores_)
    # the standardisation is that of the 60 training examples only
    assert not np.allclose(est.mean_, X.mean(0))
    assert est.fit_time_ > 0
    no_es = MLPClassifier(max_iter=3).fit(X, y)
    assert no_es.validation_scores_ is None and no_es.best_epoch_ is None


def test_internal_split_keeps_every_class_in_training():
    X, y = _xor(40, seed=4)
    y = y.astype(object)
    y[0] = "lonely"                                    # a class of one example
    for loss in ("cross_entropy", "squared"):
        est = MLPClassifier(loss=loss, validation_fraction=0.3,
                            max_iter=3, random_state=0).fit(X, y)
        assert "lonely" in est.classes_ and len(est.classes_) == 3


# -- bad input ------------------------------------------------------------------------------
@pytest.mark.parametrize("params,name", [
    ({"n_hidden": 0}, "n_hidden"), ({"n_hidden": 2.5}, "n_hidden"),
    ({"learning_rate": 0.0}, "learning_rate"), ({"learning_rate": -1}, "learning_rate"),
    ({"loss": "hinge"}, "loss"), ({"decay": -0.1}, "decay"),
    ({"weight_decay": -1.0}, "weight_decay"), ({"max_iter": 0}, "max_iter"),
    ({"validation_fraction": 1.5}, "validation_fraction"), ({"n_iter_no_change": 0},
                                                             "n_iter_no_change"),
    ({"tol": -1.0}, "tol"), ({"validation_fraction": 0.0}, "validation_fraction")])
def test_bad_parameters(params, name):
    X, y = _xor(20)
    with pytest.raises(ValueError, match=name):
        MLPClassifier(**params).fit(X, y)


def test_bad_input():
    X, y = _xor(20)
    with pytest.raises(ValueError, match="2 classes"):
        MLPClassifier().fit(X, np.zeros(len(X)))
    with pytest.raises(ValueError, match="y_val"):
        MLPClassifier().fit(X, y, X_val=X)
    with pytest.raises(ValueError, match="leaves no training or no validation sample"):
        MLPClassifier(validation_fraction=0.01).fit(X, y)
    with pytest.raises(ValueError, match="learning_rate"):
        MLPRegressor(learning_rate=1e6, max_iter=5).fit(X, np.arange(len(X)) ** 3.0)
    with pytest.raises(ValueError, match="loss"):
        mlp_loss_grad(*_tiny("squared")[:2], *_tiny("squared")[2], loss="hinge")
    with pytest.raises(ValueError, match="T must have shape"):
        Xt, T, W = _tiny("squared")
        mlp_loss_grad(Xt, T[:, :1], *W)


def test_verbose_prints_one_line_per_epoch(capsys):
    X, y = _xor(30)
    MLPClassifier(max_iter=3, n_iter_no_change=10, verbose=True, random_state=0).fit(
        X, y, X_val=X, y_val=y)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3 and lines[0].startswith("epoch 1: training loss")
    assert "validation score" in lines[-1]


def test_tanh_squared_decision_is_the_tanh_of_the_outputs_and_has_no_proba():
    X, y = _xor()
    est = MLPClassifier(n_hidden=5, loss="tanh_squared", max_iter=3, random_state=0).fit(X, y)
    Xs = (X - est.mean_) / est.scale_
    f = np.tanh(Xs @ est.hidden_weights_.T + est.hidden_bias_) @ est.output_weights_[0] \
        + est.output_bias_[0]
    np.testing.assert_allclose(est.decision_function(X), np.tanh(f), rtol=1e-12)
    assert not hasattr(est, "predict_proba")


def test_callback_sees_every_epoch_and_can_stop():
    X, y = _xor()
    seen = []

    def cb(info):
        # the weights given are those of the epoch just run: its loss is the curve's last
        seen.append((info["iteration"], info["loss"], info["estimator"].loss_curve_[-1]))
        return info["iteration"] < 4

    est = MLPClassifier(n_hidden=5, max_iter=50, n_iter_no_change=100, random_state=0,
                        callback=cb).fit(X, y)
    assert [s[0] for s in seen] == [1, 2, 3, 4] and est.n_iter_ == 4
    assert all(a == b for _, a, b in seen)
    with pytest.raises(ValueError, match="callback"):
        MLPClassifier(callback=3).fit(X, y)
