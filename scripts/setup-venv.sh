#!/usr/bin/env bash
# Create .venv (if missing) and install the locked requirements into it.
#
#   bash scripts/setup-venv.sh           # runtime: requirements.lock
#   bash scripts/setup-venv.sh --test    # runtime + test tools: requirements-test.lock
#
# torch comes first, at the pin of requirements.txt (its wheel depends on the index: CPU or
# CUDA); every other package then at the exact version and sha256 of the lock
# (pip install --require-hashes). requirements*.txt are the human lists the locks are made
# from (docs/hosting.md, "Supply chain", says how to remake them).
#
# Used by scripts/run.sh, scripts/test.sh and .ci/run, so all three install the same way.
# pip is skipped when the requirement files have not changed since the last successful install.
# Environment: PYTHON (interpreter used to create .venv; default python3.11, else python3),
#              TORCH_INDEX_URL (optional extra index for torch, e.g. https://download.pytorch.org/whl/cpu).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

with_test=0
for arg in "$@"; do
    case "$arg" in
        --test) with_test=1 ;;
        *) echo "setup-venv.sh: unknown argument: $arg" >&2; exit 2 ;;
    esac
done

venv="$ROOT/.venv"
fresh=0
if [[ ! -x "$venv/bin/python" ]]; then
    fresh=1
    py="${PYTHON:-}"
    if [[ -z "$py" ]]; then
        if command -v python3.11 >/dev/null 2>&1; then py=python3.11; else py=python3; fi
    fi
    if ! "$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
        echo "setup-venv.sh: $py is $("$py" -V 2>&1); Python 3.11 or newer is required" \
             "(set PYTHON=/path/to/python3.11)." >&2
        exit 1
    fi
    echo "Creating .venv with $("$py" -V 2>&1) ($(command -v "$py"))"
    "$py" -m venv "$venv"
fi

req_files=(requirements.txt requirements.lock)
lock=requirements.lock
if [[ $with_test -eq 1 ]]; then
    req_files+=(requirements-test.txt requirements-test.lock)
    lock=requirements-test.lock  # the runtime lock and the test tools, resolved together
fi

# A stamp per requirement set records the files' hash after a successful install.
digest() { cat "$@" | sha256sum | cut -d' ' -f1; }
stamp_ok() { [[ -f "$venv/.requirements-$1.sha256" && "$(cat "$venv/.requirements-$1.sha256")" == "$2" ]]; }
test_hash="$(digest requirements.txt requirements.lock requirements-test.txt requirements-test.lock)"
runtime_hash="$(digest requirements.txt requirements.lock)"
if stamp_ok test "$test_hash" || { [[ $with_test -eq 0 ]] && stamp_ok runtime "$runtime_hash"; }; then
    echo "Requirements already installed in .venv (${req_files[*]} unchanged)."
    exit 0
fi

pip_args=(--disable-pip-version-check)
# A new venv shows pip's full output and progress (torch is large); an update stays quiet.
[[ $fresh -eq 0 ]] && pip_args+=(--quiet)
if [[ -n "${TORCH_INDEX_URL:-}" ]]; then
    pip_args+=(--extra-index-url "$TORCH_INDEX_URL")
fi
torch_pin="$(grep -E '^torch==' requirements.txt)"

echo "Installing $torch_pin, then $lock (every hash checked) into .venv ..."
"$venv/bin/python" -m pip install "${pip_args[@]}" "$torch_pin"
"$venv/bin/python" -m pip install "${pip_args[@]}" --require-hashes -r "$lock"
if [[ $with_test -eq 1 ]]; then
    echo "$test_hash" > "$venv/.requirements-test.sha256"
fi
echo "$runtime_hash" > "$venv/.requirements-runtime.sha256"
echo "Done."
