// d2q9._d2q9: the library's Simulation for Python (python/d2q9/__init__.py
// wraps it). Written against the public headers alone, as any user of the
// installed library would be.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <d2q9/d2q9.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

d2q9::Backend backend_named(const std::string& name) {
  if (auto b = d2q9::parse_backend(name)) return *b;
  throw d2q9::InputError("backend \"" + name + "\": expected opencl, cuda or reference");
}

d2q9::Precision precision_named(const std::string& name) {
  d2q9::Precision p{};
  if (d2q9::parse_precision(name, p)) return p;
  throw d2q9::InputError("precision \"" + name + "\": expected float, double, fp16s or fp16c");
}

// A (ny, nx) array holding a copy of `values` (row-major, row j at j*nx).
py::array_t<double> grid(const std::vector<double>& values, int ny, int nx) {
  py::array_t<double> a({ny, nx});
  std::copy(values.begin(), values.end(), a.mutable_data());
  return a;
}

py::array_t<double> vector(const std::vector<double>& values) {
  py::array_t<double> a(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), a.mutable_data());
  return a;
}

// A Simulation and the problem it was made from (what Python asks of it
// besides the Simulation's own: the measurements' settings).
struct PySimulation {
  d2q9::Measurements measure;
  std::unique_ptr<d2q9::Simulation> sim;

  PySimulation(d2q9::Problem problem, const std::string& backend, int device, const std::string& precision,
               const std::string& kernels_dir) {
    d2q9::SimulationOptions options;
    options.backend = backend_named(backend);
    options.device = device;
    options.precision = precision_named(precision);
    options.kernels_dir = kernels_dir;
    measure = problem.measure;
    py::gil_scoped_release unlocked;  // building kernels takes a while
    sim = std::make_unique<d2q9::Simulation>(std::move(problem), options);
  }
};

d2q9::Problem problem_from(const std::string& path, const std::string& obstacles) {
  return d2q9::load_problem(path, obstacles);
}

}  // namespace

