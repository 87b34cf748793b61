"""Gain tuning and batch runs: parameter grids, executors, the tuning objective,
Ziegler-Nichols, optimisation and plots (``gaitblocks sweep`` / ``gaitblocks tune``).

* :mod:`app.tuning.grid` -- ``block.param=lo:hi:n`` axes; full grid, random or Latin-hypercube points;
* :mod:`app.tuning.worker` -- :class:`RunSpec` and :func:`run_one`, one headless run -> one CSV row;
* :mod:`blocks.executors` -- serial, ``concurrent.futures`` process pool, ``dask.distributed``;
* :mod:`app.tuning.sweep` -- the sweep loop with progress, ETA and clean Ctrl+C;
* :mod:`app.tuning.objective` -- the documented objective;
* :mod:`app.tuning.optimize` / :mod:`app.tuning.zn` -- the two tuning methods;
* :mod:`app.tuning.plots` -- heat maps and convergence plots (matplotlib, Agg).
"""
