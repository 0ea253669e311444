"""Server-side limits of a dashboard's controls: what a page may set, checked in the kernel.

The browser keeps a slider inside its ``min``/``max``, but a page can send any widget state
(``set_state({"max": 10**9, "value": 10**9})``). So when a dashboard is built, the limits each
control declares are recorded (:meth:`ControlLimits._declare_limits`): ``min``/``max`` (and
``base``) of numeric sliders and bounded texts, the options of drop-downs, toggles and multiple
selections, ``bool`` for check boxes. A change of those traits that the dashboard did not make
itself (inside :meth:`ControlLimits.changing_limits`) is put back at once, and
:meth:`kernelnb.lab.app.Dashboard.update` re-checks every value a control holds
(:meth:`ControlLimits._checked_controls`): a number outside its limits is clamped (and the
control moved back), a non-finite number, a value of the wrong type or outside the options is
refused with a message in the page and nothing is computed. Values passed to ``update`` from
Python are the caller's (a notebook may go beyond a slider); the estimators validate them.

:class:`ControlLimits` is a mixin of :class:`kernelnb.lab.app.Dashboard`: it reads the
dashboard's ``controls``, ``hold()`` and the ``_limits``, ``_accepted`` and ``_changing`` that
``Dashboard.__init__`` sets.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
import numbers

import ipywidgets as widgets

from ..i18n import _

__all__ = ["ControlLimits"]


def _is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


@dataclasses.dataclass
class _Limits:
    """What a control declared when the dashboard was built (or re-declared since).

    ``kind``: 'range' (``lo`` <= value <= ``hi``, ``integer`` for int widgets), 'options' (value
    among ``options``), 'multi' (a tuple of values among ``options``), 'bool', or 'free' (not
    checked: a widget kind without limits). ``traits``: the limit traits put back when a page
    changes them.
    """

    kind: str
    traits: dict
    lo: float = -math.inf
    hi: float = math.inf
    integer: bool = False
    options: tuple = ()


#: Traits that carry a control's limits (put back when the page changes them).
_LIMIT_TRAITS = ("min", "max", "base", "_options_labels")


def _limits_of(w):
    """The limits control ``w`` declares now."""
    traits = {t: getattr(w, t) for t in _LIMIT_TRAITS if w.has_trait(t)}
    if isinstance(w, widgets.SelectMultiple):
        return _Limits("multi", traits, options=tuple(w._options_values))
    if hasattr(w, "_options_values"):
        return _Limits("options", traits, options=tuple(w._options_values))
    if isinstance(w, widgets.FloatLogSlider):
        return _Limits("range", traits, lo=float(w.base) ** float(w.min),
                       hi=float(w.base) ** float(w.max))
    if "min" in traits and "max" in traits and _is_number(w.value):
        return _Limits("range", traits, lo=traits["min"], hi=traits["max"],
                       integer=isinstance(w.value, numbers.Integral))
    if isinstance(w.value, bool):
        return _Limits("bool", traits)
    return _Limits("free", traits)


def _member(value, options):
    try:
        return any(value == o and type(value) is type(o) or value is o for o in options)
    except Exception:  # noqa: BLE001 - an odd value is simply not a member
        return False


class ControlLimits:
    """The server-side limits of a dashboard's controls (see the module docstring); a mixin of
    :class:`kernelnb.lab.app.Dashboard`."""

    def _declare_limits(self, *names):
        """Record the limits the controls ``names`` (default: all) hold now as their declared ones.

        Called once when the dashboard is built; a dashboard that changes a control's limits
        from Python does it inside :meth:`changing_limits`, which calls this at the end.
        """
        for name in names or tuple(self.controls):
            w = self.controls[name]
            first = name not in self._limits
            self._limits[name] = _limits_of(w)
            self._accepted[name] = w.value
            if first:
                traits = [t for t in _LIMIT_TRAITS if w.has_trait(t)]
                if traits:
                    w.observe(lambda change, name=name: self._on_limit_change(name, change),
                              names=traits)

    @contextlib.contextmanager
    def changing_limits(self, *names):
        """Change the limits or options of the controls ``names`` from Python (e.g. a data set's
        noise range): the changes are kept and become the declared limits; no update runs."""
        before = set(self._changing)
        self._changing.update(names)
        try:
            with self.hold():
                yield
        finally:
            self._changing = before
            self._declare_limits(*names)

    def _on_limit_change(self, name, change):
        """A limit trait of a control changed: unless the dashboard did it, put it back."""
        if name in self._changing or name not in self._limits:
            return
        declared = self._limits[name].traits.get(change["name"])
        if declared is not None and change["new"] != declared:
            self._restore_limits(name)

    def _restore_limits(self, *names):
        """Put back the declared limit traits of ``names`` (default: all) where they differ."""
        for name in names or tuple(self._limits):
            if name in self._changing:
                continue
            w, lim = self.controls[name], self._limits[name]
            wrong = {t: v for t, v in lim.traits.items() if getattr(w, t) != v}
            if not wrong:
                continue
            with self.hold():
                # widen first so that no intermediate state is refused (min > max)
                for t in ("base", "_options_labels"):
                    if t in wrong:
                        w.set_trait(t, wrong[t])
                if "min" in wrong and wrong["min"] > w.max:
                    w.max = lim.traits["max"]
                for t in ("min", "max"):
                    if t in wrong and getattr(w, t) != wrong[t]:
                        setattr(w, t, wrong[t])
                if lim.kind == "options" and w.has_trait("index"):
                    w.set_trait("index", lim.options.index(w.value) if w.value in lim.options
                                else w.index if w.index is not None
                                and 0 <= w.index < len(lim.options) else 0)

    def _checked_controls(self, explicit=()):
        """Every control's value, checked against its declared limits.

        A number outside the limits is clamped and the control moved to it; a non-finite
        number, a value of the wrong type or outside the options raises ValueError (the control
        goes back to the last value accepted). Names in ``explicit`` (passed from Python) are
        not read.
        """
        self._restore_limits()
        values, refused = {}, []
        for name, w in self.controls.items():
            if name in explicit:
                continue
            v, lim = w.value, self._limits.get(name)
            ok = v
            if lim is None or lim.kind == "free":
                pass
            elif lim.kind == "range":
                if not _is_number(v) or not math.isfinite(v):
                    ok = None
                elif v < lim.lo or v > lim.hi:
                    ok = min(max(v, lim.lo), lim.hi)
                    ok = int(ok) if lim.integer else ok
                    with self.hold():
                        w.value = ok
            elif lim.kind == "options":
                ok = v if _member(v, lim.options) else None
            elif lim.kind == "multi":
                ok = v if isinstance(v, tuple) and all(_member(e, lim.options) for e in v) \
                    else None
            elif lim.kind == "bool":
                ok = v if isinstance(v, bool) else None
            if ok is None:
                shown = repr(v)
                refused.append(f"{name}={shown if len(shown) <= 60 else shown[:57] + '...'}")
                with self.hold():
                    try:
                        w.value = self._accepted[name]
                    except Exception:  # noqa: BLE001 - the last value may no longer fit
                        pass
                continue
            values[name] = ok
        if refused:
            raise ValueError(_("refused control value(s) outside what the controls allow: "
                               "{values}; nothing was recomputed").format(
                                   values=", ".join(refused)))
        return values
