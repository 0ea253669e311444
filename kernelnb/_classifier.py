"""What the package's two-class classifiers share."""
from __future__ import annotations

from sklearn.base import ClassifierMixin
from sklearn.utils.validation import check_is_fitted


class BinaryClassifierMixin(ClassifierMixin):
    """A classifier of two classes with a real-valued ``decision_function``: ``predict`` is
    ``classes_[1]`` where it is positive and ``classes_[0]`` elsewhere, and scikit-learn's tags
    say that it takes two classes only."""

    def predict(self, X):
        """Predict the classes of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``classes_[1]`` where ``decision_function(X) > 0``, else ``classes_[0]``.
        """
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
