"""Reproductions of R. Collobert's thesis, *Large Scale Machine Learning* (Paris VI, 2004)."""
