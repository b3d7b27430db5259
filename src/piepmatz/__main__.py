"""``python -m piepmatz``: the ``piepmatz`` command, where the script is not on the path."""

import sys

from piepmatz.cli import main

sys.exit(main())
