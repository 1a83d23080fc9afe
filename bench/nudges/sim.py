"""The simulated student of ../../docs/nudging.md (the model, its parameters, the policies), vectorised across
students: every policy is run on the same students, day by day, in lockstep, so that they see the same draws.

Common random numbers: every draw is indexed by (student, study day) or (student, study day, 5-minute clock
bucket), never by the order of calls, so two policies nudging one student at 18:00 on one day see the same
draw. Every draw is made from uniform doubles (numpy's PCG64 `random()`), turned into normals (Box-Muller),
betas with whole parameters (order statistics) and exponentials (inverse CDF) here: the numbers do not depend
on how a numpy version samples other distributions. Only the Thompson-sampling policies (B4, B5) draw betas
with numpy's own sampler, from their own stream.

Times are minutes from local midnight. The study days are Monday to Friday only (day d is weekday d % 5).
"""
import dataclasses
import math
import zlib

import numpy as np

BUCKETS = 288                      # 5-minute buckets in a day
GRID = np.arange(570, 1291, 30.0)  # planner's grid: 09:30 ... 21:30, every 30 minutes (25 slots)
WINDOW = (570.0, 1290.0)
ARCHETYPES = ("evening", "morning", "bedtime", "erratic")


@dataclasses.dataclass(frozen=True)
class Params:
    """The parameter table (nudges.md), start values; the sweep changes rho, h_inf, omega and r_min."""
    mix: tuple = (0.4, 0.2, 0.2, 0.2)   # evening, morning, bedtime, erratic
    q_scale: float = 0.7                # q ~ Beta(3, 7) * q_scale: set by `run.py calibrate` (gate G1)
    omega: float = 90.0
    r_min: float = 0.15
    rho: float = 0.85
    h_inf: float = 0.75
    tau_e: float = 20.0                 # start value 60; set by `run.py calibrate` (gate G3; its sweep 20-200)
    h_e: float = 15.0
    gamma: float = 0.017
    h_text: float = 15.0
    eta: float = 1 - 0.05 ** (1 / 66)
    kappa: float = 0.01
    fri: float = 0.9
    latency: float = 8.0

    def replace(self, **changes):
        return dataclasses.replace(self, **changes)


def _normal(u1, u2):
    return np.sqrt(-2.0 * np.log(1.0 - u1)) * np.cos(2.0 * math.pi * u2)


def _beta_whole(u, a, b):
    """Beta(a, b) for whole a, b: the a-th smallest of a + b - 1 uniforms (u's last axis)."""
    return np.sort(u[..., : a + b - 1], axis=-1)[..., a - 1]


class Population:
    """N students of one seed: archetype, usual time and spread, availability, habit, receptiveness."""

    def __init__(self, n, seed, params, archetypes=None):
        rng = np.random.default_rng([seed, 0])
        u = rng.random((n, 40))
        self.n = n
        cut = np.cumsum(params.mix)
        kind = np.searchsorted(cut / cut[-1], u[:, 0], side="right")
        if archetypes is not None:  # a population of one archetype (the gates)
            kind = np.full(n, ARCHETYPES.index(archetypes))
        self.kind = kind
        z = _normal(u[:, 1], u[:, 2])
        mu = np.choose(kind, [1140 + 60 * z, 510 + 45 * z, 1335 + 30 * z, 600 + 660 * u[:, 3]])
        self.mu = mu
        self.sigma = np.choose(kind, [45.0, 30.0, 30.0, 180.0])
        self.alpha = _beta_whole(u[:, 4:23], 18, 2)
        self.c = 0.6 + 0.35 * u[:, 23]
        self.h0 = 0.1 + 0.3 * u[:, 24]
        self.q = np.minimum(1.0, params.q_scale * _beta_whole(u[:, 25:34], 3, 7))


