"""The ``gaitblocks`` command line.

Each sub-command lives in its own module ``app/commands/<name>.py`` that defines::

    HELP: str                                   # one line for ``gaitblocks --help``
    def add_arguments(parser) -> None           # argparse options
    def run(args) -> int                        # exit code

Commands listed here whose module does not exist yet print which issue will build them
and exit with code 2. User errors (bad files, bad diagrams, bad options) are reported as
one line on stderr with exit code 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from types import ModuleType

from models.errors import UserError

# command name -> (module, what it does, where it is planned)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "run": ("app.commands.run", "simulate a diagram on a dataset, write results", "issue 3"),
    "compare": ("app.commands.compare", "compare footwear conditions side by side", "issue 5"),
    "tune": ("app.commands.tune", "tune PID gains (Ziegler-Nichols or optimisation)", "issue 7"),
    "sweep": ("app.commands.sweep", "run a parameter grid", "issue 7"),
    "datasets": ("app.commands.datasets", "list bundled and registered datasets", "issue 4"),
    "data": ("app.commands.data", "inspect a gait data file (data info FILE)", "issue 4"),
    "validate": ("app.commands.validate", "validate inverse dynamics against reference data", "issue 8"),
    "gui": ("app.commands.gui", "open the desktop GUI", "issue 6"),
}


def _load(module_name: str) -> ModuleType | None:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None
        raise


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, ModuleType | None]]:
    parser = argparse.ArgumentParser(
        prog="gaitblocks",
        description="Block-diagram simulator of a five-link biped walking on recorded ground reaction forces.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules: dict[str, ModuleType | None] = {}
    for name, (module_name, summary, planned) in COMMANDS.items():
        module = _load(module_name)
        modules[name] = module
        if module is None:
            sub.add_parser(name, help=f"{summary} (not built yet: {planned})", add_help=False)
            continue
        cmd = sub.add_parser(name, help=getattr(module, "HELP", summary), description=getattr(module, "HELP", summary))
        module.add_arguments(cmd)
    return parser, modules


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser, modules = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    module = modules[args.command]
    if module is None:
        _, summary, planned = COMMANDS[args.command]
        print(
            f"gaitblocks {args.command}: {summary} -- not built yet (planned in {planned}). "
            f"Available now: {', '.join(n for n, m in modules.items() if m is not None) or 'none'}.",
            file=sys.stderr,
        )
        return 2
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
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
