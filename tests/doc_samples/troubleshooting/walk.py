"""docs/troubleshooting.md: an index out of range in compiled code, raised at the user's line."""

import numpy as np
from heat import heat

heat(np.linspace(0.0, 1.0, 64), 65)
