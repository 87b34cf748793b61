r"""The three mechanisms Ehsani (2023) validates the method on: four-bar, five-bar, Andrews' squeezer.

Conventions: x right, y up, angles counter-clockwise [rad], lengths [m]; joint variables are
*relative* angles (each body's angle from its parent), as in Ehsani's Eqs. 121-123 and 199.
The four- and five-bar are uniform slender rods of 1 kg/m (:math:`I = m l^2 / 12`) under
gravity 9.81 m/s² (the paper gives no masses: its §3 examples are kinematic).

**Four-bar** (Ehsani, Eq. 121, Fig. 3): ground O -> link 1 (l1, angle th1) -> coupler 2 (l2,
CoM at lcm2, angle th1+th2) -> link 3 (l3) -> ground point (l0, 0). Generalized coordinate q
= height of the coupler's CoM, range of motion [-2, 2]. Ehsani's Table 1 values did not
survive in the text we have (the table is empty), so the lengths here are ours, chosen so
that q spans [-2, 2] on one assembly branch with margin: :data:`FOUR_BAR` (a double crank,
ground link shortest; q is monotonic in th1 for q in [-3.1, 3.9]). Point p: the
coupler point at (lcm2, PX_OFFSET) in the coupler's frame (the paper's figure is lost too).

**Five-bar** (Ehsani, Eq. 123, Table 2: l0 = 3, l1 = 1, l2 = 1, l3 = 3, l4 = 3, lp = 2): ground O
-> links 1..4 -> ground point (l0, 0); q = (th1, th2). Point p on link 3, lp from its
proximal joint. Links 3 and 4 (3 + 3) always reach around links 1 and 2 (1 + 1), so every
(th1, th2) is assembled; the branch is the one with the 3-4 elbow up.

**Andrews' squeezing mechanism** (Hairer & Wanner, *Solving ODEs II*, 2nd ed., §VII.7;
Schiehlen 1990; the IVP test set of Mazzia & Magherini, release 2.4, problem ``andrews``):
7 bodies, 7 joint angles ``beta, Theta, gamma, Phi, delta, Omega, epsilon``, 3 loops meeting
at point E, 1 dof (q = beta, the crank, driven by the constant torque ``mom`` = 0.033 N m),
spring c0 = 4530 N/m, rest length 0.07785 m from D on body 3 to the ground point C, no
gravity. Geometry and inertia parameters are the published ones (:data:`SQUEEZER`). Bodies
3, 5 and 7 turn about fixed points, so only the distance of their CoM from the pivot enters
the dynamics (sa, sb), (ta, tb), (ua, ub); the published model is rebuilt here from these
definitions -- the loop equations are Ehsani's Eq. 199 -- not from anyone's code.
:data:`SQUEEZER_REFERENCE` is the published reference solution at t = 0.03 s.
"""

from __future__ import annotations

import numpy as np

from models.mechanism.geometry import Body, point
from models.mechanism.system import Coordinate, Mechanism, Spring

__all__ = ["FOUR_BAR", "FIVE_BAR", "SQUEEZER", "SQUEEZER_REFERENCE", "SQUEEZER_ANGLES", "four_bar", "five_bar",
           "andrews_squeezer", "four_bar_crank", "MECHANISMS", "build"]

# four-bar (ours; Ehsani's Table 1 is empty in the text): lengths [m]
FOUR_BAR = {"l0": 2.0, "l1": 4.0, "l2": 3.0, "lcm2": 1.5, "l3": 4.0}
PX_OFFSET = 0.75  # m, coupler point p normal to the coupler line
# five-bar: Ehsani's Table 2 [m]
FIVE_BAR = {"l0": 3.0, "l1": 1.0, "l2": 1.0, "l3": 3.0, "l4": 3.0, "lp": 2.0}
ROD_DENSITY = 1.0  # kg/m of the four- and five-bar links

# Andrews' squeezer (Hairer & Wanner II, §VII.7; IVP test set 'andrews'): SI units
SQUEEZER = {
    "m1": 0.04325, "m2": 0.00365, "m3": 0.02373, "m4": 0.00706, "m5": 0.07050, "m6": 0.00706, "m7": 0.05498,
    "i1": 2.194e-6, "i2": 4.410e-7, "i3": 5.255e-6, "i4": 5.667e-7, "i5": 1.169e-5, "i6": 5.667e-7, "i7": 1.912e-5,
    "xa": -0.06934, "ya": -0.00227, "xb": -0.03635, "yb": 0.03273, "xc": 0.014, "yc": 0.072,
    "d": 28e-3, "da": 115e-4, "e": 2e-2, "ea": 1421e-5, "rr": 7e-3, "ra": 92e-5, "l0": 7785e-5,
    "ss": 35e-3, "sa": 1874e-5, "sb": 1043e-5, "sc": 18e-3, "sd": 2e-2, "ta": 2308e-5, "tb": 916e-5,
    "u": 4e-2, "ua": 1228e-5, "ub": 449e-5, "zf": 2e-2, "zt": 4e-2, "fa": 1421e-5, "mom": 33e-3, "c0": 4530.0,
}
SQUEEZER_ANGLES = ("beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon")
# consistent initial angles at t = 0 (rest), as published (Hairer & Wanner II; test set)
SQUEEZER_Y0 = (-0.0617138900142764496358948458001, 0.0, 0.455279819163070380255912382449,
               0.222668390165885884674473185609, 0.487364979543842550225598953530,
               -0.222668390165885884674473185609, 1.23054744454982119249735015568)
