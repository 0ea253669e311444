"""``python -m kernelnb``: the ``kernelnb`` command (:mod:`kernelnb._command`)."""
import sys

from ._command import main

sys.exit(main())
