"""Errors caused by user input; the CLI and GUI show them as one clear message.

They live in ``models`` (the lowest layer) so that ``blocks`` and ``app`` can build on them.
"""

from __future__ import annotations


class UserError(Exception):
    """Base of every error caused by user input: bad files, bad diagrams, bad options.

    The command line prints it as one line and exits with code 2; the GUI shows it in a
    dialog. Never raise it for a bug in gaitblocks itself.
    """


class DataFormatError(UserError, ValueError):
    """A gait data file cannot be read or fails a check.

    The message names the file and, where known, the line, column or channel.
    """

    def __init__(self, message: str, *, path: object = None, line: int | None = None,
                 column: str | int | None = None, channel: str | None = None) -> None:
        where = []
        if path is not None:
            where.append(str(path))
        if line is not None:
            where.append(f"line {line}")
        if column is not None:
            where.append(f"column {column}")
        if channel is not None:
            where.append(f"channel {channel}")
        self.path, self.line, self.column, self.channel = path, line, column, channel
        self.reason = message
        super().__init__(f"{', '.join(where)}: {message}" if where else message)
