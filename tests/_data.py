"""The data sets kernelnb does not ship, found as a user's kernelnb finds them: in the folder named
by ``KERNELNB_DATA``, then in ``~/.cache/kernelnb`` (the loaders' own lookup, nothing else)."""
from pathlib import Path

from kernelnb.datasets.fashion_mnist import fashion_mnist_paths

#: Why a test that needs the real Fashion-MNIST files is skipped.
NO_FASHION_MNIST = ("Fashion-MNIST is not in $KERNELNB_DATA or ~/.cache/kernelnb "
                    "(kernelnb.datasets.load_fashion_mnist(kind, download=True) fetches it)")


def fashion_mnist_folder():
    """The folder that holds the four Fashion-MNIST files where ``load_fashion_mnist`` finds
    them, or None."""
    found = [fashion_mnist_paths(kind) for kind in ("train", "test")]
    if None in found:
        return None
    folders = {Path(path).parent for pair in found for path in pair}
    return folders.pop() if len(folders) == 1 else None
