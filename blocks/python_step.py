r"""The Python engine: one tick of a compiled model in plain Python, every block's law called as Python.

A block whose law is its kernels runs them as plain Python (:class:`blocks.kernels.PythonLaw`); a
block with Python callbacks (``Function``) runs those. One tick from ``k`` (``t = t0 + k dt``), in the
order of :mod:`blocks.runner` (and of the compiled step, :mod:`blocks.codegen`):

1. queued parameter changes (the run's :meth:`~blocks.compiled.Host.apply_changes`);
2. the major output pass (a sampled block only on its hits), the non-finite check, the recorder row;
3. the discrete updates with a hit, their mode switches logged (:meth:`~blocks.compiled.Host.log_modes`);
4. RK4 with the minor blocks at stages 2-4, summed as the compiled step sums::

       x_{k+1} = x + (((w_0 K_0 + w_1 K_1) + w_2 K_2) + w_3 K_3),   w = (1, 2, 2, 1) h / 6

   (or ``scipy.integrate.solve_ivp`` over the tick for another solver method), then the check of ``x``.

It drives the run through the same :class:`~blocks.compiled.Host` interface as the compiled engine
(:class:`blocks.compiled.CompiledEngine`), so :class:`blocks.runner.Runner` treats both alike.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from blocks.compile import CompiledModel
from blocks.core import Params, SimulationError

if TYPE_CHECKING:
    from blocks.compiled import Host

__all__ = ["PythonEngine"]


class PythonEngine:
    """The buffers and call lists of one run of ``model`` with parameters ``params`` (by block name,
    the run's own objects: a live change made there is seen after :meth:`repack`)."""

    def __init__(self, model: CompiledModel, params: dict[str, Params]) -> None:
        self.model, self.params = model, params
        self.dt, self.t0 = model.ctx.dt, model.ctx.t0
        self.method = model.diagram.solver.method
        self.sig, self.x, self.z, self.zn = np.zeros(model.n_signals), model.x0.copy(), model.z0.copy(), model.z0.copy()
        self.xw = model.x0.copy()
        self.K = np.zeros((4, self.x.size))
        self._tmp, self._tmp2 = np.zeros(self.x.size), np.zeros(self.x.size)
        self._w = np.array([1.0, 2.0, 2.0, 1.0]) * (self.dt / 6.0)
        self._build_calls()

    def _build_calls(self) -> None:
        m = self.model

        def view(buf: np.ndarray, slot: tuple[int, int]) -> np.ndarray:
            return buf[slot[0]: slot[0] + slot[1]]

        self._major: list[tuple[Any, ...]] = []
        self._minor: list[tuple[Any, ...]] = []
        self._updates: list[tuple[Any, ...]] = []
        self._modes: list[tuple[Any, ...]] = []
        self._derivs: list[list[tuple[Any, ...]]] = [[], [], [], []]
        self.laws: dict[str, Any] = {}  # blocks whose law is their kernels: them, as Python (PythonLaw)
        for b in m.blocks:
            n = b.name
            law: Any = b
            if b.law_is_kernel():
                law = self.laws[n] = b.python_law(self.params[n])
            u = tuple(view(self.sig, m.in_slot[f"{n}.{s.name}"]) for s in m.inputs[n])
            y = tuple(view(self.sig, m.out_slot[f"{n}.{s.name}"]) for s in m.outputs[n])
            x, xw = view(self.x, m.x_slot[n]), view(self.xw, m.x_slot[n])
            z, zn = view(self.z, m.z_slot[n]), view(self.zn, m.z_slot[n])
            p = self.params[n]
            every = m.ticks[n]
            if y:
                self._major.append((law.output, x, z, u, p, y, every, n))
                if n in m.minor:
                    self._minor.append((law.output, xw, z, u, p, y))
            if b.discrete and z.size:
                self._updates.append((law.update, x, z, u, p, zn, every, n))
                if b.modes:
                    k = len(b.modes)
                    self._modes.append((n, b.modes, b.mode_labels, z[:k], zn[:k], every))
            if x.size:
                for s in range(4):
                    self._derivs[s].append((law.derivative, x if s == 0 else xw, z, u, p, view(self.K[s], m.x_slot[n])))

    def repack(self, name: str, params: Sequence[Params]) -> None:
        """Re-read block ``name``'s packed vector after a live change (as the compiled engine's ``repack``)."""
        if name in self.laws:
            self.laws[name].repack(params[0])

    def packed(self, name: str) -> np.ndarray:
        """Block ``name``'s packed vector as the running law reads it (empty for a block with callbacks)."""
        return self.laws[name].packed if name in self.laws else np.zeros(0)

    # ---------------------------------------------------------------- the step
    def run_ticks(self, host: Host, n: int) -> None:
        """``n`` ticks of ``host`` (module docstring)."""
        for _ in range(int(n)):
            self._tick(host)

    def outputs_now(self, host: Host) -> None:
        """The major output pass at ``host``'s tick (a sampled block only on its hits), checked for non-finite
        values."""
        t, k = host.time, host.tick
        c: tuple[Any, ...] = ()
        try:
            for c in self._major:
                if c[6] == 1 or k % c[6] == 0:
                    c[0](t, c[1], c[2], c[3], c[4], c[5])
        except (ArithmeticError, ValueError, IndexError) as exc:
            raise SimulationError(f"block '{c[7]}' failed at t = {t:.6g} s: {exc}", block=c[7], t=t) from exc
        if not math.isfinite(float(np.add.reduce(self.sig))):
            host.raise_nonfinite(t)

    def _tick(self, host: Host) -> None:
        k = host.tick
        t = self.t0 + k * self.dt
        host.apply_changes()
        self.outputs_now(host)
        host.recorder.record(k, self.sig)
        if self._updates:
            for f, x, z, u, p, zn, every, _ in self._updates:
                if every == 1 or k % every == 0:
                    f(t, x, z, u, p, zn)
            for name, modes, labels, zm, znm, every in self._modes:
                if every == 1 or k % every == 0:
                    old, new = zm.tolist(), znm.tolist()
                    if old != new:
                        host.log_modes(t, name, modes, labels, old, new)
            for _, _, z, _, _, zn, every, _ in self._updates:
                if every == 1 or k % every == 0:
                    z[:] = zn
        if self.x.size:
            host.rhs_calls += self._rk4(t) if self.method == "rk4" else self._solve_ivp(t)
            if not math.isfinite(float(np.add.reduce(self.x))):
                host.tick = k + 1
                host.raise_nonfinite_state(t + self.dt)
        host.tick = k + 1

    def _rk4(self, t: float) -> int:
        """One RK4 step of the continuous states (module docstring); the derivative evaluations made (4)."""
        h = self.dt
        K, x, xw, tmp = self.K, self.x, self.xw, self._tmp
        for f, xs, z, u, p, dx in self._derivs[0]:
            f(t, xs, z, u, p, dx)
        for s, (c, ts) in enumerate(((0.5 * h, t + 0.5 * h), (0.5 * h, t + 0.5 * h), (h, t + h)), start=1):
            np.multiply(K[s - 1], c, out=tmp)
            np.add(x, tmp, out=xw)
            for f, xs, z, u, p, y in self._minor:
                f(ts, xs, z, u, p, y)
            for f, xs, z, u, p, dx in self._derivs[s]:
                f(ts, xs, z, u, p, dx)
        w, t2 = self._w, self._tmp2  # x += ((w0 K0 + w1 K1) + w2 K2) + w3 K3, the compiled step's order
        np.multiply(K[0], w[0], out=tmp)
        for s in range(1, 4):
            np.multiply(K[s], w[s], out=t2)
            tmp += t2
        x += tmp
        return 4

    def _solve_ivp(self, t: float) -> int:
        """The tick by ``scipy.integrate.solve_ivp`` (the diagram's method and tolerances); its evaluations."""
        from scipy.integrate import solve_ivp

        solver = self.model.diagram.solver

        def rhs(tt: float, xx: np.ndarray) -> np.ndarray:
            self.xw[:] = xx
            for f, xs, z, u, p, y in self._minor:
                f(tt, xs, z, u, p, y)
            for f, xs, z, u, p, dx in self._derivs[1]:
                f(tt, xs, z, u, p, dx)
            return self.K[1].copy()

        sol = solve_ivp(rhs, (t, t + self.dt), self.x.copy(), rtol=solver.rtol, atol=solver.atol)
        self.x[:] = sol.y[:, -1]
        return int(sol.nfev)
