"""A kernel that kills the worker process running it, once (imported by the Dask worker
processes of tests/largescale/test_mixture_faults.py: it is pickled by reference)."""
import os
import signal

import numpy as np


class KillOnce:
    """A Gaussian kernel ``exp(-||x - y||^2 / (2 sigma^2))`` whose first call anywhere kills the
    process that makes it (SIGKILL, as the out-of-memory killer would): the call that creates
    the file ``path`` (exclusive creation: one call in all processes) writes its pid there and
    dies; every other call returns the kernel block."""

    def __init__(self, path, sigma=0.5):
        self.path = str(path)
        self.sigma = sigma

    def __call__(self, X, Y):
        try:
            fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            pass
        else:
            os.write(fd, str(os.getpid()).encode())
            os.close(fd)
            os.kill(os.getpid(), signal.SIGKILL)
        d = (X * X).sum(1)[:, None] + (Y * Y).sum(1)[None, :] - 2.0 * X @ Y.T
        return np.exp(-np.maximum(d, 0.0) / (2.0 * self.sigma ** 2))
