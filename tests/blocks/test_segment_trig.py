"""The segment angles' sines and cosines shared through a signal (``SegmentTrig``, issue 35 §4): every block
that reads them gives the same bits with its ``trig`` input wired as left unconnected (computing its own),
the default diagram wires all of them, and the signal is not recorded unless named."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from blocks.core import Block, CompileContext
from blocks.library.ankle import AnkleBalance
from blocks.library.biped import BipedKinematics, FiveLinkDynamics, SegmentTrig
from blocks.library.default_diagram import build_grf_walk
from blocks.library.estimator import NetTorqueEstimator
from blocks.library.floor import Footprints
from blocks.library.walking import GroundContact

Q = np.array([0.1, 0.95, 0.08, 0.35, -0.25, 0.45, 0.12])
QD = np.array([1.2, -0.1, 0.4, 2.0, -1.5, -3.0, 0.7])
F = np.array([30.0, 420.0, -15.0, 180.0])
STATE = np.concatenate([Q, QD])


def _cases() -> list[tuple[Block, dict[str, Any], Any, Any]]:
    """Each reader with inputs that reach its trigonometry (both feet in stance, landing footprints)."""
    contact = BipedKinematics("kin").probe(u={"q": Q}).y["contact"]
    feet = contact + np.array([0.002, -0.001, -0.003, 0.001])  # near the feet: the contact's spring not at its limit
    com = [0.2, 0.9, 1.1, 0.0]
    return [
        (FiveLinkDynamics("body", init="params", q0=tuple(Q), qd0=tuple(QD)),
         {"tau": [5.0, -3.0, 2.0, 1.0], "grf": F, "mz": [1.0, -2.0]}, STATE, None),
        (GroundContact("contact"), {"q": Q, "qd": QD, "stance": [1, 1], "F_rec": F, "feet_ref": feet}, None, None),
        (AnkleBalance("ankle", kp=0.1, kd=0.01),  # gains small enough that the CoP shift is not at its limit
         {"q": Q, "qd": QD, "stance": [1, 1], "F": F, "feet_ref": feet, "com_ref": com}, None, [1.0, 1.0]),
        (BipedKinematics("kin"), {"q": Q}, None, None),
        (NetTorqueEstimator("est"), {"q": Q, "F": F}, None, None),
        (Footprints("fp", source="landing"), {"q": Q, "stance": [1, 0], "feet_ref": feet}, None, np.zeros(8)),
    ]


@pytest.mark.parametrize("case", range(6))
def test_a_reader_gives_the_same_bits_with_the_trig_wired_or_not(case: int) -> None:
    block, u, x, z = _cases()[case]
    ctx = CompileContext()
    sc = SegmentTrig("trig").probe(u={"q": Q}, ctx=ctx).y["sc"]
    p = block.make_params(ctx)
    own = block.probe(u=u, x=x, z=z, ctx=ctx, p=p)
    shared = block.probe(u={**u, "trig": sc}, x=x, z=z, ctx=ctx, p=p)
    wrong = block.probe(u={**u, "trig": sc + 1e-6}, x=x, z=z, ctx=ctx, p=p)
    for name in own.y:
        assert np.array_equal(own.y[name], shared.y[name]), name
    assert np.array_equal(own.dx, shared.dx) and np.array_equal(own.z_next, shared.z_next)
    moved = [not np.array_equal(own.y[k], wrong.y[k]) for k in own.y] + [not np.array_equal(own.dx, wrong.dx)]
    assert any(moved), "the block does not read its trig input"


def test_the_default_diagram_wires_every_reader_from_one_trig_block() -> None:
    d = build_grf_walk()
    readers = {b for a, b in d.connections if a == "trig.sc"}
    assert readers == {"body.trig", "contact.trig", "est.trig", "kin.trig", "ankle.trig", "footprints.trig"}
    assert [a for a, b in d.connections if b == "trig.q"] == ["body.q"]


def test_the_trig_signal_is_not_recorded_unless_named() -> None:
    from app.runs import RunSpec, build

    spec = RunSpec(dataset="sneakers", duration=0.01, preset="tracking", engine="python")
    names = build(spec).runner.recorder.names
    assert "trig.sc" not in names and "body.q" in names and "kin.com" in names
    run = build(RunSpec(dataset="sneakers", duration=0.01, preset="tracking", engine="python",
                        logged=("trig.sc", "body.q"))).runner.run()
    sc, q = run.signals["trig.sc"], run.signals["body.q"]
    assert np.array_equal(sc[:, 0], np.sin(q[:, 2])) and np.array_equal(sc[:, 9], np.cos(q[:, 2] - q[:, 4] + q[:, 6]))


def _rewired(reader: str, source: str) -> Any:
    """The default diagram with ``reader``'s trig input driven by ``source`` instead of ``trig.sc``."""
    d = build_grf_walk()
    d.add("q_other", "Constant", value=tuple(Q))
    d.add("trig_other", "SegmentTrig")
    d.add("ten", "Constant", value=(0.0,) * 10)
    d.connect("q_other.y", "trig_other.q")
    d.connections = [(a, b) for a, b in d.connections if b != f"{reader}.trig"]
    d.connect(source, f"{reader}.trig")
    return d


@pytest.mark.parametrize(("reader", "source", "why"), [
    ("est", "trig_other.sc", r"input 'trig' must come from a SegmentTrig block whose q is this block's q "
                             r"\(body\.q\); it comes from trig_other\.sc, the trig of q_other\.y"),
    ("body", "ten.y", r"block 'body' \(FiveLinkDynamics\): input 'trig' .* \(body\.q\); it comes from ten\.y$"),
])
def test_a_trig_of_other_angles_is_refused_at_compile(reader: str, source: str, why: str) -> None:
    """Sines and cosines of other angles would be wrong physics without a failure: the compile names the wire."""
    from blocks import compile_diagram
    from blocks.core import DiagramError

    with pytest.raises(DiagramError, match=why):
        compile_diagram(_rewired(reader, source))
    compile_diagram(_rewired(reader, "trig.sc"))  # the same edit, wired back as the default: compiles
