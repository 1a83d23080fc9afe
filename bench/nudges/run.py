#!/usr/bin/env python3
"""The nudge simulator's commands (docs/nudging.md says what they mean).

  run.py calibrate                 the pre-registered calibration on the tuning seeds 1-5 (q's scale for G1,
                                   tau_E for G3); sim.Params holds what it chose
  run.py gates                     the validity gates G1-G3 on the reporting seeds 6-10, core cell
  run.py cell [--rho R] [--h-inf H] [--omega W --r-min M]
                                   one cell on the reporting seeds: its gates, every policy's metrics, and
                                   A1-A5 for each candidate (B3, B3g = planner's usual-time, B4, B5)
  run.py map [--cells corners|all] [--out DIR]
                                   the pre-registered grid (all: 4 rho x 4 h_inf x 3 (omega, r_min) = 48
                                   cells; corners: the core cell and its four rho x h_inf corners): a table,
                                   each candidate's boundary rho*, and DIR/nudge-map.svg (heat maps)
  run.py measure [--rho R] [--h-inf H] [--cost]
                                   measurement mode's decision points (measurement.py) as tab-separated rows:
                                   cluster, minute, shown before, shown, p, started within 60', before the next;
                                   --cost: its studied share and nudges against the grid's (B1), per seed
  run.py smoke [--write]           100 students, 60 days, seed 6, and each gate's figure with 300 students:
                                   compared with golden.json (--write: record them)

Options: --students N (default 1000), --days D (default 120), --seeds a-b (default 6-10).
A result is printed as one only when the cell's gates pass; otherwise the line says "gates fail".
"""
import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import evaluate  # noqa: E402
import gates  # noqa: E402
import sim  # noqa: E402

warnings.filterwarnings("ignore", category=RuntimeWarning)  # nanmedian of a student with no start yet
CANDIDATES = ("B3", "B3g", "B4", "B5")
RHOS, H_INFS, SHAPES = (0.6, 0.7, 0.85, 1.0), (0.0, 0.5, 0.75, 1.0), ((90.0, 0.15), (45.0, 0.05), (180.0, 0.4))
CORE = sim.Params()


def seeds_of(text):
    a, _, b = text.partition("-")
    if not a.isdigit() or not (b or a).isdigit() or int(b or a) < int(a):
        raise argparse.ArgumentTypeError(f"invalid seeds {text!r}: expected N or A-B (e.g. 6-10)")
    return list(range(int(a), int(b or a) + 1))


def at_least(low):
    def parse(text):
        if not text.isdigit() or int(text) < low:
            raise argparse.ArgumentTypeError(f"invalid value {text!r}: expected a whole number of at least {low}")
        return int(text)
    return parse


def run_cell(params, seeds, students, days):
    per_seed = [sim.simulate(students, days, s, params, sim.policies_for_map()) for s in seeds]
    return {name: evaluate.pooled([r[name] for r in per_seed]) for name in per_seed[0]}


def gate_line(results):
    return "; ".join(f"{r.name}: {'pass' if r.passed else 'FAIL'} ({r.value})" for r in results)


def fmt_minutes(m):
    return f"{int(m) // 60:02d}:{int(m) % 60:02d}"


def cmd_calibrate(a):
    params, log = gates.calibrate(CORE, seeds_of("1-5"))
    print("\n".join(log))
    print(f"chosen: q_scale {params.q_scale}, tau_e {params.tau_e} (sim.Params holds q_scale {CORE.q_scale}, tau_e {CORE.tau_e})")
    return 0 if (params.q_scale, params.tau_e) == (CORE.q_scale, CORE.tau_e) else 1


def cmd_gates(a):
    results = gates.all_gates(CORE, seeds_of(a.seeds))
    for r in results:
        print(f"{r.name}: {'pass' if r.passed else 'FAIL'} — {r.value}")
    return 0 if all(r.passed for r in results) else 1


def cell_report(params, seeds, students, days, gate_results=None):
    gate_results = gate_results or gates.all_gates(params, seeds)
    valid = all(r.passed for r in gate_results)
    results = run_cell(params, seeds, students, days)
    verdicts = {x: evaluate.accept(results, x, days) for x in CANDIDATES}
    return valid, gate_results, results, verdicts


