"""Reproductions of P. Vincent's thesis (Montréal, 2003) and of Vincent & Bengio's KMP paper (2002)."""
