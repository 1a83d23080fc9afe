"""Measurement mode in silico (docs/nudging.md, "Measuring on your own record"): planner's grid until the day
is studied, each slot after the day's first withheld with probability 0.2, and every decision point as
planner records it (`nudge_decisions`). `planner stats --nudges`'s estimator is fitted to these rows by a
test (NudgeEstimatorTests), which checks it recovers the rho the students were simulated with.
"""
import numpy as np

import sim

WITHHOLD = 0.2


def decision_points(params, students, days, seed, p=WITHHOLD):
    """Rows (cluster, minute, shown_before, shown, p, started_within_60, started_before_next), one per slot after
    the day's first whose day was not started before its time; cluster = (seed * students + student) * days + day."""
    pop = sim.Population(students, seed, params)
    student = sim.Student(pop)
    rows = []
    grid = sim.GRID
    step = grid[1] - grid[0]
    for day in range(days):
        draws = sim.Day(pop, seed, day, params)
        withheld = np.random.default_rng([seed, 9, day]).random((students, grid.size)) < p
        withheld[:, 0] = False
        outcome = sim.live_day(pop, day, draws, student, params, np.where(withheld, np.nan, grid[None, :]))
        sim.end_day(day, student, outcome, params)
        start = outcome.start
        shown_before = np.zeros(students, dtype=int)
        cluster = (seed * students + np.arange(students)) * days + day
        for j, t in enumerate(grid):
            waiting = start > t
            if j > 0:
                sel = waiting
                n = int(sel.sum())
                rows.append(np.column_stack([
                    cluster[sel], np.full(n, int(t)), shown_before[sel], (~withheld[sel, j]).astype(int), np.full(n, p),
                    (start[sel] <= t + 60).astype(int), (start[sel] <= t + step).astype(int)]))
            shown_before += (~withheld[:, j]) & waiting
    return np.concatenate(rows)


class Withholding(sim.Policy):
    """Measurement mode as a policy: the grid until studied, each slot after the day's first withheld with
    probability WITHHOLD (its own stream of draws)."""
    name = "M"

    def plan(self, day, rng):
        withheld = rng.random((self.n, sim.GRID.size)) < WITHHOLD
        withheld[:, 0] = False
        return np.where(withheld, np.nan, sim.GRID[None, :])


def cost(params, students, days, seeds):
    """What measurement mode costs against the grid (B1), on the same students: studied share and nudges per
    studied day over days 21 on, each seed's figures (paired: common random numbers)."""
    rows = []
    for seed in seeds:
        out = sim.simulate(students, days, seed, params, [sim.Grid(False), Withholding()])
        figures = []
        for name in ("B1", "M"):
            r = out[name]
            studied = r.studied[:, 20:]
            figures += [studied.mean(), r.shown[:, 20:].sum() / max(studied.sum(), 1)]
        rows.append((seed, *figures))
    return rows