def cmd_cell(a):
    params = CORE.replace(rho=a.rho, h_inf=a.h_inf, omega=a.omega, r_min=a.r_min)
    began = time.monotonic()
    valid, gate_results, results, verdicts = cell_report(params, seeds_of(a.seeds), a.students, a.days)
    print(f"cell rho {params.rho}, h_inf {params.h_inf}, omega {params.omega:.0f}', r_min {params.r_min}; seeds {a.seeds}, "
          f"{a.students} students x {a.days} study days each")
    print("gates: " + gate_line(gate_results))
    if not valid:
        print("gates fail: no result of this cell counts")
    days = slice(20, a.days)
    print(f"\n{'policy':9s} {'studied':>8s} {'nudges/studied':>15s} {'nudges/day':>11s} {'median start':>13s} {'longest':>8s} {'before any':>11s}  by archetype")
    for name, rec in results.items():
        m = evaluate.metrics(rec, days)
        kinds = " ".join(f"{k} {v * 100:.1f}" for k, v in m.by_kind.items())
        print(f"{name:9s} {m.studied * 100:7.1f}% {m.per_studied:15.2f} {m.per_day:11.2f} {fmt_minutes(m.median_start):>13s} "
              f"{m.longest:8.1f} {m.before * 100:10.1f}%  {kinds}")
    print()
    for x, (ok, failed, f) in verdicts.items():
        v1 = f["vs_b1"]
        kinds = ", ".join(f"{k} {lo:+.1f}" for k, (lo, _) in v1["kinds"].items())
        print(f"{x}: {'PASSES' if ok else 'fails ' + ' '.join(failed)}{'' if valid else ' (gates fail: not a result)'} — studied {v1['diff']:+.1f} points "
              f"vs B1 (CI {v1['diff_ci'][0]:+.1f} … {v1['diff_ci'][1]:+.1f}; lower bounds by archetype {kinds}; 10th percentile of students "
              f"{v1['p10']:+.1f}), nudges per studied day x{v1['ratio']:.2f} (CI {v1['ratio_ci'][0]:.2f} … {v1['ratio_ci'][1]:.2f}), "
              f"median start {f['x'].median_start - f['b1'].median_start:+.0f}', longest streak {f['x'].longest - f['b1'].longest:+.1f}, "
              f"vs {f['b2']} {f['vs_b2']['diff']:+.1f} (CI lower {f['vs_b2']['diff_ci'][0]:+.1f}), cold start {f['cold']['diff']:+.1f}")
    print(f"\n({time.monotonic() - began:.0f} s)")
    return 0


def cells(which):
    if which == "all":
        return [(r, h, s) for s in SHAPES for r in RHOS for h in H_INFS]
    core = (CORE.rho, CORE.h_inf, (CORE.omega, CORE.r_min))
    return [core] + [(r, h, core[2]) for r in (RHOS[0], RHOS[-1]) for h in (H_INFS[0], H_INFS[-1])]


def cmd_map(a):
    began = time.monotonic()
    seeds = seeds_of(a.seeds)
    gate_cache, rows = {}, []
    print(f"seeds {a.seeds}, {a.students} students x {a.days} study days; Δ = studied share vs B1 in points (95 % CI), "
          f"× = nudges per studied day vs B1 (95 % CI)")
    for rho, h_inf, (omega, r_min) in cells(a.cells):
        params = CORE.replace(rho=rho, h_inf=h_inf, omega=omega, r_min=r_min)
        key = (rho, omega, r_min)  # G2 and G3 fix h_inf themselves; G1 is the cell's own
        if key not in gate_cache:
            gate_cache[key] = [gates.g2(params, seeds), gates.g3(params, seeds)]
        cell_gates = [gates.g1(params, seeds)] + gate_cache[key]
        valid, g, results, verdicts = cell_report(params, seeds, a.students, a.days, cell_gates)
        rows.append((rho, h_inf, omega, r_min, valid, verdicts))
        parts = []
        for x, (ok, failed, f) in verdicts.items():
            v = f["vs_b1"]
            parts.append(f"{x} {'pass' if ok else 'fail ' + ','.join(failed)} Δ{v['diff']:+.1f} ({v['diff_ci'][0]:+.1f}…{v['diff_ci'][1]:+.1f}) "
                         f"×{v['ratio']:.2f}")
        print(f"rho {rho:<4} h_inf {h_inf:<4} omega {omega:3.0f}' r_min {r_min:<4} {'gates ok ' if valid else 'GATES FAIL'} | " + " | ".join(parts), flush=True)
    print("\nboundary rho*(X): the largest rho of the grid up to which X passes at every smaller rho (gate-consistent cells only)")
    for x in CANDIDATES:
        for h_inf in sorted({r[1] for r in rows}):
            for omega, r_min in sorted({(r[2], r[3]) for r in rows}):
                line = sorted((r[0], r[5][x][0]) for r in rows if r[1] == h_inf and (r[2], r[3]) == (omega, r_min) and r[4])
                if not line:
                    continue
                star = None
                for rho, ok in line:
                    if not ok:
                        break
                    star = rho
                print(f"  {x} at h_inf {h_inf}, omega {omega:.0f}': rho* = {star if star is not None else 'none (fails at the smallest rho, ' + str(line[0][0]) + ')'}")
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        path = os.path.join(a.out, "nudge-map.svg")
        with open(path, "w") as f:
            f.write(svg(rows, "B3g"))
        print(f"\nheat map of B3g (planner's usual-time): {path}")
    print(f"({time.monotonic() - began:.0f} s)")
    return 0


