r"""Analysis blocks: joint reaction forces and the M/C/G/E torque decomposition, for scopes.

Both take the state and the loads actually applied to the body (``q``, ``qd`` from the
dynamics, ``tau`` the joint torques, ``F`` the foot forces) and first recover the
acceleration the dynamics block integrates, ``qdd = M^-1 (coriolis + gravity + S tau + J^T F)``
(:meth:`FiveLinkBiped.forward_dynamics`). They are sampled blocks (``ts``; 0 = every solver
tick): a coarser ``ts`` keeps a long run fast.

``JointReactions`` -- Blajer & Czaplicki (2005), :func:`models.reactions.reactions_augmented`:
``lambda = E^T (h - MM (D qdd + gamma))``. Output ``reaction`` (8) N: the force **on the thigh from
the trunk** at each hip and **on the shank from the thigh** at each knee, world x and y,
``[hip_l_x, hip_l_y, hip_r_x, hip_r_y, knee_l_x, knee_l_y, knee_r_x, knee_r_y]``.

``TorqueDecomposition`` -- Duarte's M/C/G/E form, :func:`models.decomposition.biped_decomposition`:
``tau = M(q) qdd + C(q, qd) + G(q) + E(q, F)`` per joint ``[hip_l, hip_r, knee_l, knee_r]`` [N m]:
outputs ``inertial``, ``coriolis``, ``gravity``, ``external``. With the applied ``tau`` as input
the four parts add up to it (the check in the tests).

The laws (kernels, both engines run them) read the biped's parameter vector
(:meth:`models.params.BipedParams.as_array`) and run the scalar forms of those formulas,
:func:`models._eom_numba.joint_reactions_one` and :func:`models._eom_numba.decomposition_one` (checked
against the numpy ones, the independent reference, in
``tests/models/test_eom_kernels.py``), after :func:`models._eom_numba.forward_dynamics_into`.
"""

from __future__ import annotations

from blocks.core import Kernels, PortSpec
from blocks.kernels import kernel, seg
from blocks.library.context import Q_IN, QD_IN, ReadsBiped
from models._eom_numba import decomposition_one, forward_dynamics_into, joint_reactions_one
from models.biped import GRF_NAMES, TAU_NAMES
from models.jit import scratch
from models.reactions import REACTION_NAMES

__all__ = ["JointReactions", "TorqueDecomposition"]


@kernel
def _accel(bp, q, qd, tau, F, qdd):
    """``qdd`` (7,) of the applied loads, no ground moments: :func:`models._eom_numba.forward_dynamics_into`
    compiled once as a function of its own that both blocks call, where each inlined a copy of it (its
    assembly, factor and solve: about 2 s of a cold compile each; a sampled block pays one call more)."""
    mz = scratch(2)
    mz[0] = 0.0
    mz[1] = 0.0
    forward_dynamics_into(bp, q, qd, tau, F, mz, qdd)


@kernel
def _reactions_output(t, x, z, q, qd, tau, F, p, reaction):
    bp = seg(p, _BP)
    qdd = scratch(7)
    _accel(bp, q, qd, tau, F, qdd)
    joint_reactions_one(bp, q, qd, qdd, F, reaction)


@kernel
def _decomposition_output(t, x, z, q, qd, tau, F, p, inertial, coriolis, gravity, external):
    bp = seg(p, _BP)
    qdd = scratch(7)
    _accel(bp, q, qd, tau, F, qdd)
    decomposition_one(bp, q, qd, qdd, F, inertial, coriolis, gravity, external)


class _Sampled(ReadsBiped, register=False):
    inputs = (Q_IN, QD_IN,
              PortSpec("tau", 4, "N*m", "applied joint torques", TAU_NAMES),
              PortSpec("F", 4, "N", "applied foot forces", GRF_NAMES))
    discrete = True

    packed = ("_bp[]",)


class JointReactions(_Sampled):
    """Hip and knee reaction forces (module docstring)."""

    outputs = (PortSpec("reaction", 8, "N", "joint reaction forces", REACTION_NAMES),)
    law = Kernels(output=_reactions_output)


class TorqueDecomposition(_Sampled):
    """Inertial, Coriolis/centrifugal, gravity and external parts of the joint torques (module docstring)."""

    outputs = tuple(PortSpec(name, 4, "N*m", f"{name} part of the joint torques", TAU_NAMES)
                    for name in ("inertial", "coriolis", "gravity", "external"))
    law = Kernels(output=_decomposition_output)


#: where the kernels above read each packed entry (numba takes them as constants when it compiles)
_BP = _Sampled.packed_at("_bp")
