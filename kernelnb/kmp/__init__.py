"""Kernel Matching Pursuit (Vincent & Bengio 2002): basic, back-fitting and pre-fitting."""
from .estimators import KMPClassifier, KMPRegressor

__all__ = ["KMPClassifier", "KMPRegressor"]