def svg(rows, x):
    """Two heat maps per (omega, r_min): rows rho, columns h_inf; Δ studied share (red loses, blue gains) and the
    nudge ratio (darker: fewer nudges). A cell whose gates fail is grey."""
    shapes = sorted({(r[2], r[3]) for r in rows})
    rhos, hs = sorted({r[0] for r in rows}, reverse=True), sorted({r[1] for r in rows})
    cw, ch, pad = 64, 28, 70
    pw = pad + cw * len(hs) + 30
    ph = 60 + ch * len(rhos) + 40
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * pw}" height="{ph * len(shapes) + 20}" font-family="sans-serif" font-size="11">']
    for si, (omega, r_min) in enumerate(shapes):
        for pi, (title, value, color) in enumerate((
                ("Δ studied share vs B1 (points)", lambda v: f"{v['diff']:+.1f}", lambda v: _diverging(v["diff"] / 5)),
                ("nudges per studied day vs B1 (×)", lambda v: f"{v['ratio']:.2f}", lambda v: _sequential(1 - min(v["ratio"], 1))))):
            ox, oy = pi * pw, si * ph + 10
            out.append(f'<text x="{ox + pad}" y="{oy + 14}" font-weight="bold">{x}: {title}</text>')
            out.append(f'<text x="{ox + pad}" y="{oy + 28}">omega {omega:.0f} min, r_min {r_min}</text>')
            for j, h in enumerate(hs):
                out.append(f'<text x="{ox + pad + j * cw + cw / 2}" y="{oy + 48}" text-anchor="middle">h∞ {h}</text>')
            for i, rho in enumerate(rhos):
                out.append(f'<text x="{ox + pad - 6}" y="{oy + 52 + i * ch + ch / 2 + 4}" text-anchor="end">ρ {rho}</text>')
                for j, h in enumerate(hs):
                    match = [r for r in rows if r[0] == rho and r[1] == h and (r[2], r[3]) == (omega, r_min)]
                    x0, y0 = ox + pad + j * cw, oy + 52 + i * ch
                    if not match:
                        continue
                    valid, (ok, failed, f) = match[0][4], match[0][5][x]
                    fill = color(f["vs_b1"]) if valid else "#bbbbbb"
                    mark = "" if not valid else (" ✓" if ok else "")
                    out.append(f'<rect x="{x0}" y="{y0}" width="{cw - 2}" height="{ch - 2}" fill="{fill}"/>')
                    out.append(f'<text x="{x0 + cw / 2}" y="{y0 + ch / 2 + 4}" text-anchor="middle">{value(f["vs_b1"])}{mark}</text>')
    out.append("</svg>\n")
    return "\n".join(out)


def _diverging(t):
    t = max(-1.0, min(1.0, t))
    if t < 0:
        return f"rgb(255,{int(255 * (1 + t))},{int(255 * (1 + t))})"
    return f"rgb({int(255 * (1 - t))},{int(255 * (1 - t))},255)"


def _sequential(t):
    g = int(255 - 155 * max(0.0, min(1.0, t)))
    return f"rgb({g},{int(g * 0.9 + 25)},255)"


