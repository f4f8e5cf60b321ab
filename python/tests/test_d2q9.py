"""The Python module against d2q9-bgk, on the default OpenCL device (PoCL in CI).

Run by CTest (ctest -L python), which sets PYTHONPATH to the build's python/
folder, D2Q9_BGK to the d2q9-bgk it built and D2Q9_SOURCE_DIR.
"""
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import d2q9

SOURCE = os.environ["D2Q9_SOURCE_DIR"]
BGK = os.environ["D2Q9_BGK"]
CYLINDER = os.path.join(SOURCE, "tests/problems/cylinder_library.toml")
# What a problem file's run writes (its final state as final_state.vti).
OUTPUTS = ["av_vels.dat", "final_state.vti", "forces.csv", "probes.csv"]
# The lattice's speeds e_k (host/problem/lattice.hpp, kEx and kEy).
EX = [0, 1, 0, -1, 0, 1, -1, -1, 1]
EY = [0, 0, 1, 0, -1, 1, 1, -1, -1]

# tests/problems/cylinder_library.toml as a dict.
CYLINDER_DICT = {
    "grid": {"nx": 80, "ny": 30},
    "flow": {"steps": 300, "viscosity": 0.005, "collision": "trt", "inlet_ramp": 100},
    "edges": {
        "left": {"inlet_velocity": {"parabolic": 0.08}},
        "right": {"outlet_density": 1.0},
        "bottom": "wall",
        "top": "wall",
    },
    "obstacle": [{"name": "cylinder", "boundary": "interpolated",
                  "circle": {"center": [15.3, 14.7], "radius": 3.1}}],
    "forces": {"velocity": 0.053, "length": 6.2},
    "probes": {"every": 10, "wake": [25, 16]},
}


def run_bgk(*args):
    return subprocess.run([BGK, "--no-png", "-q", *args], capture_output=True, text=True)


