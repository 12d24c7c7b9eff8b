"""``python -m astcompile.cli COMMAND ...``, the same as the ``astcompile`` console script."""

import sys

from astcompile.cli import main

sys.exit(main())