def smoke_numbers():
    results = run_cell(CORE, [6], 100, 60)
    # Common random numbers: B0 and B1 nudge alike until a day starts, so their first day is the same day.
    if not (np.array_equal(results["B0"].studied[:, 0], results["B1"].studied[:, 0])
            and np.array_equal(results["B0"].start[:, 0], results["B1"].start[:, 0], equal_nan=True)):
        raise SystemExit("nudges smoke: B0 and B1 differ on their first day: the draws depend on the policy, not only on the clock")
    days = slice(20, 60)
    out = {}
    for name, rec in results.items():
        m = evaluate.metrics(rec, days)
        out[name] = {"studied": round(m.studied, 12), "per_studied": round(m.per_studied, 12), "median_start": round(m.median_start, 9)}
    out["B3g_vs_B1"] = round(evaluate.paired(results["B3g"], results["B1"], days, np.random.default_rng(12345))["diff"], 9)
    for r in (gates.g1(CORE, [6], 300), gates.g2(CORE, [6], 300), gates.g3(CORE, [6], 300)):
        out[r.name] = round(float(r.number), 9)
    return out


def cmd_smoke(a):
    began = time.monotonic()
    numbers = smoke_numbers()
    path = os.path.join(HERE, "golden.json")
    if a.write:
        with open(path, "w") as f:
            json.dump(numbers, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"nudges smoke: wrote {path}")
        return 0
    with open(path) as f:
        golden = json.load(f)
    bad = []
    for name in sorted(set(golden) | set(numbers)):
        g, n = golden.get(name), numbers.get(name)
        if isinstance(g, dict) and isinstance(n, dict):
            for k in g:
                if k not in n or abs(g[k] - n[k]) > 1e-9 * max(1.0, abs(g[k])):
                    bad.append(f"{name}.{k}: golden {g[k]}, now {n.get(k)}")
        elif g is None or n is None or abs(g - n) > 1e-9 * max(1.0, abs(g)):
            bad.append(f"{name}: golden {g}, now {n}")
    if bad:
        print("nudges smoke: the simulator's numbers changed (bench/nudges/run.py smoke --write records new ones, "
              "with the reason in the commit):\n  " + "\n  ".join(bad[:20]), file=sys.stderr)
        return 1
    print(f"nudges smoke: ok — {len(numbers)} figures as golden.json says ({time.monotonic() - began:.1f} s)")
    return 0


def cmd_measure(a):
    import measurement
    params = CORE.replace(rho=a.rho, h_inf=a.h_inf)
    if a.cost:
        print("seed  B1 studied  B1 nudges/studied day  M studied  M nudges/studied day  difference (points)")
        for seed, b_share, b_nudges, m_share, m_nudges in measurement.cost(params, a.students, a.days, seeds_of(a.seeds)):
            print(f"{seed:>4}  {b_share:10.3f}  {b_nudges:21.2f}  {m_share:9.3f}  {m_nudges:20.2f}  {100 * (m_share - b_share):+.2f}")
        return 0
    out = sys.stdout
    for seed in seeds_of(a.seeds):
        for row in measurement.decision_points(params, a.students, a.days, seed):
            out.write("\t".join(f"{x:g}" for x in row) + "\n")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    for name in ("calibrate", "gates", "cell", "map", "smoke", "measure"):
        p = sub.add_parser(name)
        p.add_argument("--students", type=at_least(10), default=1000)
        p.add_argument("--days", type=at_least(21), default=120, help="study days (the first 20 are the cold start)")
        p.add_argument("--seeds", type=lambda t: (seeds_of(t), t)[1], default="6-10")
        if name in ("cell", "measure"):
            p.add_argument("--rho", type=float, default=CORE.rho)
            p.add_argument("--h-inf", type=float, default=CORE.h_inf)
        if name == "measure":
            p.add_argument("--cost", action="store_true")
        if name == "cell":
            p.add_argument("--omega", type=float, default=CORE.omega)
            p.add_argument("--r-min", type=float, default=CORE.r_min)
        if name == "map":
            p.add_argument("--cells", choices=("corners", "all"), default="corners")
            p.add_argument("--out")
        if name == "smoke":
            p.add_argument("--write", action="store_true")
    a = ap.parse_args()
    return {"calibrate": cmd_calibrate, "gates": cmd_gates, "cell": cmd_cell, "map": cmd_map, "smoke": cmd_smoke, "measure": cmd_measure}[a.command](a)


if __name__ == "__main__":
    sys.exit(main())
