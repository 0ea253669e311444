"""Support vector machines trained by decomposition (:mod:`kernelnb.svm._smo`)."""
from .estimators import SVC, SVR, svc_path

__all__ = ["SVC", "SVR", "svc_path"]
