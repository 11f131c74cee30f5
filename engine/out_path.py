"""What an output flag (`run --out`, `sweep --out`) may name: a regular file or a path that does
not exist yet. A device (/dev/full), a FIFO, a socket, a directory or a symbolic link is refused
in one line: a report written by rename would replace the node itself (as root, /dev/stdout's
link or /dev/full), and a link may point anywhere (docs/cli.md, "Output files")."""

from __future__ import annotations

import os
import stat

from .config import ConfigError

KINDS = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"),
         (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
         (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))


def refuse_special(path: str | os.PathLike, flag: str = "--out") -> None:
    """ConfigError unless path is absent or a regular file (links are not followed)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as err:
        raise ConfigError(flag, str(path), f"a regular file or a new path ({err.strerror})") \
            from None
    for test, kind in KINDS:
        if test(mode):
            raise ConfigError(flag, str(path), f"a regular file or a new path, not {kind}")
    if not stat.S_ISREG(mode):
        raise ConfigError(flag, str(path), "a regular file or a new path")
