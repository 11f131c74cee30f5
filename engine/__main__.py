"""`python -m engine`: see engine/cli.py (a help request is served by engine/cli_help.py)."""

import sys

from .cli_help import serve, wants_help


def _main(argv=None) -> int:
    from .cli import main  # imports torch (the registries): not for a help text kept on disk

    return main(argv)


if wants_help(sys.argv[1:]):
    sys.exit(serve(sys.argv[1:], _main))
sys.exit(_main())
