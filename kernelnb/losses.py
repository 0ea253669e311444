"""Margin losses (and the epsilon-insensitive regression loss): value and derivative.

A margin loss is a function L(m) of the margin m = y f(x), with labels y in {-1, +1} and the
class given by sign f(x). The losses are those compared in the seeds:

=================  ============================  ==============================================
name               L(m)                          source
=================  ============================  ==============================================
``hinge``          max(0, 1 - m)                 SVM soft margin; KMP paper Fig. 5 and Eq. 13
                                                 (Vincent & Bengio 2002); Collobert's thesis,
                                                 whose beta-hinge max(0, beta - m) is
                                                 ``get_loss('hinge', beta=...)``
``squared_hinge``  max(0, 1 - m)^2               L2 soft-margin SVM (Chapelle's thesis ch. 2)
``logistic``       log(1 + exp(-m))              cross-entropy (Collobert, Eq. 3.13); the
                                                 LogitBoost loss up to scaling
``logitboost``     log2(1 + exp(-2 m))           LogitBoost as drawn in the KMP paper's Fig. 5
                                                 (= logistic(2 m) / log 2)
``exponential``    exp(-m)                       AdaBoost (KMP paper Fig. 5)
``1-tanh``         1 - tanh(m)                   "Doom II" (KMP paper Fig. 5)
``tanh``           (0.65 - tanh(m))^2            KMP-tanh: (tanh f - 0.65 y)^2, KMP paper §3.2;
                                                 0.65 ~ the point of maximal second derivative
                                                 of tanh (LeCun et al. 1998)
``squared``        (1 - m)^2 = (y - f)^2         KMP-mse (least squares) for y = +-1
``perceptron``     max(0, -m)                    the perceptron criterion (Collobert, Eq. 8.14)
``zero_one``       1 if m <= 0 else 0            the 0-1 error, a reference (sign(0) counts as
                                                 an error); its derivative is 0 wherever defined
``vrm``            phi(-m / sigma),              the vicinal risk of a point whose vicinity is a
                   phi(x) = (1 + erf(x/√2)) / 2  Gaussian of width sigma (Chapelle's thesis §1.3,
                                                 Eqs. 1.15/1.16: m is then the distance to the
                                                 boundary, m = y f / ||w||); ``sigma`` default 1
``vrm_hinge``      max(0, 1/2 - m/(sigma √2π))   its convex surrogate (thesis §2.1.3, Fig. 2.2):
                                                 the tangent of phi(-m/sigma) at m = 0, clipped at
                                                 zero, which it reaches at m = √(π/2) sigma
=================  ============================  ==============================================

The regression loss ``epsilon_insensitive`` (SVR; Collobert's thesis ch. 3) is a function of the residual
``r = y - f(x)``: ``L(r) = max(0, |r| - epsilon)``.

Each loss is a :class:`Loss` object with ``name``, ``label`` (a plain-Unicode legend for charts),
``kind`` ('margin' or 'regression'), ``convex`` and ``smooth`` (continuously differentiable) flags,
and the vectorised :meth:`Loss.value` and :meth:`Loss.derivative` (d L / d m, or d L / d r). At a
kink the derivative returned is 0, which lies in the subdifferential of every kinked loss here
(the subgradient of smallest magnitude). :meth:`Loss.loss` and :meth:`Loss.gradient` take (y, f)
instead: the gradient d L / d f is what function-space gradient descent (KMP with a non-squared
loss, KMP paper Eq. 8) uses as the negative pseudo-residue.
"""
import math
import numbers

import numpy as np
from scipy.special import expit, ndtr

from ._validation import POSITIVE, interval, check_param

__all__ = ["Loss", "get_loss", "LOSSES", "LOSS_NAMES", "zero_one"]

