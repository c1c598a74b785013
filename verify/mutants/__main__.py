"""``python -m verify.mutants``: the kill matrix of the registered mutants (see :mod:`verify.mutants._harness`)."""

import sys

from verify.mutants._harness import main

if __name__ == "__main__":
    sys.exit(main())
