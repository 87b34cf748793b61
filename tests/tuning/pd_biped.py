"""The PD-biped test diagram (moved here from the engine module): the five-link body, its joints
held by PD gains toward zero (kp 300 N m/rad, kd 20 N m s/rad), the feet carried by constant
half-body-weight forces. The batch tests and ``benchmarks/batch.py`` use it."""

from __future__ import annotations

from blocks import Diagram


def pd_biped_diagram(t_end: float = 0.4) -> Diagram:
    from blocks.diagram import SolverSettings
    from models.params import BipedParams

    d = Diagram("pd_biped", solver=SolverSettings(dt=1e-3, t_end=t_end))
    w = BipedParams.paper().total_mass * 9.81 / 2
    d.add("body", "FiveLinkDynamics", init="params", q0=(0.0, 0.8735, 0.05, 0.2, -0.1, 0.3, 0.1))
    d.add("feet", "Constant", value=(0.0, w, 0.0, w))
    d.add("jq", "Selector", n=7, indices=(3.0, 4.0, 5.0, 6.0))
    d.add("jqd", "Selector", n=7, indices=(3.0, 4.0, 5.0, 6.0))
    d.add("kp", "Gain", k=-300.0, n=4)
    d.add("kd", "Gain", k=-20.0, n=4)
    d.add("pd", "Sum", signs="++", n=4)
    for a, b in (("body.q", "jq.u"), ("body.qd", "jqd.u"), ("jq.y", "kp.u"), ("jqd.y", "kd.u"), ("kp.y", "pd.u1"),
                 ("kd.y", "pd.u2"), ("pd.y", "body.tau"), ("feet.y", "body.grf")):
        d.connect(a, b)
    return d
