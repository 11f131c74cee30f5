"""`python -m engine.azl`: see engine/azl/cli.py."""

import sys

from engine.azl.cli import main

sys.exit(main())
