"""The d2q9 lattice Boltzmann library for Python (docs/python.md).

    import d2q9
    sim = d2q9.Simulation("inputs/examples/cavity.toml")
    sim.step(100)
    ux = sim.fields()["ux"]          # numpy array of shape (ny, nx)

A problem is a problem file (.toml, or a coursework .params with
obstacles=) or a dict with a problem file's structure, so that a sweep
builds its problems in code. Errors carry the library's messages:
d2q9.InputError (bad input), d2q9.InstabilityError (the run blew up),
d2q9.DeviceError (no device, a kernel that does not build),
d2q9.OutputError (an output or checkpoint that could not be written).
"""
import math
import operator
import os
import sys
import tempfile
import re

import numpy as np

from ._d2q9 import DeviceError, InputError, InstabilityError, OutputError
from . import _d2q9

__all__ = ["Simulation", "InputError", "InstabilityError", "DeviceError", "OutputError", "problem_text"]

# What errors call a problem given as a dict.
DICT_PROBLEM_NAME = "problem dict"


def _toml_value(value, where):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value, where)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v, where) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(v, where + '.' + str(k))}"
                                for k, v in value.items()) + " }"
    if isinstance(value, np.generic):
        return _toml_value(value.item(), where)
    raise InputError(f"{DICT_PROBLEM_NAME}: {where} is a {type(value).__name__}, which a problem file cannot hold")


def _toml_string(text, where):
    """A TOML basic string holding `text`: ASCII alone, everything else as
    TOML's escapes (\\uXXXX, \\UXXXXXXXX for characters beyond the BMP)."""
    out = ['"']
    for c in text:
        o = ord(c)
        if c in '"\\':
            out.append("\\" + c)
        elif 0xD800 <= o <= 0xDFFF:
            raise InputError(f"{DICT_PROBLEM_NAME}: {where} holds a lone surrogate U+{o:04X}, "
                             "which a problem file cannot hold")
        elif 0x20 <= o < 0x7F:
            out.append(c)
        elif o <= 0xFFFF:
            out.append(f"\\u{o:04X}")
        else:
            out.append(f"\\U{o:08X}")
    out.append('"')
    return "".join(out)


def _toml_key(key):
    key = str(key)
    if key and all(c.isascii() and (c.isalnum() or c in "_-") for c in key):
        return key
    return _toml_string(key, repr(key))


# Keys naming files, as (table, key): a dict's relative paths are made
# absolute (against the current folder), so that its text means the same
# files wherever it is written (a checkpoint's <path>.problem.toml).
_FILE_KEYS = {("obstacle", "mask")}


def _file_value(table, key, value):
    if (table, key) in _FILE_KEYS and isinstance(value, (str, os.PathLike)) and os.fspath(value):
        return os.path.abspath(os.fspath(value))
    return value


def _problem_lines(problem):
    """problem_text's lines, and beside each the dict's key path it came from
    (None for a blank line)."""
    if not isinstance(problem, dict):
        raise InputError(f"{DICT_PROBLEM_NAME}: expected a dict, not a {type(problem).__name__}")
    lines, keys = [], []
    tables = []
    for key, value in problem.items():
        if isinstance(value, dict):
            tables.append((key, value, False))
        elif isinstance(value, (list, tuple)) and value and all(isinstance(v, dict) for v in value):
            tables.append((key, value, True))
        else:
            lines.append(f"{_toml_key(key)} = {_toml_value(value, str(key))}")
            keys.append(str(key))
    for key, value, array in tables:
        for i, table in enumerate(value if array else [value]):
            name = f"{key}[{i}]" if array else str(key)
            lines.append("")
            keys.append(None)
            lines.append(f"[[{_toml_key(key)}]]" if array else f"[{_toml_key(key)}]")
            keys.append(name)
            for k, v in table.items():
                lines.append(f"{_toml_key(k)} = {_toml_value(_file_value(key, k, v), f'{name}.{k}')}")
                keys.append(f"{name}.{k}")
    return lines, keys


