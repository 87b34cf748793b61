"""Writing ``results.csv`` of a 10 s run: the compiled formatter against ``numpy.savetxt``, same bytes.

Run: ``.venv/bin/python benchmarks/csv_write.py [--duration 10] [--repeat 5]``. Prints the median,
minimum and maximum of each way over ``--repeat`` writes, in one process, one after the other, and
whether the two files are byte for byte the same; asserts nothing.

* **formatter** -- :meth:`blocks.recorder.Results.save_csv`: 1000 rows at a time formatted by the
  compiled loop of :mod:`blocks.csv_text` into one byte buffer;
* **savetxt** -- the same header, then :func:`numpy.savetxt` (``fmt="%.10g"``) on the same blocks of
  1000 rows: how ``save_csv`` wrote the file before.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from app.runs import RunSpec, run
from blocks.recorder import CSV_ROWS, Results


def savetxt_csv(res: Results, path: Path, header: str) -> None:
    cols = [res.t[:, None]] + [a.reshape(a.shape[0], -1) for a in res.signals.values()]
    with path.open("w", newline="", encoding="utf-8") as fh:
        fh.write(header)
        for start in range(0, res.t.shape[0], CSV_ROWS):
            np.savetxt(fh, np.hstack([c[start: start + CSV_ROWS] for c in cols]), fmt="%.10g", delimiter=",")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=10.0, help="simulated seconds [s]")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    res = run(RunSpec(dataset="sneakers", duration=a.duration)).results
    n = res.t.size * (1 + sum(v.size // res.t.size for v in res.signals.values()))
    with tempfile.TemporaryDirectory(prefix="gb_csv_") as tmp:
        new, old = Path(tmp) / "new.csv", Path(tmp) / "old.csv"
        res.save_csv(new)  # warm: the formatter's compiled loop is loaded (or compiled, the first time)
        with new.open(encoding="utf-8", newline="") as fh:
            header = fh.readline()
        times: dict[str, list[float]] = {"formatter": [], "savetxt": []}
        for _ in range(a.repeat):
            for name, write in (("formatter", lambda: res.save_csv(new)),
                                ("savetxt", lambda: savetxt_csv(res, old, header))):
                start = time.perf_counter()
                write()
                times[name].append(time.perf_counter() - start)
        same = new.read_bytes() == old.read_bytes()
        size = new.stat().st_size
    assert next(csv.reader([header]))[0] == "t [s]"
    print(f"results.csv of a {a.duration:g} s run: {res.t.size} rows, {n:,} numbers, {size / 1e6:.1f} MB")
    for name, w in times.items():
        print(f"  {name:<10} median {statistics.median(w):6.3f} s  (min {min(w):.3f}, max {max(w):.3f}, "
              f"n={len(w)})")
    ratio = statistics.median(times["savetxt"]) / statistics.median(times["formatter"])
    print(f"  savetxt / formatter: {ratio:.1f}x; files byte for byte the same: {same}")


if __name__ == "__main__":
    main()
