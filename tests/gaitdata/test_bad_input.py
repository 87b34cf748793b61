"""Bad input: one DataFormatError naming file and line/column/channel; CLI exit 2, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.cli import main

HEAD = "time,F_lx,F_ly,F_rx,F_ry\n"


def _good_rows(n: int = 400, rate: float = 200.0, bw: float = 700.0) -> np.ndarray:
    t = np.arange(n) / rate
    ph_l, ph_r = (t % 1.0), ((t - 0.5) % 1.0)
    fl = np.where(ph_l < 0.6, np.sin(np.pi * ph_l / 0.6), 0.0) * bw * 1.05
    fr = np.where(ph_r < 0.6, np.sin(np.pi * ph_r / 0.6), 0.0) * bw * 1.05
    return np.column_stack([t, 0.1 * fl, fl, 0.1 * fr, fr])


def _csv(rows: np.ndarray) -> str:
    return HEAD + "\n".join(",".join(f"{v:.6f}" for v in r) for r in rows) + "\n"


def _cases(tmp: Path) -> dict[str, tuple[Path, str]]:
    good = _good_rows()
    text = _csv(good)
    lines = text.splitlines()
    cases: dict[str, tuple[str | bytes, str, str]] = {
        "truncated": ("\n".join(lines[:-1]) + "\n" + lines[-1][:12], "csv",
                      r"line 401: 2 values, expected 5 \(truncated"),
        "text_in_number": (text.replace(lines[10], lines[10].replace(lines[10].split(",")[2], "abc")), "csv",
                           r"line 11, column F_ly: text 'abc' in a numeric column"),
        "duplicate_time": (text.replace(lines[20].split(",")[0] + ",", lines[19].split(",")[0] + ",", 1), "csv",
                           r"line 21, column time: duplicated time"),
        "decreasing_time": (text.replace(lines[30].split(",")[0] + ",", "0.000000,", 1), "csv",
                            r"line 31, column time: decreasing time"),
        "missing_foot": (HEAD.replace(",F_rx,F_ry", "") + "\n".join(",".join(f"{v:.6f}" for v in r[:3])
                                                                  for r in good) + "\n", "csv",
                         r"channel F_rx: missing foot"),
        # a long gap leaving no usable window of 0.5 s on either side (one outside the window is ignored)
        "nan_run": (_csv(np.where((np.arange(400)[:, None] * np.array([0, 0, 1, 0, 0]) >= 30)
                                  & (np.arange(400)[:, None] < 370), np.nan, good)
                         .astype(float)).replace("nan", ""), "csv",
                    r"channel F_ly: no usable window of 0.5 s: NaN run"),
        "wrong_units": (_csv(good * np.array([1, 1000, 1000, 1000, 1000])), "csv",
                        r"channel F_y: vertical force peak .* not a human GRF"),
        "wrong_sign": (_csv(good * np.array([1, -1, -1, -1, -1])), "csv", r"channel F_y: vertical force is negative"),
        "empty": ("   \n\n", "csv", r": file is empty"),
        "binary": (bytes(range(256)) * 8, "txt", r": binary file"),
        "mot_no_time": ("g\nnRows=5\nendheader\nframe\tground_force_vx\n0\t1\n0.1\t2\n", "mot",
                        r"line 4: first column must be 'time'"),
        "forces_bad_header": ("[Force Data]\nNumberOfForcePlates=x\n#Sample\n", "forces",
                              r"line 2: header needs NumberOfForcePlates"),
        # the first data row broken: named by its line, not taken for the header ("no time column")
        "first_row_broken": ("time,F_lx,F_ly\n0,abc,\n1,2,3\n", "csv", r"line 2: not a number: 'abc'"),
    }
    out = {}
    for name, (content, ext, pattern) in cases.items():
        p = tmp / f"{name}.{ext}"
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)
        out[name] = (p, pattern)
    return out


@pytest.mark.parametrize("case", ["truncated", "text_in_number", "duplicate_time", "decreasing_time",
                                  "missing_foot", "nan_run", "wrong_units", "wrong_sign", "empty", "binary",
                                  "mot_no_time", "forces_bad_header", "first_row_broken"])
def test_bad_file_one_clear_error(case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import re
    path, pattern = _cases(tmp_path)[case]
    code = main(["data", "info", str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "Traceback" not in err and err.count("\n") == 1
    assert err.startswith(f"gaitblocks data: error: {path}")
    assert re.search(pattern, err), err


def test_good_table_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "good.csv"
    f.write_text(_csv(_good_rows()))
    assert main(["data", "info", str(f), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["rate_hz_source"] == pytest.approx(200.0)
    assert info["heel_strikes"] == {"left": 2, "right": 2}
    assert info["cadence_steps_per_min"] == pytest.approx(120.0, rel=1e-3)  # stride 1 s
    # total vertical = two 60 % half-sines of peak 735 N: mean 735 * 2 * 0.6 * 2/pi over a stride
    assert info["bw_estimate_n"] == pytest.approx(1.05 * 700 * 2.4 / np.pi, rel=0.01)