PYBIND11_MODULE(_d2q9, m) {
  m.doc() = "The d2q9 lattice Boltzmann library (use the d2q9 package, not this module)";
  // Today's messages, as Python exceptions (InputError: bad input; InstabilityError: the run blew up).
  py::register_exception<d2q9::InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<d2q9::InstabilityError>(m, "InstabilityError", PyExc_ArithmeticError);
  py::register_exception<d2q9::DeviceError>(m, "DeviceError", PyExc_RuntimeError);

  py::class_<d2q9::Problem>(m, "Problem")
      .def_static("load", &problem_from, py::arg("path"), py::arg("obstacles") = "",
                  "A problem file (.toml), or a .params file and its obstacle file")
      .def_static("parse", [](const std::string& text, const std::string& name) {
        return d2q9::parse_problem_file(text, name);
      }, py::arg("text"), py::arg("name"), "A problem file's text; `name` is what errors call it");

  py::class_<PySimulation>(m, "Simulation")
      .def(py::init<d2q9::Problem, const std::string&, int, const std::string&, const std::string&>(),
           py::arg("problem"), py::arg("backend"), py::arg("device"), py::arg("precision"), py::arg("kernels_dir"))
      .def("step", [](PySimulation& s, int steps) {
        py::gil_scoped_release unlocked;  // other Python threads run while the device steps
        s.sim->step(steps);
      }, py::arg("steps"))
      .def_property_readonly("steps_done", [](const PySimulation& s) { return s.sim->steps_done(); })
      .def_property_readonly("params", [](const PySimulation& s) {
        const d2q9::Params& p = s.sim->params();
        py::dict d;
        d["nx"] = p.nx;
        d["ny"] = p.ny;
        d["steps"] = p.max_iters;
        d["density"] = p.density;
        d["accel"] = p.accel;
        d["omega"] = p.omega;
        d["viscosity"] = p.viscosity();
        d["reynolds_dim"] = p.reynolds_dim;
        return d;
      })
      .def("fields", [](PySimulation& s) {
        d2q9::FlowFields f;
        {
          py::gil_scoped_release unlocked;
          f = s.sim->fields();
        }
        py::dict d;
        d["density"] = grid(f.density, f.ny, f.nx);
        d["ux"] = grid(f.ux, f.ny, f.nx);
        d["uy"] = grid(f.uy, f.ny, f.nx);
        d["speed"] = grid(f.speed, f.ny, f.nx);
        d["vorticity"] = grid(f.vorticity, f.ny, f.nx);
        return d;
      })
      .def("distributions", [](PySimulation& s) {
        std::vector<double> f;
        {
          py::gil_scoped_release unlocked;
          f = s.sim->distributions();
        }
        const d2q9::Params& p = s.sim->params();
        py::array_t<double> a({9, p.ny, p.nx});
        std::copy(f.begin(), f.end(), a.mutable_data());
        return a;
      })
      .def("average_velocities", [](const PySimulation& s) { return vector(s.sim->average_velocities()); })
      .def("_force_series", [](const PySimulation& s) {
        const d2q9::MeasurementLog& log = s.sim->measurements();
        return py::make_tuple(log.bodies(), log.forces_from(), vector(log.force_series()));
      })
      .def("_force_scale", [](const PySimulation& s) -> py::object {
        // C = 2 F / (density velocity^2 length), as forces.csv's Cd and Cl.
        if (!s.measure.coefficients()) return py::none();
        return py::float_(s.measure.density * *s.measure.velocity * *s.measure.velocity * *s.measure.length / 2.0);
      })
      .def("_probe_series", [](const PySimulation& s) {
        // The log's own doubles, not probes.csv's 13 digits.
        const d2q9::MeasurementLog& log = s.sim->measurements();
        std::vector<std::string> names;
        for (const d2q9::Probe& p : log.probe_list()) names.push_back(p.name);
        const std::vector<int>& steps = log.probe_steps();
        py::array_t<std::int64_t> step_array(static_cast<py::ssize_t>(steps.size()));
        std::copy(steps.begin(), steps.end(), step_array.mutable_data());
        return py::make_tuple(names, step_array, vector(log.probe_series()));
      })
      .def("write_outputs", [](PySimulation& s, const std::string& dir) {
        py::gil_scoped_release unlocked;
        s.sim->write_outputs(dir);
      }, py::arg("dir"))
      .def("_checkpoint", [](PySimulation& s, const std::string& path, const std::string& problem_file) {
        py::gil_scoped_release unlocked;
        d2q9::Checkpoint c = s.sim->checkpoint();
        // As d2q9-bgk records a problem-file run: the file twice, its extensions' fingerprint second.
        c.run.param_file = c.run.obstacle_file = problem_file;
        c.run.param_hash = d2q9::file_hash(problem_file);
        c.run.obstacle_hash = d2q9::extensions_fingerprint(s.sim->params().extensions);
        d2q9::write_checkpoint(path, c);
      })
      .def("_resume", [](PySimulation& s, const std::string& path) {
        py::gil_scoped_release unlocked;
        s.sim->resume(d2q9::read_checkpoint(path), path);
      });

  m.def("_checkpoint_record", [](const std::string& path) {
    const d2q9::Checkpoint c = d2q9::read_checkpoint(path);
    return py::make_tuple(c.run.param_file, c.run.param_hash, std::string(d2q9::to_string(c.precision)));
  });
  m.def("_file_hash", &d2q9::file_hash);
  m.def("_check_checkpoint_matches", [](const std::string& path, const d2q9::Problem& problem,
                                        const std::string& problem_file, const std::string& precision) {
    d2q9::check_checkpoint_matches(d2q9::read_checkpoint(path), path, problem.params, problem_file, problem.mask, "",
                                   precision_named(precision));
  });
}
