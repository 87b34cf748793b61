"""``python -m models.gaitgen``: regenerate the bundled synthetic datasets (see :mod:`.generate`)."""

from __future__ import annotations

import sys

from models.gaitgen.generate import main

sys.exit(main())
