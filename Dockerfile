# Feature-emergence explorer: the Streamlit dashboard on http://localhost:8501
#
#   CPU (default):  docker build -t feature-emergence . && docker run --rm -p 8501:8501 feature-emergence
#   CUDA build:     docker build --build-arg TORCH_INDEX=https://download.pytorch.org/whl/cu130 \
#                     --build-arg TORCH_LOCK=requirements-torch-cuda.lock -t feature-emergence:gpu .
#                   (or: docker compose --profile gpu up gpu); the CUDA lock with the wheels'
#                   sha256 is made once where the index is reachable (docs/hosting.md).
#
# Only the runtime parts of the repo reach the image; .dockerignore is an allow-list
# (app.py, asgi.py, pages/, engine/, ui/, assets/, .streamlit/ and the requirement files).
# The base image by tag, with its Debian release pinned (bookworm). No registry is reachable
# where this file is tested, so no digest is written here; to pin the exact image, resolve it
# once (docker buildx imagetools inspect python:3.11-slim-bookworm) and build FROM
# python:3.11-slim-bookworm@sha256:<digest> (docs/hosting.md, "Supply chain").
FROM python:3.11-slim-bookworm

# Where torch comes from, and the lock with its wheel's sha256. The CPU index gives a ~200 MB
# torch instead of ~2.7 GB of CUDA libraries; a CUDA build names its own lock (compose.yaml).
# requirements-torch-cpu.lock must pin the torch of requirements.txt (tests/test_dockerfile.py).
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
ARG TORCH_LOCK=requirements-torch-cpu.lock

# One torch thread per session: a hosted app trains one run per browser session, and sessions
# that each use every core fight over them (docs/hosting.md). Closed tabs release sooner (30 s).
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    STREAMLIT_BROWSER_GATHER_USAGE_STATS=false \
    OMP_NUM_THREADS=1 \
    STREAMLIT_SERVER_DISCONNECTED_SESSION_TTL=30

# The image's own defaults are the shared-host limits (docs/hosting.md), so a plain
# `docker run` gets them too; a local `bash scripts/run.sh` keeps the engine's generous ones.
# FEX_MAX_N admits the paper's default (n = 50 000, the landing page) and every Reproduce card
# (tests/test_dockerfile.py); the load test measured about 90 MB a session at that size.
ENV FEX_MAX_MEMORY_MB=1024 \
    FEX_MAX_SECONDS=120 \
    FEX_MAX_N=50000 \
    FEX_MAX_M=2000 \
    FEX_MAX_T=5000 \
    FEX_MAX_DIM=3072 \
    FEX_ALLOW_DOWNLOADS=0 \
    FEX_ALLOW_UPLOADS=0

WORKDIR /app

# Every package that enters the image is checked against a sha256: torch (and, for a CUDA
# build, its nvidia-* wheels) from TORCH_INDEX by TORCH_LOCK, without its dependencies, which
# requirements.lock pins with theirs (pip-compile --generate-hashes; requirements.txt is the
# human list it was made from); `pip check` fails the build if torch lacks one of them.
COPY requirements.txt requirements.lock requirements-torch-*.lock ./
RUN pip install --no-cache-dir --no-deps --require-hashes --index-url "${TORCH_INDEX}" \
        -r "${TORCH_LOCK}" \
    && pip install --no-cache-dir --require-hashes -r requirements.lock \
    && pip check

RUN groupadd --gid 10001 app \
    && useradd --create-home --uid 10001 --gid 10001 --shell /usr/sbin/nologin app

# Application code stays root-owned (read-only for the app user).
COPY . .

# Numeric uid:gid, so runtimes can verify it is not root (e.g. Kubernetes runAsNonRoot).
USER 10001:10001

EXPOSE 8501

HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; r = urllib.request.urlopen('http://localhost:8501/_stcore/health', timeout=4); sys.exit(0 if r.read().strip() == b'ok' else 1)"]

CMD ["streamlit", "run", "asgi.py", "--server.address=0.0.0.0", "--server.port=8501", "--server.headless=true"]