@pytest.fixture(scope="module")
def cli_outputs(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli")
    r = run_bgk("-o", str(out), "--final-state", "both", CYLINDER)
    assert r.returncode == 0, r.stderr
    return out


def read(path):
    with open(path, "rb") as f:
        return f.read()


def test_write_outputs_are_d2q9_bgk_bytes(cli_outputs, tmp_path):
    sim = d2q9.Simulation(CYLINDER)
    for piece in (7, 93, 200):  # pieces off the probes' steps
        sim.step(piece)
    assert sim.steps_done == 300
    sim.write_outputs(tmp_path / "py")
    assert sorted(os.listdir(tmp_path / "py")) == [".d2q9-outputs.json"] + OUTPUTS
    for name in OUTPUTS:
        mine = read(tmp_path / "py" / name)
        assert mine, name
        assert mine == read(cli_outputs / name), name
    # The text asked for: final_state.dat, and the .vti the call before wrote is gone (its manifest).
    sim.write_outputs(tmp_path / "py", final_state="text")
    assert "final_state.vti" not in os.listdir(tmp_path / "py")
    assert read(tmp_path / "py" / "final_state.dat") == read(cli_outputs / "final_state.dat")
    sim.write_outputs(tmp_path / "both", final_state="both")
    for name in ("final_state.dat", "final_state.vti"):
        assert read(tmp_path / "both" / name) == read(cli_outputs / name), name


def test_write_outputs_final_state_follows_the_problem_and_refuses_other_values(tmp_path):
    params = tmp_path / "in.params"
    params.write_text("12\n10\n4\n10\n0.1\n0.02\n1.7\n")
    obstacles = tmp_path / "obs.dat"
    obstacles.write_text("0 0 1\n5 5 1\n")
    coursework = d2q9.Simulation(str(params), obstacles=str(obstacles), backend="reference")
    coursework.step(4)
    coursework.write_outputs(tmp_path / "coursework")
    assert sorted(os.listdir(tmp_path / "coursework")) == [".d2q9-outputs.json", "av_vels.dat", "final_state.dat"]
    chosen = d2q9.Simulation(dict(CAVITY_DICT, output={"final_state": "text"}), backend="reference")
    chosen.step(2)
    chosen.write_outputs(tmp_path / "chosen")
    assert sorted(os.listdir(tmp_path / "chosen")) == [".d2q9-outputs.json", "av_vels.dat", "final_state.dat"]
    for bad, message in (("dat", "got 'dat'"), ("", "got ''"), (3, "got a int")):
        with pytest.raises(d2q9.InputError, match=message):
            chosen.write_outputs(tmp_path / "bad", final_state=bad)
    assert not os.path.exists(tmp_path / "bad")


def test_fields_are_final_state_columns(cli_outputs):
    sim = d2q9.Simulation(CYLINDER)
    sim.step(300)
    fields = sim.fields()
    p = sim.params
    assert (p["nx"], p["ny"], p["steps"]) == (80, 30, 300)
    for name in ("density", "ux", "uy", "speed", "vorticity"):
        assert fields[name].shape == (30, 80), name
    # final_state.dat: x y ux uy speed pressure obstacle, %.12E; pressure = density / 3.
    table = np.loadtxt(cli_outputs / "final_state.dat")
    x, y = table[:, 0].astype(int), table[:, 1].astype(int)
    for column, name, scale in ((2, "ux", 1.0), (3, "uy", 1.0), (4, "speed", 1.0), (5, "density", 1.0 / 3.0)):
        printed = table[:, column]
        ours = fields[name][y, x] * scale
        np.testing.assert_allclose(ours, printed, rtol=1e-11, atol=1e-300, err_msg=name)
    # The wake downstream of the cylinder flows on down the channel.
    assert 0.0 < fields["ux"][16, 25] < 0.12


def test_average_velocities_forces_and_probes_match_the_files(cli_outputs):
    sim = d2q9.Simulation(CYLINDER)
    sim.step(300)
    av = np.array([float(line.split()[1]) for line in read(cli_outputs / "av_vels.dat").decode().splitlines()])
    np.testing.assert_allclose(sim.average_velocities(), av, rtol=1e-11)
    forces = sim.forces()
    assert list(forces) == ["cylinder"]
    table = np.loadtxt(cli_outputs / "forces.csv", delimiter=",", skiprows=1)
    body = forces["cylinder"]
    np.testing.assert_array_equal(body["step"], table[:, 0])
    for c, key in enumerate(("fx", "fy", "cd", "cl"), start=1):
        np.testing.assert_allclose(body[key], table[:, c], rtol=1e-11, err_msg=key)
    assert body["cd"][-1] > 0  # drag pushes the cylinder downstream
    probes = sim.probes()
    assert list(probes) == ["wake"]
    wake = probes["wake"]
    header, *lines = read(cli_outputs / "probes.csv").decode().splitlines()
    assert header == "step,wake_rho,wake_ux,wake_uy"
    printed = [line.split(",") for line in lines]
    np.testing.assert_array_equal(wake["step"], [int(row[0]) for row in printed])
    np.testing.assert_array_equal(wake["step"], np.arange(10, 301, 10))
    for c, key in enumerate(("density", "ux", "uy"), start=1):
        # Each value printed as probes.csv prints it (%.12E) is its text there.
        assert [f"{v:.12E}" for v in wake[key]] == [row[c] for row in printed], key
    # And they are the run's doubles, not that text read back: the last sample
    # (step 300) is the moments of the probe cell's distributions now, summed
    # as the library sums them (fluid_cell_state; its e_k of 0 and +-1 make a
    # fused multiply-add round alike), equal to the last bit.
    f = [float(v) for v in sim.distributions()[:, 16, 25]]
    rho = mx = my = 0.0
    for k in range(9):
        rho += f[k]
        mx += EX[k] * f[k]
        my += EY[k] * f[k]
    assert wake["density"][-1] == 3.0 * (rho / 3.0)
    assert wake["ux"][-1] == mx / rho
    assert wake["uy"][-1] == my / rho
    assert float(printed[-1][2]) != mx / rho  # the text alone would not pass


def test_a_dict_problem_is_its_toml_twin():
    from_file = d2q9.Simulation(CYLINDER)
    from_dict = d2q9.Simulation(CYLINDER_DICT)
    assert from_dict.params == from_file.params
    from_file.step(120)
    from_dict.step(120)
    np.testing.assert_array_equal(from_dict.distributions(), from_file.distributions())
    np.testing.assert_array_equal(from_dict.average_velocities(), from_file.average_velocities())
    # A setting changed in the dict changes the run.
    other = dict(CYLINDER_DICT, flow=dict(CYLINDER_DICT["flow"], viscosity=0.01))
    changed = d2q9.Simulation(other)
    changed.step(120)
    assert not np.array_equal(changed.distributions(), from_file.distributions())


def test_distributions_are_nine_planes_summing_to_the_density():
    sim = d2q9.Simulation(CYLINDER)
    sim.step(50)
    f = sim.distributions()
    assert f.shape == (9, 30, 80)
    fields = sim.fields()
    fluid = fields["ux"] != 0  # obstacle cells hold zero velocity
    np.testing.assert_allclose(f.sum(axis=0)[fluid], fields["density"][fluid], rtol=1e-12)


def bgk_error(*args):
    r = run_bgk(*args)
    assert r.returncode != 0
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith("error: "), r.stderr
    return line[len("error: "):]


def test_input_errors_carry_d2q9_bgk_messages(tmp_path):
    missing = str(tmp_path / "missing.toml")
    with pytest.raises(d2q9.InputError) as e:
        d2q9.Simulation(missing)
    assert str(e.value) == bgk_error("-o", str(tmp_path / "o1"), missing)
    bad = tmp_path / "bad.toml"
    bad.write_text("[grid]\nnx = 80\nny = -3\n")
    with pytest.raises(d2q9.InputError) as e:
        d2q9.Simulation(str(bad))
    assert str(e.value) == bgk_error("-o", str(tmp_path / "o2"), str(bad))
    # A dict's errors name it.
    with pytest.raises(d2q9.InputError) as e:
        d2q9.Simulation(dict(CYLINDER_DICT, grid={"nx": 80, "ny": -3}))
    assert str(e.value).startswith(d2q9.DICT_PROBLEM_NAME + ":")
    sim = d2q9.Simulation(CYLINDER)
    with pytest.raises(d2q9.InputError, match=r"^step\(-5\): the number of steps is negative$"):
        sim.step(-5)
    with pytest.raises(d2q9.InputError, match="backend \"vulkan\""):
        d2q9.Simulation(CYLINDER, backend="vulkan")
    assert issubclass(d2q9.InputError, ValueError)


def test_a_run_that_blows_up_raises_instability_error(tmp_path):
    # inputs/examples/cylinder.toml with BGK: it blows up at the outlet by step 462.
    problem = os.path.join(SOURCE, "inputs/examples/cylinder.toml")
    text = open(problem).read().replace('collision = "trt"', 'collision = "bgk"')
    assert 'collision = "bgk"' in text
    bgk_problem = tmp_path / "cylinder_bgk.toml"
    bgk_problem.write_text(text.replace("steps = 40000", "steps = 1000"))
    sim = d2q9.Simulation(str(bgk_problem))
    with pytest.raises(d2q9.InstabilityError) as e:
        sim.step(1000)
    assert "average velocity" in str(e.value) or "density" in str(e.value)
    assert sim.steps_done < 1000


def test_checkpoint_and_resume_continue_the_run(tmp_path):
    sim = d2q9.Simulation(CYLINDER_DICT)
    sim.step(100)
    sim.checkpoint(tmp_path / "run.ckpt")
    sim.step(150)
    resumed = d2q9.Simulation.resume(tmp_path / "run.ckpt")
    assert resumed.steps_done == 100
    resumed.step(150)
    np.testing.assert_array_equal(resumed.distributions(), sim.distributions())
    np.testing.assert_array_equal(resumed.average_velocities(), sim.average_velocities())
    np.testing.assert_array_equal(resumed.forces()["cylinder"]["fx"], sim.forces()["cylinder"]["fx"])


def test_checkpoint_and_resume_carry_the_temperature(tmp_path):
    cavity = {
        "grid": {"nx": 20, "ny": 20},
        "flow": {"steps": 400, "viscosity": 0.05},
        "edges": {"left": {"temperature": 0.5}, "right": {"temperature": -0.5}, "bottom": "wall", "top": "wall"},
        "heat": {"prandtl": 0.71, "rayleigh": 1e4, "length": 18, "temperature_difference": 1.0},
    }
    sim = d2q9.Simulation(cavity)
    sim.step(170)
    sim.checkpoint(tmp_path / "heat.ckpt")
    sim.step(230)
    resumed = d2q9.Simulation.resume(tmp_path / "heat.ckpt")
    assert resumed.steps_done == 170
    resumed.step(230)
    np.testing.assert_array_equal(resumed.fields()["temperature"], sim.fields()["temperature"])
    np.testing.assert_array_equal(resumed.average_velocities(), sim.average_velocities())
    resumed.write_outputs(tmp_path / "resumed", final_state="both")
    sim.write_outputs(tmp_path / "whole", final_state="both")
    for name in ("av_vels.dat", "final_state.dat", "final_state.vti"):
        assert read(tmp_path / "resumed" / name) == read(tmp_path / "whole" / name)


def test_heat_reads_as_the_files_do(tmp_path):
    cavity = {
        "grid": {"nx": 20, "ny": 20},
        "flow": {"steps": 300, "viscosity": 0.05},
        "edges": {"left": {"temperature": 0.5}, "right": {"temperature": -0.5}, "bottom": "wall", "top": "wall"},
        "heat": {"prandtl": 0.71, "rayleigh": 1e4, "length": 18, "temperature_difference": 1.0,
                 "nusselt_every": 150},
        "probes": {"every": 100, "mid": [10, 10]},
    }
    sim = d2q9.Simulation(cavity)
    sim.step(300)
    f = sim.distributions()
    assert f.shape == (14, 20, 20)
    temperature = sim.fields()["temperature"]
    np.testing.assert_allclose(temperature[5, 1:-1], f[9:, 5, 1:-1].sum(axis=0), rtol=0, atol=1e-15)
    assert temperature[5, 0] == 0.5 and np.isnan(temperature[0, 5])  # held walls their own, adiabatic ones none
    mid = sim.probes()["mid"]
    assert list(mid["step"]) == [100, 200, 300]
    assert mid["temperature"][-1] == temperature[10, 10]
    walls = sim.wall_heat()
    assert sorted(walls) == ["left", "right"]
    assert walls["left"]["faces"] == 18 and walls["left"]["nusselt"] > 1.0
    assert abs(walls["left"]["heat_in"] + walls["right"]["heat_in"]) < 0.05 * walls["left"]["heat_in"]
    nusselt = sim.nusselt()
    assert list(nusselt["left"]["step"]) == [150, 300]
    assert nusselt["left"]["nusselt"][-1] == walls["left"]["nusselt"]
    sim.write_outputs(tmp_path / "out")
    assert read(tmp_path / "out" / "nusselt.csv").splitlines()[0] == b"step,left_Nu,right_Nu"
    header = read(tmp_path / "out" / "probes.csv").splitlines()[0]
    assert header == b"step,mid_rho,mid_ux,mid_uy,mid_T"


def test_stepping_releases_the_gil():
    sim = d2q9.Simulation(os.path.join(SOURCE, "inputs/examples/cavity.toml"))
    sim.step(1)
    ticks = 0
    done = threading.Event()

    def step():
        sim.step(600)
        done.set()

    t = threading.Thread(target=step)
    t.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    t.join()
    # Held, the GIL would have kept this thread from ticking until the steps were done.
    assert ticks > 5
    assert sim.steps_done == 601


def test_the_issue_one_liner():
    s = d2q9.Simulation(os.path.join(SOURCE, "inputs/examples/cavity.toml"))
    s.step(100)
    assert s.fields()["ux"].shape == (128, 128)


# Issue 56: the module as safe to use as Python users expect.

CAVITY_SMALL = {
    "grid": {"nx": 48, "ny": 40},
    "flow": {"steps": 1000, "viscosity": 0.05},
    "edges": {"left": "wall", "right": "wall", "bottom": "wall", "top": {"wall_velocity": [0.05, 0.0]}},
}


@pytest.mark.parametrize("backend", ["reference", "opencl"])
def test_one_simulation_from_several_threads_takes_turns(backend):
    # Unserialised, this crashed the interpreter (double free, segfault) or
    # lost steps. Two steppers and two readers, many rounds each.
    sim = d2q9.Simulation(CAVITY_SMALL, backend=backend)
    rounds, per_call = 60, 3
    errors = []
    stop = threading.Event()

    def stepper():
        try:
            for _ in range(rounds):
                sim.step(per_call)
        except BaseException as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    def reader():
        try:
            while not stop.is_set():
                done = sim.steps_done
                av = sim.average_velocities()
                assert len(av) >= done  # read later, never fewer
                assert sim.fields()["ux"].shape == (40, 48)
                assert sim.distributions().shape == (9, 40, 48)
                assert sim.params["nx"] == 48
                sim.forces(), sim.probes()
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    steppers = [threading.Thread(target=stepper) for _ in range(2)]
    readers = [threading.Thread(target=reader) for _ in range(2)]
    for t in steppers + readers:
        t.start()
    for t in steppers:
        t.join()
    stop.set()
    for t in readers:
        t.join()
    assert not errors, errors
    assert sim.steps_done == 2 * rounds * per_call
    assert len(sim.average_velocities()) == 2 * rounds * per_call
    # The same steps in one thread: the same state.
    alone = d2q9.Simulation(CAVITY_SMALL, backend=backend)
    alone.step(2 * rounds * per_call)
    np.testing.assert_array_equal(sim.distributions(), alone.distributions())


@pytest.mark.parametrize("backend", ["reference", "opencl"])
def test_step_in_one_call_is_step_by_step(backend):
    # step(n) runs in chunks between which it looks for Ctrl-C: the same bits
    # as steps one at a time (each call is one chunk).
    one_call = d2q9.Simulation(CYLINDER, backend=backend)
    one_call.step(300)
    single = d2q9.Simulation(CYLINDER, backend=backend)
    for _ in range(300):
        single.step(1)
    np.testing.assert_array_equal(one_call.distributions(), single.distributions())
    np.testing.assert_array_equal(one_call.average_velocities(), single.average_velocities())
    np.testing.assert_array_equal(one_call.probes()["wake"]["ux"], single.probes()["wake"]["ux"])


def test_step_takes_a_non_negative_int():
    sim = d2q9.Simulation(CAVITY_SMALL, backend="reference")
    for bad in (True, 1.9, 2.0, "3", None):
        with pytest.raises(TypeError, match=r"^step\(n\): n is a whole number of steps"):
            sim.step(bad)
    assert sim.steps_done == 0
    with pytest.raises(d2q9.InputError, match=r"^step\(-1\): the number of steps is negative$"):
        sim.step(-1)
    with pytest.raises(d2q9.InputError, match=r"^step\(-\d+\): the number of steps is negative$"):
        sim.step(-2**70)
    with pytest.raises(d2q9.InputError, match=r"^step\(2147483648\): more steps than a run can count"):
        sim.step(2**31)
    with pytest.raises(d2q9.InputError, match=r"^step\(\d+\): more steps than a run can count"):
        sim.step(2**70)
    sim.step(np.int64(5))  # an integer with __index__
    assert sim.steps_done == 5
    # 5 done and 2**31-1 more would overflow the count: refused, not ignored.
    with pytest.raises(d2q9.InputError, match=r"^step\(2147483647\): more steps than a run can count \(5 done"):
        sim.step(2**31 - 1)
    assert sim.steps_done == 5


CTRL_C_CHILD = r"""
import sys, time, d2q9
sim = d2q9.Simulation({"grid": {"nx": 256, "ny": 256}, "flow": {"steps": 10, "viscosity": 0.05},
                       "edges": {"left": "wall", "right": "wall", "bottom": "wall", "top": {"wall_velocity": [0.05, 0.0]}}},
                      backend="reference")
print("stepping", flush=True)
try:
    sim.step(10**7)  # hours on the reference backend
    print("finished", flush=True)
except KeyboardInterrupt:
    done = sim.steps_done
    assert len(sim.average_velocities()) == done
    sim.step(2)  # still usable
    print("interrupted", done, sim.steps_done, flush=True)
"""


def test_ctrl_c_interrupts_step():
    import signal
    child = subprocess.Popen([sys.executable, "-c", CTRL_C_CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=os.environ)
    try:
        assert child.stdout.readline() == "stepping\n"
        time.sleep(1.0)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        # Chunks aim at 0.15 s: well within 10 s even on a loaded machine;
        # unchunked, the step would hold the signal for hours.
        out, err = child.communicate(timeout=10)
        waited = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 0, err
    words = out.split()
    assert words[0] == "interrupted", out
    done, after = int(words[1]), int(words[2])
    assert 0 < done < 10**7
    assert after == done + 2
    assert waited < 10


def test_repr_copy_and_pickle(tmp_path):
    import copy
    import pickle
    sim = d2q9.Simulation(CYLINDER, backend="reference")
    sim.step(3)
    assert repr(sim) == f"<d2q9.Simulation {CYLINDER!r}, backend='reference', precision='float', steps_done=3/300>"
    from_dict = d2q9.Simulation(CAVITY_SMALL, backend="reference", device=0, precision="double")
    assert repr(from_dict) == ("<d2q9.Simulation problem dict, backend='reference', device=0, precision='double', "
                               "steps_done=0/1000>")
    message = r"^d2q9\.Simulation cannot be copied or pickled: it holds device state; use checkpoint\(\)/resume\(\)$"
    for refuse in (copy.copy, copy.deepcopy, pickle.dumps, lambda s: pickle.dumps(s, protocol=0)):
        for obj in (sim, sim._sim):
            with pytest.raises(TypeError, match=message):
                refuse(obj)
    sim.step(1)
    assert sim.steps_done == 4


def test_device_and_kernels_dir_are_checked(tmp_path):
    for device in (True, 1.0, "0"):
        with pytest.raises(TypeError, match=r"^device="):
            d2q9.Simulation(CAVITY_SMALL, backend="reference", device=device)
    for backend in ("reference", "opencl"):
        with pytest.raises(d2q9.InputError, match=r"^device=-2: a device index is 0 or more"):
            d2q9.Simulation(CAVITY_SMALL, backend=backend, device=-2)
    with pytest.raises(d2q9.InputError, match=r"^device=7: the reference backend runs on the CPU"):
        d2q9.Simulation(CAVITY_SMALL, backend="reference", device=7)
    assert d2q9.Simulation(CAVITY_SMALL, backend="reference", device=0).steps_done == 0
    for backend in ("reference", "opencl"):
        with pytest.raises(d2q9.DeviceError, match=r"no d2q9_bgk\.cl in the kernels directory given by kernels_dir=$"):
            d2q9.Simulation(CAVITY_SMALL, backend=backend, kernels_dir=tmp_path)
    # The library's device messages, in Python's words.
    with pytest.raises(d2q9.DeviceError) as e:
        d2q9.Simulation(CAVITY_SMALL, device=999)
    assert str(e.value).startswith("device=999 does not exist: there are ")
    assert "see d2q9-bgk --list-devices" in str(e.value)


def test_dict_errors_name_the_keys():
    with pytest.raises(d2q9.InputError) as e:
        d2q9.Simulation(dict(CAVITY_SMALL, flow={"steps": 10, "viscosity": -1.0}))
    assert str(e.value) == "problem dict: flow.viscosity: viscosity must be positive, got -1"
    with pytest.raises(d2q9.InputError) as e:
        d2q9.Simulation(dict(CAVITY_SMALL, obstacle=[{"name": "a", "circle": {"center": [5, 5], "radius": 2}},
                                                     {"name": "b"}]))
    assert str(e.value) == "problem dict: obstacle[1]: [[obstacle]] needs one of circle, rectangle or mask"
    with pytest.raises(d2q9.InputError) as e:
        d2q9.Simulation(dict(CAVITY_SMALL, grid={"nx": 48}))
    assert str(e.value) == "problem dict: grid: [grid] needs ny"


def png_bytes(rows):
    """A grey 8-bit PNG of `rows` (lists of 0..255)."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\0" + bytes(r) for r in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", len(rows[0]), len(rows), 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_dict_strings_beyond_the_bmp_and_relative_masks(tmp_path, monkeypatch):
    # A character beyond the BMP reaches the library as itself (the name's
    # own rule refuses it), not as a surrogate pair TOML rejects.
    with pytest.raises(d2q9.InputError) as e:
        d2q9.Simulation(dict(CAVITY_SMALL, obstacle=[{"name": "a\U0001F600", "circle": {"center": [5, 5],
                                                                                          "radius": 2}}]))
    assert str(e.value).startswith("problem dict: obstacle[0].name: name 'a\U0001F600' must be")
    # A mask named with one, relative to the current folder...
    work = tmp_path / "work"
    work.mkdir()
    rows = [[255] * 48 for _ in range(40)]
    for j in range(15, 25):
        rows[j][20:28] = [0] * 8
    (work / "block\U0001F600.png").write_bytes(png_bytes(rows))
    monkeypatch.chdir(work)
    problem = dict(CAVITY_SMALL, obstacle=[{"name": "block", "mask": "block\U0001F600.png"}])
    sim = d2q9.Simulation(problem, backend="reference")
    assert sim.fields()["ux"].shape == (40, 48)
    sim.step(20)
    # ...resumed from a checkpoint in another folder, run from a third.
    saved = tmp_path / "saved"
    saved.mkdir()
    sim.checkpoint(saved / "run.ckpt")
    monkeypatch.chdir(tmp_path)
    resumed = d2q9.Simulation.resume(saved / "run.ckpt", backend="reference")
    assert resumed.steps_done == 20
    resumed.step(10)
    sim.step(10)
    np.testing.assert_array_equal(resumed.distributions(), sim.distributions())


def test_dict_floats_keep_every_digit():
    # Written with fewer digits (%g: 0.0123457), omega would differ.
    sim = d2q9.Simulation(dict(CAVITY_SMALL, flow={"steps": 10, "viscosity": 0.0123456789}), backend="reference")
    assert sim.params["omega"] == 1.0 / (3.0 * 0.0123456789 + 0.5)
    assert "viscosity = 0.0123456789\n" in d2q9.problem_text({"flow": {"viscosity": 0.0123456789}})
    assert d2q9.problem_text({"flow": {"viscosity": 0.1 + 0.2}}) == "\n[flow]\nviscosity = 0.30000000000000004\n"


def test_output_failures_are_output_errors(tmp_path):
    sim = d2q9.Simulation(CAVITY_SMALL, backend="reference")
    sim.step(2)
    assert issubclass(d2q9.OutputError, OSError)
    # /proc/self is a folder where no file can be made: refused before anything is written.
    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc/self: no folder that refuses files to hand")
    with pytest.raises(d2q9.InputError, match=r"^/proc/self/av_vels\.dat: cannot create file"):
        sim.write_outputs("/proc/self")
    with pytest.raises(d2q9.InputError, match=r"^/proc/self/run\.ckpt"):
        d2q9.Simulation(CYLINDER, backend="reference").checkpoint("/proc/self/run.ckpt")
    with pytest.raises(d2q9.InputError, match=r"^/proc/self/run\.ckpt"):
        sim.checkpoint("/proc/self/run.ckpt")
    sim.step(1)
    assert sim.steps_done == 3
    # A write that fails part-way (a file-size limit: EFBIG) is an OutputError, and replaces nothing.
    script = f"""
import resource, signal, sys, d2q9
sim = d2q9.Simulation({CAVITY_SMALL!r}, backend="reference")
sim.step(2)
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
try:
    sim.write_outputs({str(tmp_path)!r}, final_state="text")
except d2q9.OutputError as e:
    print("OutputError", e)
"""
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=os.environ)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("OutputError " + str(tmp_path) + "/final_state.dat: write failed (File too large)"), r.stdout
    assert os.listdir(tmp_path) == []


# --- The library's promises, the same from Python (issue 56) -----------------------------------

CAVITY_DICT = {"grid": {"nx": 16, "ny": 12}, "flow": {"steps": 20, "viscosity": 0.1, "body_force": [1e-5, 0.0]}}


def test_values_float_cannot_hold_are_refused_as_the_command_line_refuses_them(tmp_path):
    cases = [
        ({"viscosity": 1e300}, "omega 3.33333e-301 is too small for precision float"),
        ({"viscosity": 0.1, "wall_velocity": [1e-300, 0.0]}, "wall_velocity[0] 1e-300 is too small for precision float"),
        ({"viscosity": 0.1, "density": 1e39}, "density 1e+39 is too large for precision float"),
        ({"viscosity": 0.1, "body_force": [0.0, 1e39]}, "body_force[1] 1e+39 is too large for precision float"),
        ({"viscosity": 0.1, "accel": 1e39}, "accel 1e+39 is too large for precision float"),
        ({"omega": 1.99999999}, "omega 1.99999999 is 2 in precision float, outside (0, 2)"),
    ]
    for flow, message in cases:
        problem = {"grid": {"nx": 16, "ny": 12}, "flow": {"steps": 5, **flow}}
        if "wall_velocity" in flow:
            problem["flow"].pop("wall_velocity")
            problem["edges"] = {"top": {"wall_velocity": flow["wall_velocity"]}, "bottom": "wall"}
        with pytest.raises(d2q9.InputError) as e:
            d2q9.Simulation(problem, backend="reference")
        assert message in str(e.value), (flow, str(e.value))
        # The same file through the command line: the same words.
        path = tmp_path / "p.toml"
        path.write_text(d2q9.problem_text(problem))
        r = run_bgk("-b", "reference", "-o", str(tmp_path / "out"), str(path))
        assert r.returncode == 1 and message in r.stderr, (flow, r.stderr)
    # Double holds what float cannot.
    d2q9.Simulation({"grid": {"nx": 16, "ny": 12}, "flow": {"steps": 5, "viscosity": 0.1, "density": 1e39}},
                    backend="reference", precision="double")


def test_a_grid_too_large_for_memory_is_refused_before_it_is_built():
    t0 = time.monotonic()
    with pytest.raises(d2q9.DeviceError, match="of host memory"):
        d2q9.Simulation({"grid": {"nx": 40000, "ny": 40000}, "flow": {"steps": 10, "viscosity": 0.1}},
                        backend="reference")
    # From the grid's size alone: building its 1.6 GB mask first took seconds.
    assert time.monotonic() - t0 < 2


def test_checkpoint_never_lands_on_an_input_a_folder_or_a_users_file(tmp_path):
    problem = tmp_path / "my.toml"
    problem.write_text(d2q9.problem_text(CAVITY_DICT))
    s = d2q9.Simulation(str(problem), backend="reference")
    s.step(3)
    with pytest.raises(d2q9.InputError, match="is an input of this run"):
        s.checkpoint(problem)
    assert problem.read_text() == d2q9.problem_text(CAVITY_DICT)
    (tmp_path / "folder").mkdir()
    with pytest.raises(d2q9.InputError, match="is a directory"):
        s.checkpoint(tmp_path / "folder")
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    with pytest.raises(d2q9.InputError, match="is not a checkpoint"):
        s.checkpoint(notes)
    assert notes.read_text() == "mine"
    # Its own checkpoint, again; another problem's only when asked.
    s.checkpoint(tmp_path / "ck")
    s.step(2)
    s.checkpoint(tmp_path / "ck")
    other = d2q9.Simulation({**CAVITY_DICT, "flow": {**CAVITY_DICT["flow"], "density": 1.1}}, backend="reference")
    with pytest.raises(d2q9.InputError, match="holds the checkpoint of another run"):
        other.checkpoint(tmp_path / "ck")
    assert d2q9.Simulation.resume(tmp_path / "ck", backend="reference").steps_done == 5
    other.checkpoint(tmp_path / "ck", overwrite=True)


def test_a_dict_checkpoint_keeps_a_users_problem_toml_and_leaves_nothing_when_refused(tmp_path):
    s = d2q9.Simulation(CAVITY_DICT, backend="reference")
    s.step(2)
    # A folder as the path: refused before <path>.problem.toml is written.
    (tmp_path / "d").mkdir()
    with pytest.raises(d2q9.InputError, match="is a directory"):
        s.checkpoint(tmp_path / "d")
    assert sorted(os.listdir(tmp_path)) == ["d"]
    # A user's file where the problem would go: kept, and the checkpoint refused.
    (tmp_path / "ck.problem.toml").write_text("my own notes\n")
    with pytest.raises(d2q9.InputError, match="holds other text than this problem"):
        s.checkpoint(tmp_path / "ck")
    assert (tmp_path / "ck.problem.toml").read_text() == "my own notes\n"
    assert not (tmp_path / "ck").exists()
    # Elsewhere: written, and written again over its own text.
    s.checkpoint(tmp_path / "ck2")
    s.step(1)
    s.checkpoint(tmp_path / "ck2")
    assert d2q9.Simulation.resume(tmp_path / "ck2", backend="reference").steps_done == 3


def test_an_unstable_run_refuses_to_step_on_or_write(tmp_path):
    s = d2q9.Simulation({"grid": {"nx": 16, "ny": 16}, "flow": {"steps": 500, "omega": 1.99, "body_force": [0.05, 0.0]}},
                        backend="reference")
    with pytest.raises(d2q9.InstabilityError) as first:
        s.step(500)
    done = s.steps_done
    with pytest.raises(d2q9.InstabilityError) as again:
        s.step(2000)
    assert str(again.value) == str(first.value) and s.steps_done == done
    for write in (lambda: s.write_outputs(tmp_path / "out"), lambda: s.checkpoint(tmp_path / "ck")):
        with pytest.raises(d2q9.InstabilityError):
            write()
    assert os.listdir(tmp_path) == []


def test_write_outputs_refuses_a_folder_or_read_only_target_and_replaces_nothing(tmp_path):
    s = d2q9.Simulation(CAVITY_DICT, backend="reference")
    s.step(3)
    (tmp_path / "final_state.vti").mkdir()
    with pytest.raises(d2q9.InputError, match="is a directory, not a file"):
        s.write_outputs(tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["final_state.vti"]
    os.rmdir(tmp_path / "final_state.vti")
    (tmp_path / "av_vels.dat").write_text("mine")
    os.chmod(tmp_path / "av_vels.dat", 0o444)
    with pytest.raises(d2q9.InputError, match="is read-only"):
        s.write_outputs(tmp_path)
    assert (tmp_path / "av_vels.dat").read_text() == "mine"
    os.chmod(tmp_path / "av_vels.dat", 0o644)
    s.write_outputs(tmp_path)
    assert sorted(os.listdir(tmp_path)) == [".d2q9-outputs.json", "av_vels.dat", "final_state.vti"]