def problem_text(problem):
    """The problem file (TOML) that `problem`, a dict with a problem file's
    structure, stands for: its dicts are tables ([grid], [flow], ...), its
    lists of dicts arrays of tables ([[obstacle]]), dicts inside a table
    inline tables. Relative file paths (an obstacle's mask) are made
    absolute against the current folder."""
    return "\n".join(_problem_lines(problem)[0]) + "\n"


def _dict_error(message, keys):
    """A library message citing lines of a dict's text ("problem dict:12: ..."),
    citing instead the dict's keys ("problem dict: flow.viscosity: ...")."""
    def key_of(match):
        line = int(match.group(1))
        key = keys[line - 1] if 1 <= line <= len(keys) else None
        return f"{DICT_PROBLEM_NAME}: {key}:" if key else f"{DICT_PROBLEM_NAME}:"
    return re.sub(re.escape(DICT_PROBLEM_NAME) + r":(\d+):", key_of, message)


def _load(problem, obstacles, backend, precision):
    """(the library's Problem, its file's path or None, its TOML text for a dict or None), checked for
    a Simulation on backend in precision before its mask is built"""
    if isinstance(problem, dict):
        if obstacles is not None:
            raise InputError(f"{DICT_PROBLEM_NAME}: obstacles= goes with a .params file, not a dict")
        lines, keys = _problem_lines(problem)
        text = "\n".join(lines) + "\n"
        try:
            return _d2q9.Problem.parse(text, DICT_PROBLEM_NAME, backend, precision), None, text
        except InputError as e:
            raise InputError(_dict_error(str(e), keys)) from None
    if isinstance(problem, (str, os.PathLike)):
        path = os.path.abspath(os.fspath(problem))
        return (_d2q9.Problem.load(path, os.fspath(obstacles) if obstacles is not None else "", backend, precision),
                path, None)
    raise InputError(f"a problem is a path or a dict, not a {type(problem).__name__}")


def _device_index(device):
    """The native device index: -1 for None (the backend's default)."""
    if device is None:
        return -1
    if isinstance(device, (bool, float)) or not hasattr(type(device), "__index__"):
        raise TypeError(f"device={device!r}: a device is an index (an int) or None, not a {type(device).__name__}")
    index = operator.index(device)
    if index < 0:
        raise InputError(f"device={index}: a device index is 0 or more (None: the backend's default)")
    return index


