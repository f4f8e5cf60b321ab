"""Shared helpers for the validation cases (validation/*.py).

One place for each of: the command line every case takes, running d2q9-bgk
on a TOML problem file written into the output directory, reading
final_state.dat and av_vels.dat, linear interpolation, error norms, the
observed order of convergence, and writing the CSV, summary.json and gnuplot
files. Python 3 standard library only (the CI machine has neither numpy nor
matplotlib).

Conventions shared by the cases (see validation/README.md):
  * Cell (i, j) of final_state.dat is column i, row j, its centre at (i, j)
    in lattice units. A wall row or column (bounce-back, half-way) puts the
    wall's surface half a cell inside it, on the face it shares with the
    first fluid cell: walls in rows 0 and ny-1 bound a channel of width
    h = ny - 2 between y = 0.5 and y = ny - 1.5.
  * A failed check ends the script with exit status 1 and one "FAIL: ..."
    line; a run that could not be made (no binary, solver error, unstable
    flow) with exit status 2 and one "error: ..." line.
"""

import argparse
import json
import math
import os
import shlex
import shutil
import subprocess
import sys
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class RunError(Exception):
    """The solver could not be run or stopped with an error."""


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

def make_parser(case, description, precision="float"):
    """The options every case takes; a case adds its own before parse_args."""
    parser = argparse.ArgumentParser(
        prog="validation/%s.py" % case,
        description=description,
        usage="%(prog)s [options] [-- extra d2q9-bgk options]",
        epilog="Options after '--' are passed to every d2q9-bgk run, e.g. "
               "'-- --precision double' or '-- --device 1'.")
    parser.add_argument("--exe", help="the d2q9-bgk binary (default: $D2Q9_BGK, else build/d2q9-bgk "
                        "in the source tree, else d2q9-bgk on PATH)")
    parser.add_argument("--quick", action="store_true", help="the short CI version of the check")
    parser.add_argument("--out", help="output directory (default: results/validation/%s in the source tree)" % case)
    parser.add_argument("--backend", choices=["opencl", "cuda", "reference"], default="opencl",
                        help="d2q9-bgk --backend (default: opencl)")
    parser.add_argument("--precision", choices=["float", "double", "fp16s", "fp16c"], default=precision,
                        help="d2q9-bgk --precision (default: %s)" % precision)
    parser.add_argument("--reuse", action="store_true",
                        help="analyse the finished runs already in --out (same problem file) instead of running "
                             "them again: to redo the checks and plots, or to read runs copied from another machine")
    parser.set_defaults(case=case)
    return parser


def parse_args(parser, argv=None):
    """Parses argv (default sys.argv[1:]); what follows '--' goes to d2q9-bgk as args.extra."""
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1:]
    args = parser.parse_args(argv)
    # d2q9-bgk takes --precision once: one given after '--' replaces the script's.
    for k, a in enumerate(extra):
        if a in ("-p", "--precision") and k + 1 < len(extra):
            args.precision = extra[k + 1]
            del extra[k:k + 2]
            break
        if a.startswith("--precision="):
            args.precision = a.split("=", 1)[1]
            del extra[k]
            break
    args.extra = extra
    if args.out is None:
        args.out = os.path.join(REPO_ROOT, "results", "validation", args.case)
    args.out = os.path.abspath(args.out)
    return args


def find_exe(given):
    """The d2q9-bgk binary to run, as an absolute path."""
    candidates = []
    if given:
        candidates = [given]
    elif os.environ.get("D2Q9_BGK"):
        candidates = [os.environ["D2Q9_BGK"]]
    else:
        candidates = [os.path.join(REPO_ROOT, "build", "d2q9-bgk"), "d2q9-bgk"]
    for c in candidates:
        path = c if os.sep in c else shutil.which(c)
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
    raise RunError("no d2q9-bgk binary at %s; build it or pass --exe PATH" % " or ".join(candidates))


# ---------------------------------------------------------------------------
# Problem files and runs
# ---------------------------------------------------------------------------

def _toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError("TOML value must be finite: %r" % v)
        return repr(v)  # shortest round-trip form; always has '.' or 'e'
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string for what we write
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join("%s = %s" % (k, _toml_value(x)) for k, x in v.items()) + " }"
    raise TypeError("no TOML form for %r" % (v,))


