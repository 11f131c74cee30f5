#!/usr/bin/env bash
# THE run command: bash scripts/run.sh  ->  http://localhost:8501
# Creates .venv if missing, installs requirements.txt, then starts the Streamlit app.
# Extra arguments go to `streamlit run`, e.g.  bash scripts/run.sh --server.port 8502
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup-venv.sh
# asgi.py serves app.py as an st.App whose middleware says "Page not found" for /a/b
exec .venv/bin/python -m streamlit run asgi.py "$@"
