"""The footwear report (``compare --report``): statistics, tables, figures, the page; one small real run."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats

from app.footwear_report import factorial as fac_mod
from app.footwear_report import report as report_mod
from app.footwear_report.factorial import run_factorial
from app.footwear_report.stats import compare_conditions, descriptives, pairwise
from app.footwear_report.synthetic import SPREAD, variants
from app.footwear_report.tables import answer, metrics_table, trials_table
from app.footwear_report.trials import PCT, SolveCache, SolvedCycle, TrialSolve
from app.manifest import Trial, read_manifest
from models.errors import UserError


def _cycle(trunk: float, status: str = "converged", index: int = 0) -> SolvedCycle:
    ok = status == "converged"
    metrics = {"trunk_deg": {"mean": trunk, "range": 3.0 + 0.1 * trunk}, "stance_knee_peak_deg": 30.0 + trunk,
               "stride_m": 0.7 + 0.01 * trunk, "speed_m_s": 0.6, "cadence_spm": 105.0, "period_s": 1.14,
               "residual": {"force_ratio": 0.01, "moment_ratio": 0.001, "force_verdict": "good",
                            "moment_verdict": "good"}} if ok else {}
    curve = trunk + np.sin(2 * np.pi * PCT / 100)
    curves = {k: curve for k in ("trunk", "hip", "knee", "grf_y", "grf_x")} if ok else {}
    return SolvedCycle(index=index, status=status, why="" if ok else "the solver stopped: Maximum_Iterations_Exceeded",
                       iterations=40, objective=1.0, violation=1e-9, solve_time_s=2.0, metrics=metrics, curves=curves,
                       recorded={"trunk": curve - 0.1} if ok else {})


def _solve(cond: str, subject: str, trunks: list[float], status: str = "converged") -> TrialSolve:
    return TrialSolve(trial=Trial(condition=cond, grf=f"{cond}_{subject}.csv", subject=subject), synthetic=True,
                      cycles=[_cycle(t, status, i) for i, t in enumerate(trunks)],
                      recorded_trunk_mean_deg=[t - 0.1 for t in trunks] if status == "converged" else [])


# ------------------------------------------------------------------ manifests and synthetic variants
def test_json_manifest_list_and_object(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text(json.dumps([{"condition": "c", "grf": "sneakers", "mass": 60}]))
    (tmp_path / "b.json").write_text(json.dumps({"synthetic_repeats": 2,
                                                 "trials": [{"condition": "d", "grf": "barefoot"}]}))
    assert read_manifest(tmp_path / "a.json")[0].mass == 60.0
    assert read_manifest(tmp_path / "b.json")[0].condition == "d"
    (tmp_path / "c.json").write_text("{not json")
    with pytest.raises(UserError, match="not valid JSON"):
        read_manifest(tmp_path / "c.json")
    (tmp_path / "d.json").write_text(json.dumps({"trials": [{"grf": "sneakers"}]}))
    with pytest.raises(UserError, match="trial 1: no condition"):
        read_manifest(tmp_path / "d.json")


def test_synthetic_variants_stay_within_two_percent_and_are_reproducible() -> None:
    from models.gaitgen.params import CONDITIONS

    v = variants("high_heels", 4)
    assert [name for name, *_ in v] == [f"high_heels_syn{i}" for i in range(1, 5)]
    base = CONDITIONS["high_heels"]
    for _, gait, fc, fs in v:
        assert abs(fc - 1) <= SPREAD and abs(fs - 1) <= SPREAD
        assert gait.cadence_spm == pytest.approx(base.cadence_spm * fc)
        assert gait.stride_m == pytest.approx(base.stride_m * fs)
        assert gait.trunk_lean_deg == base.trunk_lean_deg and gait.peak1_bw == base.peak1_bw
    assert len({fc for _, _, fc, _ in v}) == 4
    assert [x[2:] for x in variants("high_heels", 4)] == [x[2:] for x in v]


# ------------------------------------------------------------------ statistics
def test_paired_two_conditions_is_a_paired_t_test_with_dz() -> None:
    a, b = [1.0, 2.0, 1.5, 2.5], [1.6, 2.9, 1.9, 3.4]
    solves = [_solve("A", f"s{i}", [x, x + 0.02]) for i, x in enumerate(a)] + \
             [_solve("B", f"s{i}", [x, x + 0.02]) for i, x in enumerate(b)]
    t = compare_conditions(solves, "trunk_mean")
    ya, yb = np.array(a) + 0.01, np.array(b) + 0.01   # one value per trial: the mean of its cycles
    ref = stats.ttest_rel(yb, ya)
    assert t["test"] == "paired t-test" and t["p"] == pytest.approx(ref.pvalue)
    d = yb - ya
    assert t["effect"] == pytest.approx(d.mean() / d.std(ddof=1))


def test_three_paired_conditions_are_a_repeated_measures_anova() -> None:
    y = np.array([[1.0, 1.4, 2.2], [2.0, 2.1, 3.5], [1.5, 2.4, 2.0], [2.5, 2.6, 3.9], [0.7, 1.6, 1.9]])
    solves = [_solve(c, f"s{i}", [y[i, j]]) for j, c in enumerate("ABC") for i in range(y.shape[0])]
    t = compare_conditions(solves, "trunk_mean")
    resid = y - y.mean(axis=1, keepdims=True) - y.mean(axis=0, keepdims=True) + y.mean()
    ss_err = (resid ** 2).sum()
    ss_cond = y.shape[0] * ((y.mean(axis=0) - y.mean()) ** 2).sum()
    f = (ss_cond / 2) / (ss_err / 8)
    assert t["test"] == "repeated-measures ANOVA" and t["df"] == (2, 8)
    assert t["statistic"] == pytest.approx(f) and t["p"] == pytest.approx(stats.f.sf(f, 2, 8))
    assert t["effect"] == pytest.approx(ss_cond / (ss_cond + ss_err))


def test_unpaired_trials_use_welch_and_one_way_anova() -> None:
    solves = [_solve("A", f"a{i}", [x]) for i, x in enumerate([1.0, 1.2, 0.9])] + \
             [_solve("B", f"b{i}", [x]) for i, x in enumerate([2.0, 2.6, 1.8, 2.2])]
    t = compare_conditions(solves, "trunk_mean")
    assert t["test"] == "Welch t-test" and "independent" in t["design"]
    assert t["p"] == pytest.approx(stats.ttest_ind([2.0, 2.6, 1.8, 2.2], [1.0, 1.2, 0.9], equal_var=False).pvalue)
    solves += [_solve("C", f"c{i}", [x]) for i, x in enumerate([3.0, 3.3])]
    t3 = compare_conditions(solves, "trunk_mean")
    assert t3["test"] == "one-way ANOVA"
    assert t3["p"] == pytest.approx(stats.f_oneway([1.0, 1.2, 0.9], [2.0, 2.6, 1.8, 2.2], [3.0, 3.3]).pvalue)
    holm = pairwise(solves, "trunk_mean")
    assert len(holm) == 3 and all(r["p_holm"] >= r["p"] for r in holm)


def test_one_trial_per_condition_gives_no_p_value_and_says_so() -> None:
    solves = [_solve("A", "s", [1.0, 1.1, 0.9]), _solve("B", "s", [2.0, 2.1])]
    t = compare_conditions(solves, "trunk_mean")
    assert t["p"] is None and "one trial per condition" in t["note"]
    desc = descriptives(solves)
    assert desc["A"]["trunk_mean"]["n_cycles"] == 3 and desc["A"]["trunk_mean"]["n_trials"] == 1
    assert desc["A"]["trunk_mean"]["sd"] == pytest.approx(0.1)
    row = next(r for r in metrics_table(solves, desc) if r[0] == "trunk inclination mean")
    assert row[1] == "solved" and row[-2] == "-" and "no p-value" in row[-3]


def test_a_failed_trial_is_named_never_averaged() -> None:
    solves = [_solve("A", "s1", [1.0]), _solve("A", "s2", [50.0], status="failed"), _solve("B", "s1", [2.0])]
    desc = descriptives(solves)
    assert desc["A"]["trunk_mean"]["mean"] == pytest.approx(1.0) and desc["A"]["trunk_mean"]["n_trials"] == 1
    rows = trials_table(solves)
    bad = next(r for r in rows if r[1] == "s2")
    assert bad[4].startswith("failed: the solver stopped") and bad[5:9] == ["", "", "", ""]
    assert "50.00" not in json.dumps(rows)


# ------------------------------------------------------------------ the whole report, solves faked
def _fake_cell(g: Trial, k: Trial, spec: Any, cache: SolveCache) -> dict[str, Any]:
    """Trunk mean = 1 + GRF(B) 0.5 + swing(B) -0.3 + 0.2 both; the segment variant flips the stride effect."""
    gb, kb = g.condition == "B", k.condition == "B"
    flip = -1.0 if spec.swing_reference == "segment" else 1.0
    return {"status": "converged", "why": "", "trunk_mean": 1 + 0.5 * gb - 0.3 * kb + 0.2 * (gb and kb),
            "stride": 0.7 + flip * 0.01 * gb, "knee": 30.0 + 2.0 * gb, "trunk_range": 3.0,
            "residual": {"force_ratio": 0.01, "moment_ratio": 0.001, "force_verdict": "good", "moment_verdict": "good"}}


def test_factorial_effects_interaction_and_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fac_mod, "solve_cell", _fake_cell)
    trials = {"A": Trial("A", "a.csv"), "B": Trial("B", "b.csv")}
    fac = run_factorial(trials, "quick", SolveCache())
    e = fac.effects[("A", "B", "trunk_mean")]
    assert e["base"]["grf"] == pytest.approx(0.6) and e["base"]["kinematics"] == pytest.approx(-0.2)
    assert e["base"]["interaction"] == pytest.approx(0.2)   # difference of differences, not zero
    assert e["grf"]["verdict"] == "robust" and e["variants_converged"] == 4
    assert fac.effects[("A", "B", "stride")]["grf"]["verdict"] == "not identifiable"
    text = answer(fac)
    assert "leans the trunk forward by 0.60 deg" in text and "robust" in text
    assert "lengthens the stride by 1.0 cm" in text and "not identifiable" in text


@pytest.fixture(scope="module")
def faked_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    mp = pytest.MonkeyPatch()
    solves = {"a1": _solve("A", "s1", [1.0, 1.2]), "a2": _solve("A", "s2", [1.4]),
              "b1": _solve("B", "s1", [1.4]), "b2": _solve("B", "s2", [1.2, 1.8]),
              "b3": _solve("B", "s3", [9.9], status="no_periodic_gait")}
    mp.setattr(report_mod, "solve_trial", lambda t, cache, cycles: solves[t.grf])
    mp.setattr(fac_mod, "solve_cell", _fake_cell)
    trials = [Trial(s.trial.condition, key, subject=s.trial.subject) for key, s in solves.items()]
    for s, t in zip(solves.values(), trials):
        s.trial = t
    report_mod.build_report(trials, out, robustness="quick", command="gaitblocks compare --report out")
    mp.undo()
    return out


def test_report_page_holds_answer_tables_settings_and_failures(faked_report: Path) -> None:
    page = (faked_report / "report.html").read_text(encoding="utf-8")
    first = re.search(r'<p class="answer" id="answer">(.*?)</p>', page, re.S)
    assert first is not None and "Replacing the GRF and CoP of A by those of B" in first.group(1)
    assert "leans the trunk forward by 0.60 deg" in first.group(1)
    assert page.count('src="data:image/png;base64,') == 2          # the figure and the effects, embedded
    assert "Luxman" in page and "Hicks" in page and "gaitblocks compare --report out" in page
    assert re.search(r"gaitblocks [0-9]", page)                     # the program version
    assert "no_periodic_gait" in page and "9.90" not in page         # named, never a row of numbers
    assert "paired t-test" in page and "paired by subject" in page  # s3 of B did not solve: s1, s2 in both
    table = (faked_report / "table.md").read_text(encoding="utf-8")
    assert "| trunk inclination mean | solved | deg | 1.20 ± 0.20 (2, 3) | 1.47 ± 0.31 (2, 3) |" in table
    assert "| cadence | input | steps/min |" in table
    csv_rows = (faked_report / "table.csv").read_text(encoding="utf-8").splitlines()
    assert csv_rows[0] == "figure,label,unit,condition,mean,sd,n_trials,n_cycles"
    assert any(r.startswith("trunk inclination mean,solved,deg,B,1.46667,0.305505,2,3") for r in csv_rows)
    fac = (faked_report / "factorial.csv").read_text(encoding="utf-8")
    assert "+0.60 [+0.60 .. +0.60],robust" in fac


def test_figures_are_journal_sized_with_fonts_of_7_pt_or_more(faked_report: Path) -> None:
    from PIL import Image

    for stem, mm in (("figure", 180), ("figure_85mm", 85), ("effects", 180)):
        for ext in ("pdf", "svg", "png"):
            assert (faked_report / f"{stem}.{ext}").stat().st_size > 1000
        with Image.open(faked_report / f"{stem}.png") as im:
            assert im.size[0] == pytest.approx(mm / 25.4 * 300, abs=2)
            assert im.info["dpi"][0] == pytest.approx(300, abs=1)
        svg = (faked_report / f"{stem}.svg").read_text(encoding="utf-8")
        width = float(re.search(r'<svg[^>]*width="([0-9.]+)pt"', svg).group(1))   # type: ignore[union-attr]
        assert width == pytest.approx(mm / 25.4 * 72, rel=1e-3)
        sizes = [float(x) for x in re.findall(r"font-size: ([0-9.]+)px", svg)]
        assert sizes and min(sizes) >= 7.0


# ------------------------------------------------------------------ one small real run
@pytest.mark.slow
def test_cli_report_on_two_bundled_sets(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Two solves and two swapped cells: the solved trunk recovers the generator's lean; the page says so."""
    from app.cli import main

    out = tmp_path_factory.mktemp("cli") / "out"
    cache = tmp_path_factory.mktemp("cache")
    code = main(["compare", "--grf", "sneakers", "high_heels", "--report", str(out), "--robustness", "none",
                 "--cache", str(cache)])
    assert code == 0
    rows = [r.split(",") for r in (out / "table.csv").read_text(encoding="utf-8").splitlines()]
    trunk = {r[3]: float(r[4]) for r in rows if r[0] == "trunk inclination mean" and r[1] == "solved"}
    lean = {r[3]: float(r[4]) for r in rows if r[1] == "set-point" and r[0].startswith("trunk lean")}
    assert lean == {"sneakers": 2.0, "high_heels": 1.0}
    assert all(abs(trunk[c] - lean[c]) < 0.2 for c in lean)
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "one trial per condition: no test, no p-value" in page and "untested" in page
    assert len(re.findall(r"<td>[0-9a-f]{64}</td>", page)) == 4   # two CSVs and their sidecars, hashed
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert all(t["status"] == "converged" for t in report["trials"])
    assert not math.isnan(report["factorial"]["high_heels vs sneakers: trunk_mean"]["base"]["grf"])


def test_example_manifests_parse_with_relative_paths() -> None:
    examples = Path(__file__).resolve().parents[2] / "examples"
    bundled = read_manifest(examples / "footwear_manifest.json")
    assert [t.grf for t in bundled] == ["sneakers", "barefoot", "high_heels"]
    assert json.loads((examples / "footwear_manifest.json").read_text())["synthetic_repeats"] == 3
    raw = json.loads((examples / "real_trials_manifest.json").read_text())["trials"]
    assert len(raw) == 3 and all(not Path(e["grf"]).is_absolute() for e in raw)
    assert raw[0]["mass"] == 72.6 and raw[0]["height"] == 1.8