def write_problem(path, tables, comment=""):
    """Writes a problem file: tables is {"grid": {...}, "flow": {...}, "edges": {...}}; a list of
    tables (e.g. "obstacle": [{...}, {...}]) is an array of tables, [[obstacle]] each."""
    lines = ["# " + line for line in comment.splitlines()] if comment else []
    for name, keys in tables.items():
        for one in keys if isinstance(keys, list) else [keys]:
            if lines:
                lines.append("")
            lines.append(("[[%s]]" if isinstance(keys, list) else "[%s]") % name)
            for k, v in one.items():
                lines.append("%s = %s" % (k, _toml_value(v)))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def run_solver(args, run_dir, tables, comment="", options=None):
    """Writes run_dir/problem.toml and runs d2q9-bgk on it, its outputs into run_dir.

    options: more d2q9-bgk options for this run only (e.g. ["--summary-json",
    "summary.json"]), placed before the script's '--' extras.

    Returns {"command": str, "seconds": float} (also kept in run_dir/run.json).
    With --reuse, a finished run in run_dir of the same problem file is
    analysed again instead (its recorded command and time are returned).
    Raises RunError with the solver's own one-line message when it fails (an
    unstable flow included).
    """
    os.makedirs(run_dir, exist_ok=True)
    problem = os.path.join(run_dir, "problem.toml")
    record = os.path.join(run_dir, "run.json")
    if getattr(args, "reuse", False):
        new_text = os.path.join(run_dir, "problem.toml.new")
        write_problem(new_text, tables, comment)
        try:
            with open(new_text) as a, open(problem) as b, open(record) as r:
                same, done = a.read() == b.read(), json.load(r)
            if same and all(os.path.exists(os.path.join(run_dir, f)) for f in ("final_state.dat", "av_vels.dat")):
                print("reuse: %s (%s)" % (run_dir, done["command"]), flush=True)
                return dict(done, reused=True)
        except (OSError, ValueError, KeyError):
            pass
        finally:
            os.remove(new_text)
    for stale in ("final_state.dat", "av_vels.dat", "run.json"):
        if os.path.exists(os.path.join(run_dir, stale)):
            os.remove(os.path.join(run_dir, stale))
    write_problem(problem, tables, comment)
    exe = find_exe(args.exe)
    # The text final state (final_state.dat), which read_final_state reads at its 13 digits: a
    # problem file's run writes final_state.vti instead unless asked.
    cmd = [exe, problem, "-o", run_dir, "--no-png", "-q", "--final-state", "text", "--backend", args.backend,
           "--precision", args.precision]
    cmd += list(options or []) + list(args.extra)
    shown = " ".join(shlex.quote(c) for c in cmd)
    print("run: " + shown, flush=True)
    start = time.time()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    seconds = time.time() - start
    if proc.returncode != 0:
        text = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
        last = text[-1] if text else "(no message)"
        if last.startswith("error: "):
            last = last[len("error: "):]
        raise RunError("d2q9-bgk exited with status %d (%s): %s" % (proc.returncode, os.path.basename(run_dir), last))
    print("  done in %.1f s" % seconds, flush=True)
    done = {"command": shown, "seconds": round(seconds, 2)}
    write_json(record, done)
    return done


# ---------------------------------------------------------------------------
# Outputs of a run
# ---------------------------------------------------------------------------

class Field:
    """final_state.dat as arrays indexed [j][i] (row j, column i); temperature only with [heat]."""

    def __init__(self, nx, ny, heat=False):
        self.nx, self.ny = nx, ny
        self.ux = [[0.0] * nx for _ in range(ny)]
        self.uy = [[0.0] * nx for _ in range(ny)]
        self.obstacle = [[0] * nx for _ in range(ny)]
        self.temperature = [[float("nan")] * nx for _ in range(ny)] if heat else None


def read_final_state(run_dir, nx, ny, heat=False):
    """Reads run_dir/final_state.dat ("ii jj ux uy |u| pressure obstacle" per cell, and with heat=True an
    eighth column, the temperature: nan on walls without one, and a non-finite value in a fluid cell is an error)."""
    path = os.path.join(run_dir, "final_state.dat")
    field = Field(nx, ny, heat)
    columns = 8 if heat else 7
    seen = 0
    with open(path) as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            if len(parts) != columns:
                raise RunError("%s:%d: expected %d columns, found %d" % (path, n, columns, len(parts)))
            i, j = int(parts[0]), int(parts[1])
            if not (0 <= i < nx and 0 <= j < ny):
                raise RunError("%s:%d: cell (%d, %d) outside the %dx%d grid" % (path, n, i, j, nx, ny))
            ux, uy = float(parts[2]), float(parts[3])
            if not (math.isfinite(ux) and math.isfinite(uy)):
                raise RunError("%s:%d: non-finite velocity at cell (%d, %d)" % (path, n, i, j))
            field.ux[j][i], field.uy[j][i], field.obstacle[j][i] = ux, uy, int(parts[6])
            if heat:
                t = float(parts[7])
                if field.obstacle[j][i] == 0 and not math.isfinite(t):
                    raise RunError("%s:%d: non-finite temperature at fluid cell (%d, %d)" % (path, n, i, j))
                field.temperature[j][i] = t
            seen += 1
    if seen != nx * ny:
        raise RunError("%s: %d cells, expected %d" % (path, seen, nx * ny))
    return field


