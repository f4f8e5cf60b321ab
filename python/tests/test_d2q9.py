"""The Python module against d2q9-bgk, on the default OpenCL device (PoCL in CI).

Run by CTest (ctest -L python), which sets PYTHONPATH to the build's python/
folder, D2Q9_BGK to the d2q9-bgk it built and D2Q9_SOURCE_DIR.
"""
import os
import subprocess
import threading
import time

import numpy as np
import pytest

import d2q9

SOURCE = os.environ["D2Q9_SOURCE_DIR"]
BGK = os.environ["D2Q9_BGK"]
CYLINDER = os.path.join(SOURCE, "tests/problems/cylinder_library.toml")
OUTPUTS = ["av_vels.dat", "final_state.dat", "forces.csv", "probes.csv"]
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
    r = run_bgk("-o", str(out), CYLINDER)
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
    for name in OUTPUTS:
        mine = read(tmp_path / "py" / name)
        assert mine, name
        assert mine == read(cli_outputs / name), name


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