# reference solution at t = 0.03 s: F. Mazzia, C. Magherini, "Test Set for Initial Value
# Problem Solvers", release 2.4, Univ. of Bari (2008), problem 'andrews' (computed with PSIDE,
# rtol = atol = 1e-14). Published numbers only.
SQUEEZER_REFERENCE = (0.1581077119629904e2, -0.1575637105984298e2, 0.4082224013073101e-1,
                      -0.5347301163226948, 0.5244099658805304, 0.5347301163226948, 0.1048080741042263e1)
SQUEEZER_T_REF = 0.03  # s


def _rod(name: str, m: int, joints: list[int], base: list[tuple[list[int], tuple[float, float]]], length: float,
         com: float | None = None) -> Body:
    mass = ROD_DENSITY * length
    a = np.zeros(m)
    a[joints] = 1.0
    r = 0.5 * length if com is None else com
    return Body(name, mass, mass * length ** 2 / 12.0, a, 0.0, point(m, [*base, (joints, (r, 0.0))]))


def four_bar(coordinate: str = "height") -> Mechanism:
    """The 1-dof four-bar of Ehsani's Eq. 121 (lengths :data:`FOUR_BAR`).

    ``coordinate="height"``: q = coupler CoM height [m], Ehsani's choice, range [-2, 2]
    (it is singular where the height is extreme, q = -3.12 and 3.97 m, so a free swing under
    gravity reaches a singularity: use it for kinematics). ``"crank"``: q = theta1 [rad], a
    full-turn coordinate (this double crank has no singular assembly): for dynamics.
    """
    P = FOUR_BAR
    m = 3
    A = ([0], (P["l1"], 0.0))
    Bp = ([0, 1], (P["l2"], 0.0))
    bodies = (_rod("link1", m, [0], [], P["l1"]),
              _rod("coupler", m, [0, 1], [A], P["l2"], P["lcm2"]),
              _rod("link3", m, [0, 1, 2], [A, Bp], P["l3"]))
    end = point(m, [A, Bp, ([0, 1, 2], (P["l3"], 0.0))])
    ground_c = point(m, [], (P["l0"], 0.0))
    com2 = point(m, [A, ([0, 1], (P["lcm2"], 0.0))])
    points = {"O": point(m, []), "A": point(m, [A]), "p": point(m, [A, ([0, 1], (P["lcm2"], PX_OFFSET))]),
              "B": point(m, [A, Bp]), "C": ground_c}
    guess = np.array([0.2834, -1.1243, 3.6994])  # q = 0, the assembly with B left of AC
    if coordinate == "height":
        coord = Coordinate("q", expr=com2, axis=1, range=(-2.0, 2.0), unit="m")
    else:
        coord = Coordinate("theta1", joint=0, range=(-np.pi, np.pi), period=2 * np.pi)
    name = "four_bar" if coordinate == "height" else "four_bar_crank"
    mech = Mechanism(name, ("theta1", "theta2", "theta3"), bodies, ((end, ground_c),), (coord,), guess,
                     torque_joints=(("tau1", np.array([1.0, 0.0, 0.0])),), points=points,
                     links=(("O", "A"), ("A", "p", "B", "A"), ("B", "C")), ground=("O", "C"),
                     q0=None, qd0=np.array([0.0]),
                     description="four-bar linkage (Ehsani 2023, Eq. 121); q = " + (
                         "height of the coupler CoM" if coordinate == "height" else "crank angle theta1"))
    mech.f_guess = mech.solve(np.array([0.0]), guess) if coordinate == "height" else guess
    mech.f_guess = mech.solve(mech.coord_values(mech.f_guess), mech.f_guess)
    mech.q0 = mech.coord_values(mech.f_guess)
    return mech