def read_av_vels(run_dir):
    """The mean |u| per step from run_dir/av_vels.dat ("step:\tvalue")."""
    values = []
    with open(os.path.join(run_dir, "av_vels.dat")) as f:
        for line in f:
            if ":" in line:
                values.append(float(line.split(":", 1)[1]))
    return values


def steady_drift(av_vels, fraction=0.1):
    """How far from steady the run ended: |1 - <|u|>(end - fraction*steps) / <|u|>(end)|.

    The solver runs a fixed number of steps; this is the relative change of
    the mean speed over the run's last `fraction` of steps (0 when steady).
    """
    if len(av_vels) < 2 or av_vels[-1] == 0.0:
        return float("nan")
    back = max(1, int(len(av_vels) * fraction))
    earlier = av_vels[max(0, len(av_vels) - 1 - back)]
    return abs(1.0 - earlier / av_vels[-1])


def row_average(field, comp, j, i0=0, i1=None):
    """Mean of ux ('x') or uy ('y') over columns [i0, i1) of row j."""
    data = field.ux if comp == "x" else field.uy
    row = data[j][i0:field.nx if i1 is None else i1]
    return sum(row) / len(row)


# ---------------------------------------------------------------------------
# Numerics
# ---------------------------------------------------------------------------

def channel_profile(args, run_dir, tables, comment, exact):
    """Runs a channel (walls in rows 0 and ny-1, periodic in x) and returns
    (run, rows, u, exact u, steady drift): the column-averaged x velocity of
    every fluid row j and exact(j) beside it."""
    nx, ny = tables["grid"]["nx"], tables["grid"]["ny"]
    run = run_solver(args, run_dir, tables, comment)
    field = read_final_state(run_dir, nx, ny)
    drift = steady_drift(read_av_vels(run_dir))
    rows = [float(j) for j in range(1, ny - 1)]
    ours = [row_average(field, "x", j) for j in range(1, ny - 1)]
    return run, field, rows, ours, [exact(j) for j in range(1, ny - 1)], drift


def interp_linear(xs, ys, x):
    """Linear interpolation of the points (xs, ys) (xs strictly increasing) at x; no extrapolation."""
    if not xs[0] <= x <= xs[-1]:
        raise ValueError("%.6g outside [%.6g, %.6g]" % (x, xs[0], xs[-1]))
    lo, hi = 0, len(xs) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if xs[mid] <= x:
            lo = mid
        else:
            hi = mid
    if xs[hi] == xs[lo]:
        return ys[lo]
    t = (x - xs[lo]) / (xs[hi] - xs[lo])
    return ys[lo] + t * (ys[hi] - ys[lo])


def rel_l2(values, reference):
    """sqrt(sum (v - r)^2 / sum r^2)."""
    num = sum((v - r) ** 2 for v, r in zip(values, reference))
    den = sum(r * r for r in reference)
    return math.sqrt(num / den)


def max_abs_diff(values, reference):
    return max(abs(v - r) for v, r in zip(values, reference))


def observed_order(hs, errors):
    """Order of convergence: minus the least-squares slope of log(error) against log(1/h), i.e. error ~ h^-order."""
    xs = [math.log(h) for h in hs]
    ys = [math.log(e) for e in errors]
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    return -sxy / sxx


def parabolic_vertex(fm, f0, fp):
    """Offset in (-0.5, 0.5) of the extremum of the parabola through (-1, fm), (0, f0), (1, fp), and its value."""
    den = fm - 2.0 * f0 + fp
    if den == 0.0:
        return 0.0, f0
    off = 0.5 * (fm - fp) / den
    off = max(-0.5, min(0.5, off))
    return off, f0 - 0.25 * (fm - fp) * off


