#!/usr/bin/env bash
# THE test command: bash scripts/test.sh
# Creates/updates .venv with requirements.txt + requirements-test.txt, then runs the whole pytest suite.
# Extra arguments go to pytest, e.g.  bash scripts/test.sh -m "not browser"  or  bash scripts/test.sh -x
# Browser tests use a system Chromium (/usr/bin/chromium); nothing is downloaded.
# With CI=true, a missing Chromium or a skipped browser test is a failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup-venv.sh --test
exec .venv/bin/python -m pytest "$@"
