"""``gaitblocks validate``: inverse dynamics, joint reactions and round trips against reference data.

Prints a table (measure, value, bound, pass/fail), writes overlay plots (ours against the
reference) as PNG files, and exits with 1 if any bound fails. See :mod:`models.validation`.

The data folder is ``--data``, else ``$GAITBLOCKS_DATA``, else the reference data shipped in
``grf_data/reference`` (:mod:`grf_data.refdata`). A comparison whose input is one of the files
not shipped for their licence (``grf_data.refdata.NOT_SHIPPED``) and absent from the folder is
skipped with a one-line note naming the file; any other missing file is an error (exit 2).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from models.errors import UserError

if TYPE_CHECKING:
    from models.validation import Overlay, Row

HELP = "validate inverse dynamics, joint reactions and round trips against reference data"
GROUPS = (("vdb_running", "vdB running"), ("gatk_leg2d", "GATK"), ("opensim_subject01", "OpenSim"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=None,
                        help="reference data folder (default: $GAITBLOCKS_DATA, else the shipped grf_data/reference)")
    parser.add_argument("--only", choices=[stem for stem, _ in GROUPS], action="append", default=None,
                        help="run only this comparison (repeatable; leaves out the consistency and mechanism checks)")
    parser.add_argument("--out", type=Path, default=Path("validation"), help="folder for the PNG plots")


def format_table(rows: list[Row]) -> str:
    width = max(len(r.measure) for r in rows)
    lines = [f"{'measure':<{width}}  {'value':>11}  {'bound':>9}  result", "-" * (width + 33)]
    for r in rows:
        bound = "-" if r.bound is None else f"{'>=' if r.kind == 'min' else '<='}{r.bound:.3g}"
        result = "info" if r.bound is None else ("pass" if r.passed else "FAIL")
        lines.append(f"{r.measure:<{width}}  {r.value:>11.4g}  {bound:>9}  {result}")
    return "\n".join(lines)


def write_plots(plots: list[Overlay], out: Path) -> list[Path]:
    """One PNG per comparison, one panel per signal."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, prefix in GROUPS:
        group = [p for p in plots if p.title.startswith(prefix)]
        if not group:
            continue
        ncol = 2
        nrow = (len(group) + 1) // ncol
        fig, axes = plt.subplots(nrow, ncol, figsize=(10, 2.4 * nrow), squeeze=False)
        for ax, p in zip(axes.flat, group, strict=False):
            ax.plot(p.t, p.reference, "k-", lw=2.5, alpha=0.5, label="reference")
            ax.plot(p.t, p.ours, "r--", lw=1.2, label="ours")
            ax.set_title(p.title, fontsize=9)
            ax.set_ylabel(p.ylabel, fontsize=8)
            ax.tick_params(labelsize=7)
        for ax in list(axes.flat)[len(group):]:
            ax.set_visible(False)
        axes.flat[0].legend(fontsize=7, frameon=False)
        for ax in axes[-1]:
            ax.set_xlabel("time [s]", fontsize=8)
        fig.tight_layout()
        path = out / f"{stem}.png"
        fig.savefig(path, dpi=90)
        plt.close(fig)
        written.append(path)
    return written


def skipped(data: Path, comparisons: list[str]) -> dict[str, str]:
    """Comparison -> note, for those whose not-shipped input file is absent from ``data``."""
    from grf_data.refdata import NOT_SHIPPED, not_shipped_note
    from models.validation import INPUTS

    titles = dict(GROUPS)
    notes = {}
    for name in comparisons:
        absent = [f for f in INPUTS[name] if f in NOT_SHIPPED and not (data / f).is_file()]
        if absent:
            notes[name] = not_shipped_note(absent[0], f"{titles[name]} comparison")
    return notes


def run(args: argparse.Namespace) -> int:
    from grf_data.refdata import data_dir

    data = args.data if args.data is not None else data_dir()
    if not data.is_dir():
        raise UserError(f"data folder not found: {data} (give --data DIR or set GAITBLOCKS_DATA)")
    from models.validation import run_all

    wanted = args.only or [stem for stem, _ in GROUPS]
    notes = skipped(data, wanted)
    rows, plots = run_all(data, tuple(n for n in wanted if n not in notes), checks=args.only is None)
    if rows:
        print(format_table(rows))
    for note in notes.values():
        print(f"note: {note}")
    for path in write_plots(plots, args.out):
        print(f"wrote {path}")
    failed = [r for r in rows if not r.passed]
    print(f"{len(rows) - len(failed)}/{len(rows)} rows pass" + (f"; FAILED: {len(failed)}" if failed else "")
          + (f"; {len(notes)} comparison(s) not run (note above)" if notes else ""))
    return 1 if failed else 0
