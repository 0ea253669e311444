"""Reproductions of O. Chapelle's thesis (Paris VI, 2002): one module per chapter or section."""
