"""A unit or x-axis switch keeps the overlaid runs' legend entries (issue 32 §2: each switch built
3 runs x 8 scopes = 24 legend samples again); a rename, a run more or a trace added after them
names them anew, still after the traces."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from app.gui.runs.run_store import KeptRun
from app.gui.scopes.scope_legend import side_legend
from app.gui.scopes.scope_overlay import RunOverlay, time_xy
from app.gui.scopes.scope_specs import Trace


def test_a_switch_keeps_the_run_entries_a_change_names_them_again(qtbot) -> None:
    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    plot = widget.getPlotItem()
    legend = side_legend(plot)
    plot.addItem(pg.PlotDataItem([0, 1], [0, 1], name="L"))
    t = np.linspace(0.0, 1.0, 101)
    runs = [KeptRun(k, f"run {k}", "ok", t, {"body.q": np.outer(t, np.arange(1, 6)) * k}) for k in (1, 2)]
    traces = [Trace("L", "body.q", 3)]
    overlay = RunOverlay(plot, legend)
    overlay.show(runs, traces, 1.0, time_xy)
    samples = list(overlay.entries.values())
    assert overlay.legend_names() == ["run 1", "run 2"] and len(legend.items) == 3
    overlay.show(runs, traces, 1.0 / 9.81, time_xy)            # a unit switch: new data, same entries
    assert list(overlay.entries.values()) == samples and len(legend.items) == 3
    y = overlay.curves[(2, 0)].yData
    np.testing.assert_allclose(y, t * 4 * 2 / 9.81)
    runs[0].name = "renamed"
    overlay.show(runs, traces, 1.0, time_xy)                  # a rename: named again
    assert overlay.legend_names() == ["renamed", "run 2"] and len(legend.items) == 3
    plot.addItem(pg.PlotDataItem([0, 1], [1, 0], name="R"))   # a trace added after the runs' entries
    overlay.show(runs, traces, 1.0, time_xy)
    assert [label.text for _, label in legend.items] == ["L", "R", "renamed", "run 2"]
