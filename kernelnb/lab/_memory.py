"""Each kernel's memory limit: now :mod:`kernelnb.lab.server._memory`.

Kept only because ``kernelnb/lab/app/_base.py`` imports :func:`kernel_memory_limit_mb` from here
(that file is being split by other work); remove this module once it imports
``kernelnb.lab.server._memory``.
"""
from .server._memory import kernel_memory_limit_mb

__all__ = ["kernel_memory_limit_mb"]
