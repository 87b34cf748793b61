"""The ``gaitblocks`` command line.

Each sub-command lives in its own module ``app/commands/<name>.py`` that defines::

    HELP: str                                   # one line for ``gaitblocks --help``
    def add_arguments(parser) -> None           # argparse options
    def run(args) -> int                        # exit code

Only the module of the command being run is imported (``gaitblocks --help`` imports none), and
command modules import the engine inside ``run``, so the help and a user error print at once.
User errors (bad files, bad diagrams, bad options) are reported as one line on stderr with exit
code 2, never as a traceback. Every option's help shows its default. ``gaitblocks --version``
prints the version (``app/version.py``).
"""

from __future__ import annotations

import argparse
import importlib
import sys

from app.version import version
from models.errors import UserError

# command name -> (module, what it does)
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("app.commands.run", "simulate a diagram on a dataset, write results"),
    "solve": ("app.commands.solve", "solve the periodic gait a recording's GRF and CoP produce (posture)"),
    "compare": ("app.commands.compare", "compare footwear conditions side by side"),
    "tune": ("app.commands.tune", "tune PID gains (Ziegler-Nichols or optimisation)"),
    "sweep": ("app.commands.sweep", "run a parameter grid"),
    "datasets": ("app.commands.datasets", "list bundled and registered datasets"),
    "data": ("app.commands.data", "inspect a gait data file (data info FILE)"),
    "validate": ("app.commands.validate", "validate inverse dynamics against reference data"),
    "gui": ("app.commands.gui", "open the desktop GUI"),
}


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows ``(default: X)`` after every option that has a default other than None/False/[]."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if "%(default)" in text or "default:" in text or action.default in (None, False, [], argparse.SUPPRESS):
            return text
        return super()._get_help_string(action)


def _command_of(argv: list[str]) -> str | None:
    """The sub-command named in ``argv`` (first word that is not an option), if it is known."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser; only the command named in ``argv`` (all with ``argv=None``) gets its options."""
    parser = argparse.ArgumentParser(
        prog="gaitblocks", formatter_class=HelpFormatter,
        description="Block-diagram simulator of a five-link biped walking on recorded ground reaction forces.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = set(COMMANDS) if argv is None else {_command_of(argv)}
    for name, (module_name, summary) in COMMANDS.items():
        if name not in wanted:
            sub.add_parser(name, help=summary, add_help=False)
            continue
        module = importlib.import_module(module_name)
        help_text = getattr(module, "HELP", summary)
        cmd = sub.add_parser(name, help=summary, description=help_text, formatter_class=HelpFormatter)
        module.add_arguments(cmd)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    module = importlib.import_module(COMMANDS[args.command][0])
    try:
        return int(module.run(args) or 0)
    except UserError as exc:
        print(f"gaitblocks {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"gaitblocks {args.command}: interrupted", file=sys.stderr)
        return 130


def gui_main() -> int:
    """Entry point of ``gaitblocks-gui``: the same as ``gaitblocks gui``."""
    return main(["gui", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
