r"""A planar closed-loop mechanism as a block: the empirically-based method (Ehsani 2023).

Continuous state ``[q, qd]`` in minimal coordinates; the dependent joint variables come
from the manifold ``f(q)`` (:mod:`models.mechanism.manifold`: exact Newton solve with
analytical projection, or the pre-modelled splines), and

.. math:: F^T M_f F\, \ddot q = F^T (Q_f(\tau) - c_f - M_f H[\dot q, \dot q])

(:mod:`models.mechanism.embedded`). ``mechanism`` picks one of
:data:`models.mechanism.library.MECHANISMS`; the ports follow its sizes and names.

``four_bar`` uses Ehsani's coordinate (the coupler CoM height, singular at its extremes:
a free swing under gravity reaches one and the run stops there, naming it);
``four_bar_crank`` the crank angle, regular everywhere.

Inputs
------
tau : (n_tau,) N m, optional
    Driving torques across the mechanism's actuated joints (four-bar: ``tau1`` on theta1;
    five-bar: ``tau1``, ``tau2``; squeezer: ``tau_beta``, added to its built-in 0.033 N m).

Discrete state
--------------
For the exact solve without a guide spline (the five-bar), ``z`` holds the joints ``f`` solved at
the last tick: Newton's starting guess for every evaluation of the next tick (``ts`` = 0: every
tick). So outputs and derivative are functions of ``(t, x, z, u)`` alone; a snapshot holds the guess too.

The law: the kernels of :mod:`blocks.library.mechanism_kernels` (both engines run them; a failed solve
gives NaN, which the engine reports naming the block). :mod:`models.mechanism` (numpy) stays the
independent reference they are tested against.
One-coordinate mechanisms take the guess from their guide spline at ``q`` and have no discrete state.

Outputs
-------
q, qd : (nq,) generalized coordinates [rad or m] and their rates.
joints, joint_rates : (m,) all joint variables [rad] and rates [rad/s] (squeezer: beta,
    Theta, gamma, Phi, delta, Omega, epsilon).
points, point_vel : (2 n_points,) the named points' positions [m] and velocities [m/s],
    ``[x, y]`` per point (the stick-figure view draws the links between them).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np

from blocks.core import (
    Block,
    CompileContext,
    Kernels,
    ParameterValueError,
    Params,
    PortSpec,
)
from blocks.core import ParamSpec as P
from blocks.library.mechanism_pack import PACKED, mechanism_tables
from models.mechanism import MECHANISMS, ConstraintError, Embedded, Mechanism, build, make_manifold
from models.mechanism.manifold import continuation

__all__ = ["PlanarMechanism", "mechanism_of"]

@functools.cache
def mechanism_of(name: str) -> Mechanism:
    """The (shared, read-only) mechanism description by name, for ports and drawing."""
    return build(name)


class PlanarMechanism(Block):
    """Closed-loop planar mechanism in minimal coordinates (see the module docstring)."""

    params = {"mechanism": P("four_bar", tunable=False, choices=tuple(MECHANISMS), description="which mechanism"),
              "method": P("projection", tunable=False, choices=("projection", "spline"),
                          description="f(q): exact Newton solve + analytical projection, or pre-modelled splines"),
              "spline_step": P(0.01, min=1e-4, max=0.5, tunable=False,
                               description="node spacing of the pre-modelled splines (method = spline)"),
              "init": P("default", tunable=False, choices=("default", "params"),
                        description="initial state: the mechanism's own, or q0/qd0"),
              "q0": P((0.0,), tunable=False, description="initial q (init = params) [rad or m]"),
              "qd0": P((0.0,), tunable=False, description="initial qd (init = params) [rad/s or m/s]")}
    dynamic_ports = True
    feedthrough = "none"
    discrete = True  # the Newton guess (module docstring); no modes
    n_states = 2  # per coordinate; the real size comes from state_size()
    packed = PACKED  # the tables of :mod:`blocks.library.mechanism_pack`

    def _mech(self) -> Mechanism:
        return mechanism_of(self.values["mechanism"])

    def check(self, values: Mapping[str, Any]) -> None:
        if values["init"] == "params":
            nq = mechanism_of(values["mechanism"]).nq
            for key in ("q0", "qd0"):
                if len(values[key]) != nq:
                    raise ParameterValueError(f"block '{self.name}': {key} needs {nq} value(s) for "
                                              f"{values['mechanism']}, got {len(values[key])}")
        if values["ts"] != 0.0:
            raise ParameterValueError(f"block '{self.name}': ts must be 0 (the Newton guess is refreshed every "
                                      f"tick; the states are continuous)")

    def state_size(self) -> int:
        return 2 * self._mech().nq

    def discrete_size(self) -> int:
        """The joints (m) when Newton starts from the last tick's solution, else 0 (module docstring)."""
        mech = self._mech()
        return mech.m if mech.nq > 1 and self.values["method"] == "projection" else 0

    @property
    def state_names(self) -> tuple[str, ...]:
        names = tuple(c.name for c in self._mech().coords)
        return names + tuple(f"{n}_dot" for n in names)

    def port_specs(self) -> tuple[tuple[PortSpec, ...], tuple[PortSpec, ...]]:
        mech = self._mech()
        coords = tuple(c.name for c in mech.coords)
        pts = tuple(f"{n}_{a}" for n in mech.points for a in "xy")
        ins = (PortSpec("tau", len(mech.torque_names), "N*m", "driving torques", mech.torque_names, optional=True),
               ) if mech.torque_names else ()
        outs = (PortSpec("q", mech.nq, "rad|m", "generalized coordinates", coords),
                PortSpec("qd", mech.nq, "rad/s|m/s", "generalized velocities", coords),
                PortSpec("joints", mech.m, "rad", "joint variables", mech.joint_names),
                PortSpec("joint_rates", mech.m, "rad/s", "joint rates", mech.joint_names),
                PortSpec("points", len(pts), "m", "named points [x, y]", pts),
                PortSpec("point_vel", len(pts), "m/s", "velocities of the named points", pts))
        return ins, outs

    def derive(self, p: Params, ctx: CompileContext) -> None:
        mech = build(p.mechanism)
        try:
            manifold = make_manifold(mech, p.method, p.spline_step)
        except ValueError as exc:
            raise ParameterValueError(f"block '{self.name}': {exc}") from None
        p.set("_model", Embedded(mech, manifold))
        for key, value in mechanism_tables(p._model).items():
            p.set(key, value)

    def initial_state(self, p: Params, ctx: CompileContext) -> np.ndarray:
        mech = p._model.mech
        if p.init == "params":
            return np.concatenate([p.q0, p.qd0])
        q0 = mech.q0 if mech.q0 is not None else mech.coord_values(mech.f_guess)
        qd0 = mech.qd0 if mech.qd0 is not None else np.zeros(mech.nq)
        return np.concatenate([q0, qd0]).astype(float)

    def initial_discrete(self, p: Params, ctx: CompileContext) -> np.ndarray:
        if not self.discrete_size():
            return np.zeros(0)
        mech = p._model.mech
        q0 = self.initial_state(p, ctx)[:mech.nq]
        try:  # along a straight path from the mechanism's assembly: stays on its branch
            return continuation(mech, q0, mech.f_guess)
        except ConstraintError as exc:
            raise ParameterValueError(f"block '{self.name}': the initial q cannot be assembled: {exc}") from None

    def kernels(self) -> Kernels:
        from blocks.library.mechanism_kernels import mech_derivative, mech_output, mech_update

        return Kernels(output=mech_output, derivative=mech_derivative,
                       update=mech_update if self.discrete_size() else None)