class Day:
    """One study day's draws for every student: availability, natural time, an unprompted start, and per
    5-minute bucket the draw a nudge there converts with and its latency."""

    def __init__(self, pop, seed, day, params):
        rng = np.random.default_rng([seed, 1, day])
        u = rng.random((pop.n, 4))
        phi = params.fri if day % 5 == 4 else 1.0
        self.available = u[:, 0] < pop.alpha * phi
        self.natural = pop.mu + pop.sigma * _normal(u[:, 1], u[:, 2])
        self.u_start = u[:, 3]
        self.u_convert = rng.random((pop.n, BUCKETS))
        self.latency = -params.latency * np.log(1.0 - rng.random((pop.n, BUCKETS)))


class Student:
    """What carries from day to day: habit H, exposure E, and when the text was last seen."""

    def __init__(self, pop):
        self.habit = pop.h0.copy()
        self.exposure = np.zeros(pop.n)
        self.last_seen = np.full(pop.n, -np.inf)


@dataclasses.dataclass
class Outcome:
    studied: np.ndarray      # bool [N]
    start: np.ndarray        # minutes, inf when not studied
    shown: np.ndarray        # nudges shown that day [N]
    times: np.ndarray        # the policy's times [N, K] (nan: none)
    was_shown: np.ndarray    # bool [N, K]
    before_nudge: np.ndarray  # studied with no nudge shown before the start
    converted: np.ndarray    # bool [N, K]: this nudge made the day start (the simulator's truth, for the gates)


