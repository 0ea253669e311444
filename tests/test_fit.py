"""The one fit wrapper (kernelnb._fit.fit_context)."""
import warnings

import pytest
from sklearn.base import BaseEstimator

import kernelnb
from kernelnb._callbacks import run_to_end
from kernelnb._fit import fit_context, fit_steps
from kernelnb._validation import POSITIVE


class _Est(BaseEstimator):
    _parameter_constraints = {"C": POSITIVE, "keep": ["boolean"]}

    def __init__(self, *, C=1.0, keep=True):
        self.C = C
        self.keep = keep

    def _check_params_extra(self):
        if self.C == 13:
            raise ValueError("C must not be 13")

    def _on_interrupt(self):
        return self.keep

    @fit_context
    def fit(self, X, y=None, *, interrupt=False, nested=False):
        self.calls_ = getattr(self, "calls_", 0) + 1
        if nested:
            return self.fit(X, y)
        if interrupt:
            raise KeyboardInterrupt
        return self


def test_parameters_are_checked_by_the_table_and_the_extra_rule():
    with pytest.raises(ValueError, match="'C' parameter of _Est must be a float"):
        _Est(C=-1.0).fit(None)
    with pytest.raises(ValueError, match="C must not be 13"):
        _Est(C=13).fit(None)


def test_fit_time_and_interrupted_flag_are_set():
    est = _Est().fit(None)
    assert est.fit_time_ >= 0 and est.interrupted_ is False


def test_an_interrupt_propagates_by_default():
    # a script's loop stops where the user pressed Ctrl-C, even for an estimator that could
    # keep a partial model
    with pytest.raises(KeyboardInterrupt):
        _Est().fit(None, interrupt=True)
    assert kernelnb.get_config()["keep_partial_on_interrupt"] is False


def test_an_interrupt_keeps_a_usable_model_with_a_warning_when_asked():
    with kernelnb.config_context(keep_partial_on_interrupt=True):
        with pytest.warns(RuntimeWarning, match="_Est.fit was interrupted"):
            est = _Est().fit(None, interrupt=True)
        assert est.interrupted_ is True and est.fit_time_ >= 0
        with pytest.raises(KeyboardInterrupt):
            _Est(keep=False).fit(None, interrupt=True)
    # the block put the default back
    with pytest.raises(KeyboardInterrupt):
        _Est().fit(None, interrupt=True)


def test_the_setting_is_checked():
    with pytest.raises(TypeError, match="keep_partial_on_interrupt must be True, False or None"):
        with kernelnb.config_context(keep_partial_on_interrupt="yes"):
            pass


def test_a_nested_fit_checks_and_times_once():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = _Est().fit(None, nested=True)
    assert est.calls_ == 2 and not hasattr(est, "_kernelnb_in_fit")


class _Stepped(_Est):
    @fit_steps
    def _fit_steps(self, X, y=None):
        for i in range(3):
            self.done_ = i + 1
            yield i
        return self

    @fit_context
    def fit(self, X, y=None):
        return run_to_end(self._fit_steps(X, y))


def test_a_fit_in_steps_is_checked_first_and_timed_at_its_end():
    """fit_steps: driven step by step (a dashboard), the parameters are checked before the
    first step and fit_time_ is set at the end; fit runs the same steps under fit_context,
    which checks and times once."""
    steps = _Stepped(C=13)._fit_steps(None)
    with pytest.raises(ValueError, match="C must not be 13"):
        next(steps)
    est = _Stepped()
    steps = est._fit_steps(None)
    assert [next(steps), next(steps), next(steps)] == [0, 1, 2]
    assert est._kernelnb_in_fit and not hasattr(est, "fit_time_")
    with pytest.raises(StopIteration) as end:
        next(steps)
    assert end.value.value is est and est.fit_time_ >= 0 and est.interrupted_ is False
    assert not hasattr(est, "_kernelnb_in_fit")
    closed = _Stepped()
    steps = closed._fit_steps(None)
    next(steps)
    steps.close()                               # a dashboard's update superseded: no flag left
    assert not hasattr(closed, "_kernelnb_in_fit") and not hasattr(closed, "fit_time_")
    with pytest.raises(ValueError, match="C must not be 13"):
        _Stepped(C=13).fit(None)
    assert _Stepped().fit(None).done_ == 3