# ---------------------------------------------------------------------------
# Files written into --out
# ---------------------------------------------------------------------------

def write_csv(path, header, rows):
    """A CSV with a '#'-free header line (gnuplot skips it with 'skip 1' / columnheaders)."""
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for row in rows:
            f.write(",".join(_csv_cell(x) for x in row) + "\n")


def _csv_cell(x):
    if isinstance(x, float):
        return "%.10g" % x
    return str(x)


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=False)
        f.write("\n")


GNUPLOT_TERMINAL = """\
# Draw with: gnuplot {gp}   (writes {png})
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {{
  set terminal pngcairo noenhanced size {width},{height} font ",10"
}} else {{
  set terminal png noenhanced size {width},{height}
}}
set output "{png}"
set datafile separator ","
set key autotitle columnheader
set grid
"""


def write_gnuplot(out_dir, case, body, width=800, height=600):
    """Writes out_dir/<case>.gp: the terminal/output preamble (PNG <case>.png) then body.

    The script reads its CSV files by name relative to out_dir, where it is run.
    Returns the script's path.
    """
    gp = case + ".gp"
    png = case + ".png"
    path = os.path.join(out_dir, gp)
    with open(path, "w") as f:
        f.write(GNUPLOT_TERMINAL.format(gp=gp, png=png, width=width, height=height))
        f.write(body.rstrip("\n") + "\n")
    return path


def run_gnuplot(gp_path):
    """Runs gnuplot on gp_path in its folder when gnuplot is installed; says so in one line either way."""
    gnuplot = shutil.which("gnuplot")
    folder, name = os.path.split(gp_path)
    if not gnuplot:
        print("plot: gnuplot not installed; %s not drawn (run 'gnuplot %s' in %s)" % (name, name, folder))
        return False
    proc = subprocess.run([gnuplot, name], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    if proc.returncode != 0:
        msg = proc.stderr.strip().splitlines()
        print("plot: gnuplot failed on %s: %s" % (name, msg[-1] if msg else "status %d" % proc.returncode))
        return False
    print("plot: %s" % os.path.join(folder, os.path.splitext(name)[0] + ".png"))
    return True


# ---------------------------------------------------------------------------
# Checks and the end of a script
# ---------------------------------------------------------------------------

def check(checks, name, value, limit, kind="max"):
    """Records a check: value <= limit (kind "max") or value >= limit (kind "min"). NaN fails."""
    ok = (value <= limit) if kind == "max" else (value >= limit)
    ok = bool(ok) and math.isfinite(value)
    checks.append({"name": name, "value": value, "limit": limit, "kind": kind, "pass": ok})
    return ok


def finish(args, summary, checks):
    """Writes summary.json, prints the whole summary and the checks, and exits (1 on a failed check)."""
    summary["checks"] = checks
    summary["pass"] = all(c["pass"] for c in checks)
    write_json(os.path.join(args.out, "summary.json"), summary)
    print("summary (%s):" % os.path.join(args.out, "summary.json"))
    print(json.dumps(summary, indent=2))
    for c in checks:
        print("check: %-48s %-12.6g %s %-10.6g %s" % (c["name"], c["value"], "<=" if c["kind"] == "max" else ">=",
                                                     c["limit"], "ok" if c["pass"] else "FAILED"))
    failed = [c for c in checks if not c["pass"]]
    sys.stdout.flush()
    if failed:
        print("FAIL: %s: %s" % (args.case, "; ".join(
            "%s = %.4g (limit %s %.4g)" % (c["name"], c["value"], "<=" if c["kind"] == "max" else ">=", c["limit"])
            for c in failed)), file=sys.stderr)
        sys.exit(1)
    print("PASS: %s" % args.case)
    sys.exit(0)


def main(body):
    """Runs body(); turns RunError (and a missing output file) into one 'error:' line and status 2."""
    try:
        body()
    except RunError as e:
        sys.stdout.flush()
        print("error: %s" % e, file=sys.stderr)
        sys.exit(2)
    except (OSError, ValueError) as e:
        sys.stdout.flush()
        print("error: %s" % e, file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)


def base_summary(args, exe_path, extra=None):
    s = {
        "case": args.case,
        "quick": bool(args.quick),
        "backend": args.backend,
        "precision": args.precision,
        "exe": exe_path,
        "extra_options": list(args.extra),
        "script_command": " ".join(shlex.quote(a) for a in [sys.executable, sys.argv[0]] + sys.argv[1:]),
    }
    if extra:
        s.update(extra)
    return s