def live_day(pop, day, draws, student, params, times, always=False):
    """One day of one policy: `times` [N, K] ascending (nan: none). A nudge is shown while the day is not
    started (`always`: every one, B0); each shown one converts with q R Hab rho^(k-1) Nov A."""
    n = pop.n
    s = draws.available & (draws.u_start < pop.c * student.habit)
    start = np.where(s, draws.natural, np.inf)
    hab = params.h_inf + (1 - params.h_inf) * np.exp(-student.exposure / params.tau_e)
    nov = 1 - params.gamma * np.exp2(-(day - student.last_seen) / params.h_text)
    base = pop.q * hab * nov * draws.available
    count = np.zeros(n)
    was_shown = np.zeros(times.shape, dtype=bool)
    first_shown = np.full(n, np.inf)
    converted = np.zeros(n, dtype=bool)
    by_nudge = np.zeros(times.shape, dtype=bool)
    rows = np.arange(n)
    for k in range(times.shape[1]):
        t = times[:, k]
        valid = ~np.isnan(t)
        tt = np.where(valid, t, 0.0)
        open_day = tt < start
        shown = valid & (open_day | always)
        count += shown
        was_shown[:, k] = shown
        first_shown = np.where(shown & (first_shown == np.inf), tt, first_shown)
        eligible = shown & open_day & ~converted
        r = np.maximum(params.r_min, np.exp(-((tt - draws.natural) ** 2) / (2 * params.omega ** 2)))
        p = base * r * params.rho ** np.maximum(count - 1, 0)
        b = np.clip((tt // 5).astype(int), 0, BUCKETS - 1)
        conv = eligible & (draws.u_convert[rows, b] < p)
        converted |= conv
        new_start = tt + draws.latency[rows, b]
        by_nudge[:, k] = conv & (new_start < start)
        start = np.where(conv, np.minimum(start, new_start), start)
    studied = start < np.inf
    return Outcome(studied, start, count, times, was_shown, studied & (first_shown >= start), by_nudge)


def end_day(day, student, outcome, params):
    student.habit = np.where(outcome.studied, student.habit + params.eta * (1 - student.habit), (1 - params.kappa) * student.habit)
    student.exposure = 2 ** (-1 / params.h_e) * student.exposure + outcome.shown
    student.last_seen = np.where(outcome.shown > 0, day, student.last_seen)


# ---- policies: each sees only what planner records (nudges shown, answers, the start), never T, S, A --------


class Policy:
    name = "?"
    always = False

    def reset(self, pop, seed):
        self.n = pop.n

    def plan(self, day, rng):
        raise NotImplementedError

    def learn(self, day, outcome):
        pass


class Grid(Policy):
    """B0 (always) and B1 (until the day is studied: planner today)."""

    def __init__(self, always=False):
        self.always = always
        self.name = "B0" if always else "B1"

    def plan(self, day, rng):
        return np.broadcast_to(GRID, (self.n, GRID.size))


class RandomSlots(Policy):
    """B2: K slots of the grid drawn at random each day, until studied (fewer, not smarter)."""

    def __init__(self, k):
        self.k, self.name = k, f"B2(K={k})"

    def plan(self, day, rng):
        keys = rng.random((self.n, GRID.size))
        chosen = np.sort(np.argsort(keys, axis=1)[:, : self.k], axis=1)
        return GRID[chosen]


class UsualTime(Policy):
    """B3: with >= 10 studied days in the last 20, nudges at median(last 14 starts) - 15', then 60' later, and a
    last call at the window's end - 15'; else the grid. `guarded` (planner's opt-in `usual-time`): also the
    grid when the last 14 starts spread more than 90' (standard deviation) or the usual time is outside the
    window, and every nudge inside the window."""

    def __init__(self, guarded=False):
        self.guarded = guarded
        self.name = "B3g" if guarded else "B3"

    def reset(self, pop, seed):
        super().reset(pop, seed)
        self.studied = np.zeros((pop.n, 0), dtype=bool)
        self.starts = np.full((pop.n, 14), np.nan)

    def plan(self, day, rng):
        recent = self.studied[:, -20:].sum(axis=1)
        with np.errstate(all="ignore"):
            usual = np.nanmedian(self.starts, axis=1)
            spread = np.nanstd(self.starts, axis=1)
        use = recent >= 10
        if self.guarded:
            use &= (spread <= 90) & (usual >= WINDOW[0]) & (usual <= WINDOW[1])
        last = WINDOW[1] - 15
        first = np.where(usual - 15 < last, usual - 15, np.nan)
        second = np.where(usual + 45 < last, usual + 45, np.nan)
        mine = np.stack([first, second, np.full(self.n, last)], axis=1)
        if self.guarded:
            mine = np.where((mine >= WINDOW[0]) & (mine <= WINDOW[1]), mine, np.nan)
        grid = np.full((self.n, GRID.size), np.nan)
        grid[:] = GRID
        out = np.full((self.n, GRID.size), np.nan)
        out[use, :3] = mine[use]
        out[~use] = grid[~use]
        return np.sort(out, axis=1)

    def learn(self, day, outcome):
        self.studied = np.concatenate([self.studied, outcome.studied[:, None]], axis=1)[:, -20:]
        rolled = np.concatenate([self.starts[:, 1:], outcome.start[:, None]], axis=1)
        self.starts = np.where(outcome.studied[:, None], rolled, self.starts)


def usual_time_minutes(history, guarded=True, window=WINDOW):
    """One student's B3 (B3g when `guarded`) decision from their record, as planner's `usual-time` schedule makes
    it (UsualTimeTests replays it against Sources/PlannerCore/UsualTime.swift): `history` is the study days before
    the day, oldest first, each (studied, start minute or None). The reminders' minutes, or None for the grid.
    The same rule as UsualTime.plan above, one student at a time, with the median rounded down to a whole minute
    (planner's reminders fall on whole minutes)."""
    studied = sum(1 for s, _ in history[-20:] if s)
    starts = [t for s, t in history if s][-14:]
    if studied < 10:
        return None
    usual = math.floor(float(np.median(starts)))
    spread = float(np.std(starts))
    if guarded and not (spread <= 90 and window[0] <= usual <= window[1]):
        return None
    last = window[1] - 15
    mine = [t for t in (usual - 15, usual + 45) if t < last] + [last]
    if guarded:
        mine = [t for t in mine if window[0] <= t <= window[1]]
    return sorted({int(t) for t in mine})


class Thompson(Policy):
    """B4: Thompson sampling per grid slot (Beta(1, 4) prior), the 3 best draws each day, until studied; a shown
    nudge succeeds when the day starts within 60' of it. B5 (`recovering`): every day the counts fall back
    toward the prior (factor 0.97), and 2 a day instead of 3 when more than 10 were shown in the last 7 days."""

    def __init__(self, recovering=False):
        self.recovering = recovering
        self.name = "B5" if recovering else "B4"

    def reset(self, pop, seed):
        super().reset(pop, seed)
        self.a = np.ones((pop.n, GRID.size))
        self.b = np.full((pop.n, GRID.size), 4.0)
        self.week = np.zeros((pop.n, 0))

    def plan(self, day, rng):
        if self.recovering:
            self.a = 1 + 0.97 * (self.a - 1)
            self.b = 4 + 0.97 * (self.b - 4)
        theta = rng.beta(self.a, self.b)
        order = np.argsort(-theta, axis=1)
        k = np.full(self.n, 3)
        if self.recovering:
            k = np.where(self.week[:, -7:].sum(axis=1) > 10, 2, 3)
        chosen = np.sort(order[:, :3], axis=1)
        times = GRID[chosen].astype(float)
        rank = np.argsort(np.argsort(-np.take_along_axis(theta, chosen, axis=1), axis=1), axis=1)
        times[rank >= k[:, None]] = np.nan
        return np.sort(times, axis=1)

    def learn(self, day, outcome):
        slot = np.rint((np.nan_to_num(outcome.times, nan=-1e9) - GRID[0]) / 30).astype(int)
        success = (outcome.start[:, None] >= outcome.times) & (outcome.start[:, None] < outcome.times + 60)
        for k in range(outcome.times.shape[1]):
            m = outcome.was_shown[:, k]
            rows = np.nonzero(m)[0]
            self.a[rows, slot[rows, k]] += success[rows, k]
            self.b[rows, slot[rows, k]] += ~success[rows, k]
        self.week = np.concatenate([self.week, outcome.shown[:, None]], axis=1)[:, -7:]


class Oracle(Policy):
    """O: one nudge at the natural time - 10' (it sees T: headroom only, never a candidate)."""
    name = "O"

    def plan(self, day, rng):
        return (self.draws.natural - 10)[:, None]


def policies_for_map():
    # B2 at every budget a candidate may have (B3g keeps most of the grid's 25): A4 compares a candidate with
    # the one that sends as many reminders a study day.
    return [Grid(True), Grid(False), UsualTime(), UsualTime(True), Thompson(), Thompson(True), Oracle()] + [
        RandomSlots(k) for k in (1, 2, 3, 4, 5, 6, 8, 10, 13, 17, 21, 25)]


@dataclasses.dataclass
class Record:
    """One policy's days for every student: studied, start, nudges shown, started before any nudge."""
    studied: np.ndarray   # [N, D]
    start: np.ndarray     # [N, D] (nan: not studied)
    shown: np.ndarray     # [N, D]
    before: np.ndarray    # [N, D]
    kind: np.ndarray      # [N]


def simulate(n, days, seed, params, policies, archetypes=None):
    """Every policy on the same N students of `seed` for `days` study days. Returns {name: Record}."""
    pop = Population(n, seed, params, archetypes)
    students = [Student(pop) for _ in policies]
    for i, p in enumerate(policies):
        p.reset(pop, seed)
    out = {p.name: Record(np.zeros((n, days), bool), np.full((n, days), np.nan), np.zeros((n, days)), np.zeros((n, days), bool), pop.kind)
           for p in policies}
    for day in range(days):
        draws = Day(pop, seed, day, params)
        for i, p in enumerate(policies):
            p.draws = draws
            rng = np.random.default_rng([seed, 2, day, zlib.crc32(p.name.encode())])
            times = np.asarray(p.plan(day, rng), dtype=float)
            o = live_day(pop, day, draws, students[i], params, times, p.always)
            p.learn(day, o)
            p.outcome = o
            end_day(day, students[i], o, params)
            r = out[p.name]
            r.studied[:, day] = o.studied
            r.start[:, day] = np.where(o.studied, o.start, np.nan)
            r.shown[:, day] = o.shown
            r.before[:, day] = o.before_nudge
    return out
