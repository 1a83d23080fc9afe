"""Metrics, paired bootstrap CIs and the acceptance rule (docs/nudging.md) for a candidate policy X against B1
(planner today) and B2 (as many random slots): the same students and seeds for every policy, per-student
differences resampled together (B = 2000)."""
import dataclasses

import numpy as np

import sim

BOOT = 2000


@dataclasses.dataclass
class Metrics:
    studied: float            # studied share of study days
    per_studied: float        # nudges per studied day
    per_day: float            # nudges per study day
    median_start: float       # minutes
    longest: float            # mean longest streak (study days)
    current: float            # mean current streak at the end
    before: float             # share of study days started before any nudge
    by_kind: dict


def pooled(records):
    """Records of several seeds as one population (students side by side)."""
    return sim.Record(*(np.concatenate([getattr(r, f.name) for r in records]) for f in dataclasses.fields(sim.Record)))


def _streaks(studied):
    run = np.zeros(studied.shape[0])
    longest = np.zeros(studied.shape[0])
    for d in range(studied.shape[1]):
        run = np.where(studied[:, d], run + 1, 0)
        longest = np.maximum(longest, run)
    return longest, run


def metrics(rec, days):
    st, sh = rec.studied[:, days], rec.shown[:, days]
    longest, current = _streaks(st)
    return Metrics(
        studied=st.mean(), per_studied=sh.sum() / max(st.sum(), 1), per_day=sh.mean(),
        median_start=float(np.nanmedian(rec.start[:, days])), longest=longest.mean(), current=current.mean(),
        before=rec.before[:, days].mean(),
        by_kind={sim.ARCHETYPES[k]: st[rec.kind == k].mean() for k in range(4) if (rec.kind == k).any()})


def _ci(values):
    return float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))


def paired(x, y, days, rng):
    """X against Y: the studied-share difference in points (mean, CI, per archetype CI lower bound, the 10th
    percentile of the students' differences) and the ratio of nudges per studied day (point, CI)."""
    dx = x.studied[:, days].mean(axis=1) - y.studied[:, days].mean(axis=1)
    m = dx.size
    idx = rng.integers(0, m, (BOOT, m))
    diff = dx[idx].mean(axis=1) * 100
    sx, nx = x.shown[:, days].sum(axis=1), x.studied[:, days].sum(axis=1)
    sy, ny = y.shown[:, days].sum(axis=1), y.studied[:, days].sum(axis=1)
    ratio = (sx[idx].sum(axis=1) / np.maximum(nx[idx].sum(axis=1), 1)) / (sy[idx].sum(axis=1) / np.maximum(ny[idx].sum(axis=1), 1))
    kinds = {}
    for k in range(4):
        d = dx[x.kind == k]
        if d.size:
            kinds[sim.ARCHETYPES[k]] = _ci(d[rng.integers(0, d.size, (BOOT, d.size))].mean(axis=1) * 100)
    return {
        "diff": dx.mean() * 100, "diff_ci": _ci(diff), "kinds": kinds, "p10": float(np.percentile(dx, 10) * 100),
        "ratio": (sx.sum() / max(nx.sum(), 1)) / (sy.sum() / max(ny.sum(), 1)), "ratio_ci": _ci(ratio),
    }


def matched_b2(results, x, days):
    """B2 with the K whose nudges per study day come nearest X's."""
    target = results[x].shown[:, days].mean()
    names = [n for n in results if n.startswith("B2(")]
    return min(names, key=lambda n: abs(results[n].shown[:, days].mean() - target))


def accept(results, x, total_days, seed=12345):
    """A1-A5 for candidate X (results: name -> pooled Record). Returns (passed, reasons, figures)."""
    rng = np.random.default_rng(seed)
    days, cold = slice(20, total_days), slice(0, 20)
    vs1 = paired(results[x], results["B1"], days, rng)
    b2 = matched_b2(results, x, days)
    vs2 = paired(results[x], results[b2], days, rng)
    cold1 = paired(results[x], results["B1"], cold, rng)
    mx, m1 = metrics(results[x], days), metrics(results["B1"], days)
    failed = []
    if vs1["diff_ci"][0] < -1.0 or any(lo < -3.0 for lo, _ in vs1["kinds"].values()):
        failed.append("A1")
    if vs1["ratio_ci"][1] > 0.60:
        failed.append("A2")
    # A3 and A5 on the point estimates, one-sided (a later start, a shorter streak, a colder start fail).
    if mx.median_start - m1.median_start > 30 or mx.longest < m1.longest - 0.5:
        failed.append("A3")
    if vs2["diff_ci"][0] <= 0:
        failed.append("A4")
    if cold1["diff"] < -2.0:
        failed.append("A5")
    return not failed, failed, {"vs_b1": vs1, "vs_b2": vs2, "b2": b2, "cold": cold1, "x": mx, "b1": m1}
