"""kernelnb: a kernel-methods lab.

Fast Cython solvers (SVM by decomposition, Kernel Matching Pursuit, local hyperplane nearest
neighbours, Parzen and Manifold Parzen windows, model selection by bounds, mixtures of SVMs)
with course notebooks and Voila dashboards.
"""
__version__ = "0.1.0"

from ._config import config_context, get_config, set_config  # noqa: E402

__all__ = ["config_context", "get_config", "set_config"]