def five_bar() -> Mechanism:
    """The 2-dof five-bar of Ehsani's Eq. 123 and Table 2; q = (theta1, theta2) [rad]."""
    P = FIVE_BAR
    m = 4
    t1, t2, t3 = ([0], (P["l1"], 0.0)), ([0, 1], (P["l2"], 0.0)), ([0, 1, 2], (P["l3"], 0.0))
    bodies = (_rod("link1", m, [0], [], P["l1"]), _rod("link2", m, [0, 1], [t1], P["l2"]),
              _rod("link3", m, [0, 1, 2], [t1, t2], P["l3"]), _rod("link4", m, [0, 1, 2, 3], [t1, t2, t3], P["l4"]))
    end = point(m, [t1, t2, t3, ([0, 1, 2, 3], (P["l4"], 0.0))])
    ground = point(m, [], (P["l0"], 0.0))
    points = {"O": point(m, []), "J1": point(m, [t1]), "J2": point(m, [t1, t2]), "p": point(m, [t1, t2, ([0, 1, 2],
              (P["lp"], 0.0))]), "J3": point(m, [t1, t2, t3]), "G": ground}
    coords = (Coordinate("theta1", joint=0, range=(-np.pi, np.pi)),
              Coordinate("theta2", joint=1, range=(-np.pi, np.pi)))
    mech = Mechanism("five_bar", ("theta1", "theta2", "theta3", "theta4"), bodies, ((end, ground),), coords,
                     np.array([0.5, 0.5, 0.8, -2.0]),
                     torque_joints=(("tau1", np.eye(m)[0]), ("tau2", np.eye(m)[1])), points=points,
                     links=(("O", "J1", "J2", "J3", "G"),), ground=("O", "G"),
                     q0=np.array([0.5, 0.5]), qd0=np.array([0.0, 0.0]),
                     description="five-bar linkage (Ehsani 2023, Eq. 123, Table 2); q = (theta1, theta2)")
    f = mech.solve(np.array([0.5, 0.5]))
    mech.f_guess = np.angle(np.exp(1j * f))  # wrapped to (-pi, pi]
    return mech


def andrews_squeezer() -> Mechanism:
    """Andrews' squeezing mechanism (Hairer & Wanner parameters); q = beta [rad]."""
    S = SQUEEZER
    m = 7
    b, T, g, Ph, dl, Om, ep = range(7)
    A, B, C = (S["xa"], S["ya"]), (S["xb"], S["yb"]), (S["xc"], S["yc"])
    crank = ([b], (S["rr"], 0.0))
    h4 = ([dl], (S["zt"], 0.0))
    h6 = ([ep], (0.0, -S["u"]))
    a = np.eye(m)
    bodies = (
        Body("crank", S["m1"], S["i1"], a[b], 0.0, point(m, [([b], (S["ra"], 0.0))])),
        Body("rod", S["m2"], S["i2"], a[b] + a[T], 0.0, point(m, [crank, ([b, T], (-S["da"], 0.0))])),
        Body("triangle", S["m3"], S["i3"], a[g], 0.0, point(m, [([g], (S["sb"], -S["sa"]))], B)),
        Body("link4", S["m4"], S["i4"], a[Ph] + a[dl], 0.0, point(m, [h4, ([Ph, dl], (0.0, -(S["e"] - S["ea"])))], A)),
        Body("link5", S["m5"], S["i5"], a[dl], 0.0, point(m, [([dl], (S["ta"], S["tb"]))], A)),
        Body("link6", S["m6"], S["i6"], a[Om] + a[ep], 0.0, point(m, [h6, ([Om, ep], (S["zf"] - S["fa"], 0.0))], A)),
        Body("link7", S["m7"], S["i7"], a[ep], 0.0, point(m, [([ep], (S["ua"], S["ub"]))], A)),
    )
    e2 = point(m, [crank, ([b, T], (-S["d"], 0.0))])
    e3 = point(m, [([g], (0.0, -S["ss"]))], B)
    e4 = point(m, [h4, ([Ph, dl], (0.0, -S["e"]))], A)
    e6 = point(m, [h6, ([Om, ep], (S["zf"], 0.0))], A)
    spring_d = point(m, [([g], (S["sd"], -S["sc"]))], B)
    points = {"O": point(m, []), "K": point(m, [crank]), "E": e2, "B": point(m, [], B), "D": spring_d,
              "C": point(m, [], C), "A": point(m, [], A), "H4": point(m, [h4], A), "H6": point(m, [h6], A)}
    y0 = np.array(SQUEEZER_Y0)
    mech = Mechanism(
        "andrews_squeezer", SQUEEZER_ANGLES, bodies, ((e2, e3), (e2, e4), (e2, e6)),
        (Coordinate("beta", joint=0, range=(-np.pi, np.pi), period=2 * np.pi),), y0, gravity=(0.0, 0.0),
        springs=(Spring(spring_d, C, S["c0"], S["l0"]),), torque_joints=(("tau_beta", a[b]),),
        const_torque=S["mom"] * a[b], points=points,
        links=(("O", "K", "E"), ("B", "E", "D", "B"), ("A", "H4", "E"), ("A", "H6", "E"), ("D", "C")),
        ground=("O", "A", "B", "C"), q0=y0[:1].copy(), qd0=np.zeros(1),
        description="Andrews' squeezing mechanism (Hairer & Wanner II, VII.7); q = beta, drive torque 0.033 N m")
    return mech


def four_bar_crank() -> Mechanism:
    """The four-bar with the crank angle as its coordinate (for dynamics; see :func:`four_bar`)."""
    return four_bar("crank")


MECHANISMS = {"four_bar": four_bar, "four_bar_crank": four_bar_crank, "five_bar": five_bar,
              "andrews_squeezer": andrews_squeezer}


def build(name: str) -> Mechanism:
    """A fresh mechanism by name (:data:`MECHANISMS`)."""
    if name not in MECHANISMS:
        raise ValueError(f"unknown mechanism {name!r}; known: {', '.join(MECHANISMS)}")
    return MECHANISMS[name]()