def _write_own_text(path, text):
    """Writes text to path whole (a temporary beside it, renamed over it),
    unless path holds other text already: that file is not ours to replace."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            if f.read() == text:
                return
        raise InputError(f"{path}: exists and holds other text than this problem; a checkpoint of a dict problem "
                         "keeps its problem there: choose another checkpoint path, or move that file")
    except FileNotFoundError:
        pass
    except (UnicodeDecodeError, IsADirectoryError, PermissionError) as e:
        raise InputError(f"{path}: exists and is not this problem's text ({e.__class__.__name__}); choose another "
                         "checkpoint path, or move that file") from e
    folder = os.path.dirname(path)
    try:
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=os.path.basename(path) + ".tmp.")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError as e:
        raise OutputError(f"{path}: cannot write the problem file ({e.strerror or e})") from e


class Simulation:
    """A problem stepped on a device (or the serial reference).

    problem: a path (.toml; .params with obstacles=) or a dict with the
    problem file's structure. backend: "opencl", "cuda" or "reference".
    device: the backend's device index (None: its default). precision:
    "float", "double", "fp16s" or "fp16c". kernels_dir: where the kernels
    are (None: D2Q9_KERNELS_DIR, else found beside the library).
    Every Simulation of the process on one device shares its context.
    Calls on one Simulation from several threads take turns (docs/python.md);
    it cannot be copied or pickled (checkpoint() and resume() save and load it).
    """

    def __init__(self, problem, backend="opencl", device=None, precision="float", obstacles=None,
                 kernels_dir=None):
        if not isinstance(backend, str) or not isinstance(precision, str):
            raise TypeError("backend and precision are names (str): backend 'opencl', 'cuda' or 'reference'; "
                            "precision 'float', 'double', 'fp16s' or 'fp16c'")
        self._problem, self._path, self._text = _load(problem, obstacles, backend, precision)
        if obstacles is not None:
            self._obstacles = os.path.abspath(os.fspath(obstacles))
        else:
            self._obstacles = None
        self._backend, self._device, self._precision = backend, device, precision
        self._sim = _d2q9.Simulation(self._problem, backend, _device_index(device), precision,
                                     os.fspath(kernels_dir) if kernels_dir is not None else "")

    def __repr__(self):
        problem = repr(self._path) if self._path is not None else DICT_PROBLEM_NAME
        device = "" if self._device is None else f", device={self._device}"
        return (f"<d2q9.Simulation {problem}, backend={self._backend!r}{device}, precision={self._precision!r}, "
                f"steps_done={self.steps_done}/{self.params['steps']}>")

    def _refuse_copy(self, *args):
        raise TypeError("d2q9.Simulation cannot be copied or pickled: it holds device state; "
                        "use checkpoint()/resume()")

    __copy__ = __deepcopy__ = __reduce__ = __reduce_ex__ = __getstate__ = _refuse_copy

    def step(self, n):
        """Advances n steps, n an int (TypeError otherwise; InputError when
        n < 0 or past 2**31-1 steps in all; a Simulation may step past the
        problem's steps). Releases the GIL while the device steps; Ctrl-C
        stops it at a step boundary within a fraction of a second
        (KeyboardInterrupt, steps_done counting the steps made)."""
        self._sim.step(n)

    @property
    def steps_done(self):
        return self._sim.steps_done

    @property
    def params(self):
        """nx, ny, steps (the problem's), density, accel, omega, viscosity, reynolds_dim."""
        return self._sim.params

    def fields(self):
        """density, ux, uy, speed and vorticity now, and with [heat] temperature,
        each a (ny, nx) array (row j is the grid's row j from the bottom, as
        final_state.dat's y)."""
        return self._sim.fields()

    def distributions(self):
        """The distributions now, shape (9, ny, nx): speed k of cell (x, y) at [k, y, x];
        with [heat] (14, ny, nx), the temperature's five after the flow's nine."""
        return self._sim.distributions()

    def wall_heat(self):
        """With [heat]: per wall holding a temperature or a heat flux, a dict of
        heat_in (heat into the fluid per step), faces and nusselt, as the summary's."""
        return self._sim.wall_heat()

    def average_velocities(self):
        """One per step done, as av_vels.dat."""
        return self._sim.average_velocities()

    def forces(self):
        """Per measured body: step, fx, fy (and cd, cl when [forces] gives velocity
        and length) arrays, one entry per step, as forces.csv."""
        bodies, first, series, coefficients = self._sim._force_series()
        per_step = 2 * len(bodies)
        out = {}
        if not bodies:
            return out
        rows = series.reshape(-1, per_step)
        steps = np.arange(first + 1, first + 1 + rows.shape[0])
        for b, name in enumerate(bodies):
            fx, fy = rows[:, 2 * b].copy(), rows[:, 2 * b + 1].copy()
            body = {"step": steps, "fx": fx, "fy": fy}
            if coefficients is not None:
                c = coefficients.reshape(-1, per_step)
                body["cd"], body["cl"] = c[:, 2 * b].copy(), c[:, 2 * b + 1].copy()
            out[name] = body
        return out

    def probes(self):
        """Per probe: step, density, ux, uy (and with [heat] temperature) arrays,
        one entry per sample, as probes.csv, at full double precision (probes.csv
        rounds to 13 digits)."""
        names, steps, series, quantities = self._sim._probe_series()
        out = {}
        if not names:
            return out
        each = len(quantities)
        rows = series.reshape(-1, each * len(names))
        keys = {"rho": "density", "ux": "ux", "uy": "uy", "T": "temperature"}
        for p, name in enumerate(names):
            out[name] = {"step": steps.copy()}
            for q, quantity in enumerate(quantities):
                out[name][keys[quantity]] = rows[:, each * p + q].copy()
        return out

    def nusselt(self):
        """With [heat] nusselt_every: per wall holding a temperature or a heat
        flux, step and nusselt arrays, one entry per sample, as nusselt.csv (at
        full double precision)."""
        walls, steps, series = self._sim._nusselt_series()
        if not walls:
            return {}
        rows = series.reshape(-1, len(walls))
        return {name: {"step": steps.copy(), "nusselt": rows[:, w].copy()} for w, name in enumerate(walls)}

    def write_outputs(self, dir, final_state=None):
        """av_vels.dat, the final state (forces.csv, probes.csv, nusselt.csv where measured)
        into dir, made if missing: the bytes d2q9-bgk writes. final_state: "text"
        (final_state.dat), "vti" (final_state.vti, VTK XML image data) or "both";
        None as d2q9-bgk chooses: text for a .params problem, vti for a problem
        file or dict unless its [output] final_state says otherwise."""
        if final_state is not None and not isinstance(final_state, str):
            raise InputError(f"write_outputs: final_state must be \"text\", \"vti\" or \"both\", "
                             f"got a {type(final_state).__name__}")
        self._sim.write_outputs(os.fspath(dir), final_state)

    def checkpoint(self, path, overwrite=False):
        """Saves the run to path. It names its problem's file, which resume()
        reads again; a dict-built problem is written beside it as
        <path>.problem.toml. Refused (InputError), with nothing written, where
        path is one of the problem's input files, a folder or other non-file,
        a file that is not a checkpoint, or another problem's checkpoint
        (unless overwrite=True); a checkpoint of this problem it replaces. A
        <path>.problem.toml that holds other text is never replaced."""
        path = os.path.abspath(os.fspath(path))
        if self._obstacles is not None:
            raise InputError(f"{path}: checkpoints of .params problems are made by d2q9-bgk (--checkpoint-every)")
        if not isinstance(overwrite, bool):
            raise TypeError(f"overwrite is True or False, not a {type(overwrite).__name__}")
        self._sim._check_checkpoint_target(path, overwrite)
        problem_file = self._path
        if problem_file is None:
            problem_file = path + ".problem.toml"
            _write_own_text(problem_file, self._text)
        self._sim._checkpoint(path, problem_file, overwrite)

    def serve(self, port=0, host="127.0.0.1", checkpoint=None):
        """Serves a live view of this simulation (docs/live-view.md): a page
        at the returned URL (http://HOST:PORT/?token=..., also printed to
        stderr) showing its flow, speed, forces and probes, and JSON
        endpoints with the same numbers. It updates while step() runs and
        answers between step() calls too. Its Pause holds step() until
        Resume; its Stop ends the step() call running (stop_requested is then
        True); its Checkpoint calls checkpoint(checkpoint) where a path is
        given. port 0 picks a free port; host 127.0.0.1 unless given; every
        request needs the URL's token. InputError where it cannot listen."""
        if checkpoint is not None:
            path = os.fspath(checkpoint)

            def on_checkpoint():
                self.checkpoint(path, overwrite=False)
                return f"checkpoint of step {self.steps_done} written to {os.path.abspath(path)}"
        else:
            on_checkpoint = None
        url = self._sim._serve(str(host), int(port), on_checkpoint)
        print("serving " + url, file=sys.stderr, flush=True)
        return url

    def stop_serving(self):
        """Stops serving the live view (the port is free again)."""
        self._sim._stop_serving()

    @property
    def serving_url(self):
        """The live view's URL while serve() serves it, else None."""
        return self._sim._serving_url or None

    @property
    def stop_requested(self):
        """True once the live view's Stop ended a step() call."""
        return self._sim._stop_requested

    @classmethod
    def resume(cls, path, backend="opencl", device=None, kernels_dir=None):
        """The run a checkpoint() saved, continued: its problem file read again
        (InputError if it changed since), its precision, state, average
        velocities and measurements."""
        path = os.path.abspath(os.fspath(path))
        problem_file, problem_hash, precision = _d2q9._checkpoint_record(path)
        if not problem_file:
            raise InputError(f"{path}: the checkpoint names no problem file (resume it with d2q9-bgk --restart)")
        if _d2q9._file_hash(problem_file) != problem_hash:
            raise InputError(f"{path}: its problem file {problem_file} has changed since the checkpoint")
        sim = cls(problem_file, backend=backend, device=device, precision=precision, kernels_dir=kernels_dir)
        _d2q9._check_checkpoint_matches(path, sim._problem, problem_file, precision)
        sim._sim._resume(path)
        return sim