_LN2 = math.log(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _real_param(value, name, loss, minimum=None):
    """A loss parameter checked by the package's one mechanism (:mod:`kernelnb._validation`):
    a finite number, at least ``minimum`` when given."""
    constraint = interval(numbers.Real, minimum, None, closed="left" if minimum is not None
                          else "neither")
    return float(check_param(name, value, [constraint], f"the {loss!r} loss"))


class Loss:
    """A loss of the margin m = y f (kind 'margin') or of the residual r = y - f (kind 'regression').

    Build losses with :func:`get_loss`; each subclass is one loss of the table above.

    Parameters
    ----------
    **params : dict
        The loss's parameters (see :func:`get_loss`); a name the loss does not take raises a
        ``TypeError``.

    Attributes
    ----------
    name : str
        Registry name (a key of :data:`LOSSES`).
    label : str
        Legend text for charts, e.g. ``'exponential e^−m (AdaBoost)'``.
    kind : {'margin', 'regression'}
    convex, smooth : bool
        Whether L is convex, and continuously differentiable.
    params : dict
        The parameters the loss was built with (see :func:`get_loss`).
    """

    name = None
    kind = "margin"
    convex = True
    smooth = True
    _param_names = ()

    def __init__(self, **params):
        unknown = sorted(set(params) - set(self._param_names))
        if unknown:
            allowed = list(self._param_names) or "none"
            raise TypeError(f"the {self.name!r} loss takes no parameter {unknown[0]!r} "
                            f"(its parameters: {allowed})")
        self.params = {}

    @property
    def label(self):
        return self._label()

    def _label(self):
        raise NotImplementedError

    def _value(self, m):
        raise NotImplementedError

    def _derivative(self, m):
        raise NotImplementedError

    @staticmethod
    def _as_array(m):
        return np.asarray(m, dtype=np.float64)

    def value(self, m):
        """L(m), element-wise (m is the margin y f, or the residual y - f for regression)."""
        out = self._value(self._as_array(m))
        return out[()] if out.ndim == 0 else out

    def derivative(self, m):
        """dL/dm, element-wise; 0 at a kink."""
        out = self._derivative(self._as_array(m))
        return out[()] if out.ndim == 0 else out

    __call__ = value

    def loss(self, y, f):
        """L as a function of targets y (+-1 for margin losses) and outputs f: L(y f) or L(y - f)."""
        y, f = self._as_array(y), self._as_array(f)
        return self.value(y * f if self.kind == "margin" else y - f)

    def gradient(self, y, f):
        """dL/df: y L'(y f) for a margin loss, -L'(y - f) for a regression loss."""
        y, f = self._as_array(y), self._as_array(f)
        if self.kind == "margin":
            return y * self.derivative(y * f)
        return -self.derivative(y - f)

    def __repr__(self):
        args = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return f"get_loss({self.name!r}{args})"

    def __eq__(self, other):
        return type(other) is type(self) and other.params == self.params

    def __hash__(self):
        return hash((self.name, tuple(sorted(self.params.items()))))


class Hinge(Loss):
    name = "hinge"
    smooth = False
    _param_names = ("beta",)

    def __init__(self, beta=1.0, **params):
        super().__init__(**params)
        self.beta = _real_param(beta, "beta", self.name)
        self.params = {"beta": self.beta}

    def _label(self):
        if self.beta == 1.0:
            return "hinge [1 − m]₊ (SVM)"
        return f"β-hinge [{self.beta:g} − m]₊"

    def _value(self, m):
        return np.maximum(0.0, self.beta - m)

    def _derivative(self, m):
        return np.where(m < self.beta, -1.0, 0.0)


class SquaredHinge(Loss):
    name = "squared_hinge"

    def _label(self):
        return "squared hinge [1 − m]₊² (L2-SVM)"

    def _value(self, m):
        return np.maximum(0.0, 1.0 - m) ** 2

    def _derivative(self, m):
        return -2.0 * np.maximum(0.0, 1.0 - m)


class Logistic(Loss):
    name = "logistic"

    def _label(self):
        return "logistic log(1 + e^−m) (LogitBoost)"

    def _value(self, m):
        return np.logaddexp(0.0, -m)

    def _derivative(self, m):
        return -expit(-m)


class LogitBoost(Loss):
    name = "logitboost"

    def _label(self):
        return "LogitBoost log₂(1 + e^−2m) (KMP Fig. 5)"

    def _value(self, m):
        return np.logaddexp(0.0, -2.0 * m) / _LN2

    def _derivative(self, m):
        return -2.0 / _LN2 * expit(-2.0 * m)


class Exponential(Loss):
    name = "exponential"

    def _label(self):
        return "exponential e^−m (AdaBoost)"

    def _value(self, m):
        with np.errstate(over="ignore"):  # e^-m overflows to inf for m < -709: that is its value
            return np.exp(-m)

    def _derivative(self, m):
        with np.errstate(over="ignore"):
            return -np.exp(-m)


class OneMinusTanh(Loss):
    name = "1-tanh"
    convex = False

    def _label(self):
        return "1 − tanh m (Doom II)"

    def _value(self, m):
        return 1.0 - np.tanh(m)

    def _derivative(self, m):
        t = np.tanh(m)
        return -(1.0 - t * t)


class TanhSquared(Loss):
    name = "tanh"
    convex = False
    _param_names = ("target",)

    def __init__(self, target=0.65, **params):
        super().__init__(**params)
        self.target = _real_param(target, "target", self.name)
        self.params = {"target": self.target}

    def _label(self):
        return f"({self.target:g} − tanh m)² (KMP-tanh)"

    def _value(self, m):
        return (self.target - np.tanh(m)) ** 2

    def _derivative(self, m):
        t = np.tanh(m)
        return -2.0 * (self.target - t) * (1.0 - t * t)


class Squared(Loss):
    name = "squared"

    def _label(self):
        return "squared (1 − m)² (KMP-mse)"

    def _value(self, m):
        return (1.0 - m) ** 2

    def _derivative(self, m):
        return -2.0 * (1.0 - m)


class Perceptron(Loss):
    name = "perceptron"
    smooth = False

    def _label(self):
        return "perceptron [−m]₊"

    def _value(self, m):
        return np.maximum(0.0, -m)

    def _derivative(self, m):
        return np.where(m < 0, -1.0, 0.0)


class ZeroOne(Loss):
    name = "zero_one"
    convex = False
    smooth = False

    def _label(self):
        return "0-1 error 1[m ≤ 0]"

    def _value(self, m):
        return np.where(np.isnan(m), np.nan, (m <= 0).astype(np.float64))

    def _derivative(self, m):
        return np.where(np.isnan(m), np.nan, 0.0)


class VicinalErf(Loss):
    """phi(-m / sigma), phi the standard normal distribution function: the probability that a
    point drawn from N(x, sigma^2 I) falls on the wrong side of a linear boundary at signed
    distance m from x (Chapelle's thesis §1.3, Eqs. 1.14-1.16)."""

    name = "vrm"
    convex = False
    _param_names = ("sigma",)

    def __init__(self, sigma=1.0, **params):
        super().__init__(**params)
        self.sigma = float(check_param("sigma", sigma, POSITIVE, f"the {self.name!r} loss"))
        self.params = {"sigma": self.sigma}

    def _label(self):
        s = "" if self.sigma == 1.0 else f"/{self.sigma:g}"
        return f"VRM erf φ(−m{s}) (Chapelle)"

    def _value(self, m):
        return ndtr(-m / self.sigma)

    def _derivative(self, m):
        u = m / self.sigma
        return -_INV_SQRT_2PI / self.sigma * np.exp(-0.5 * u * u)


class VicinalHinge(VicinalErf):
    """The convex surrogate of :class:`VicinalErf` drawn in Fig. 2.2 of Chapelle's thesis:
    ``max(0, 1/2 - m / (sigma sqrt(2 pi)))``, the tangent of phi(-m/sigma) at m = 0 (same value
    1/2 and slope there) clipped at zero, which it reaches at m = sqrt(pi/2) sigma.  Up to the
    factor 1/(sigma sqrt(2 pi)) it is the hinge max(0, sqrt(pi/2) sigma - m): minimising it
    under a norm constraint is the SVM of §2.1.3 (and, with per-point widths, §2.3.1)."""

    name = "vrm_hinge"
    convex = True
    smooth = False

    def _label(self):
        s = "" if self.sigma == 1.0 else f", σ = {self.sigma:g}"
        return f"VRM surrogate [½ − m/(σ√2π)]₊ (Fig. 2.2{s})"

    @property
    def kink(self):
        """sqrt(pi/2) sigma, where the surrogate reaches zero."""
        return math.sqrt(math.pi / 2.0) * self.sigma

    def _value(self, m):
        return np.maximum(0.0, 0.5 - _INV_SQRT_2PI / self.sigma * m)

    def _derivative(self, m):
        return np.where(m < self.kink, -_INV_SQRT_2PI / self.sigma, 0.0)


class EpsilonInsensitive(Loss):
    name = "epsilon_insensitive"
    kind = "regression"
    smooth = False
    _param_names = ("epsilon",)

    def __init__(self, epsilon=0.1, **params):
        super().__init__(**params)
        self.epsilon = _real_param(epsilon, "epsilon", self.name, minimum=0.0)
        self.params = {"epsilon": self.epsilon}

    def _label(self):
        return f"ε-insensitive [|r| − {self.epsilon:g}]₊ (SVR)"

    def _value(self, r):
        return np.maximum(0.0, np.abs(r) - self.epsilon)

    def _derivative(self, r):
        return np.sign(r) * (np.abs(r) > self.epsilon)


_CLASSES = {cls.name: cls for cls in (Hinge, SquaredHinge, Logistic, LogitBoost, Exponential,
                                      OneMinusTanh, TanhSquared, Squared, Perceptron, ZeroOne,
                                      VicinalErf, VicinalHinge, EpsilonInsensitive)}

#: Registry names, in the order charts show them.
LOSS_NAMES = tuple(_CLASSES)

#: ``{name: Loss}`` with default parameters, one per loss (charts iterate over it).
LOSSES = {name: cls() for name, cls in _CLASSES.items()}

#: The 0-1 error, for reference curves.
zero_one = LOSSES["zero_one"]

_ALIASES = {
    "exp": "exponential", "adaboost": "exponential",
    "log": "logistic", "logit": "logistic", "cross_entropy": "logistic", "ce": "logistic",
    "doom2": "1-tanh", "doom_ii": "1-tanh", "one_minus_tanh": "1-tanh",
    "kmp_tanh": "tanh", "tanh_squared": "tanh",
    "mse": "squared", "squared_error": "squared", "least_squares": "squared",
    "l2_hinge": "squared_hinge",
    "epsilon": "epsilon_insensitive", "eps_insensitive": "epsilon_insensitive",
    "0_1": "zero_one", "01": "zero_one",
    "erf": "vrm", "vicinal": "vrm", "vicinal_erf": "vrm",
    "vrm_surrogate": "vrm_hinge", "vicinal_hinge": "vrm_hinge",
}


def get_loss(name, **params):
    """Return the loss ``name`` (a key of :data:`LOSSES` or a common alias) built with ``params``.

    Parameters
    ----------
    name : str or Loss
        'hinge', 'squared_hinge', 'logistic', 'logitboost', 'exponential', '1-tanh', 'tanh',
        'squared', 'perceptron', 'zero_one', 'vrm', 'vrm_hinge', 'epsilon_insensitive'; case
        and '-' vs '_' do not matter, and aliases such as 'adaboost', 'exp', 'mse', 'kmp-tanh',
        'doom2', 'erf', 'vrm_surrogate' are accepted. A :class:`Loss` is returned as is.
    **params
        ``beta`` for 'hinge' (default 1), ``target`` for 'tanh' (default 0.65), ``sigma`` for
        'vrm' and 'vrm_hinge' (the vicinity width, default 1), ``epsilon`` for
        'epsilon_insensitive' (default 0.1). Others raise a TypeError.

    Returns
    -------
    Loss
        The loss object, with ``value`` and ``derivative``.

    Raises
    ------
    ValueError
        Unknown name (the message lists the valid ones) or a bad parameter value.
    TypeError
        ``name`` not a string, or a parameter the loss does not take.

    Examples
    --------
    >>> from kernelnb.losses import get_loss
    >>> hinge = get_loss("hinge")
    >>> print(hinge.value([-1.0, 0.5, 2.0]), hinge.derivative([-1.0, 0.5, 2.0]))
    [2.  0.5 0. ] [-1. -1.  0.]
    >>> get_loss("kmp-tanh")
    get_loss('tanh', target=0.65)
    """
    if isinstance(name, Loss):
        if params:
            raise TypeError(f"get_loss got a Loss object and parameters {sorted(params)}; pass a name")
        return name
    if not isinstance(name, str):
        raise TypeError(f"loss name must be a string or a Loss, got {name!r}")
    key = name.strip().lower()
    if key not in _CLASSES:
        key = key.replace("-", "_").replace(" ", "_")
        key = {"1_tanh": "1-tanh"}.get(key, key)
        key = _ALIASES.get(key, key)
    if key not in _CLASSES:
        raise ValueError(f"unknown loss {name!r}; valid names: {', '.join(LOSS_NAMES)}")
    return _CLASSES[key](**params)
