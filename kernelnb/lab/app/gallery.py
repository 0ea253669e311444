"""The gallery: now :mod:`kernelnb.lab.server.gallery`.

Kept only because a docstring of ``kernelnb/lab/app/_base.py`` names this module (that file is
being split by other work); remove this module once it names ``kernelnb.lab.server.gallery``.
"""
from ..server.gallery import *  # noqa: F401,F403
from ..server.gallery import __all__  # noqa: F401
