// d2q9._d2q9: the library's Simulation for Python (python/d2q9/__init__.py
// wraps it). Written against the public headers alone, as any user of the
// installed library would be.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <d2q9/d2q9.hpp>
#include <d2q9/live_view.hpp>

#include <algorithm>
#include <functional>
#include <chrono>
#include <climits>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

d2q9::Backend backend_named(const std::string& name) {
  if (auto b = d2q9::parse_backend(name)) return *b;
  throw d2q9::InputError("backend \"" + name + "\": expected " + d2q9::backend_names());
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

// An output that could not be written (write_outputs, checkpoint): d2q9.OutputError, an OSError.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `what` with `from` replaced by `to` wherever it occurs.
std::string replaced(std::string what, const std::string& from, const std::string& to) {
  for (std::size_t at = what.find(from); at != std::string::npos; at = what.find(from, at + to.size()))
    what.replace(at, from.size(), to);
  return what;
}

// The library's device messages speak d2q9-bgk's flags; Python's are arguments.
std::string pythonic(std::string what) {
  what = replaced(std::move(what), "--device ", "device=");
  what = replaced(std::move(what), "see --list-devices", "see d2q9-bgk --list-devices");
  what = replaced(std::move(what), "given by --kernels-dir", "given by kernels_dir=");
  what = replaced(std::move(what), "set SimulationOptions::kernels_dir or the environment variable",
                  "pass kernels_dir= or set the environment variable");
  what = replaced(std::move(what), " (d2q9-bgk: pass --kernels-dir)", "");
  return what;
}

// A Simulation. Every call on
// the Simulation holds `lock`, taken with the GIL released (never the other
// way round), so that calls from several Python threads take turns.
struct PySimulation {
  std::unique_ptr<d2q9::Simulation> sim;
  std::mutex lock;
  // serve(): the live view (destroyed before the simulation), what its
  // checkpoint button calls (None: it has none), and whether its Stop came.
  std::unique_ptr<d2q9::LiveView> live;
  py::object on_checkpoint;
  bool stop_requested = false;

  PySimulation(d2q9::Problem problem, const std::string& backend, int device, const std::string& precision,
               const std::string& kernels_dir) {
    d2q9::SimulationOptions options;
    options.backend = backend_named(backend);
    options.device = device;
    options.precision = precision_named(precision);
    options.kernels_dir = kernels_dir;
    py::gil_scoped_release unlocked;  // building kernels takes a while
    try {
      sim = std::make_unique<d2q9::Simulation>(std::move(problem), options);
    } catch (const d2q9::DeviceError& e) {
      throw d2q9::DeviceError(pythonic(e.what()));
    } catch (const d2q9::InputError& e) {
      throw d2q9::InputError(pythonic(e.what()));
    }
  }
};

// f(simulation) with the GIL released and s's lock held: a copy of what it returns.
template <class F>
auto locked(PySimulation& s, F&& f) {
  py::gil_scoped_release unlocked;
  std::lock_guard<std::mutex> held(s.lock);
  return f(*s.sim);
}

// f() with a failure to write (the library's std::runtime_error that is none
// of its own errors) raised as OutputError.
template <class F>
void writing(F&& f) {
  try {
    f();
  } catch (const d2q9::InputError&) {
    throw;
  } catch (const d2q9::InstabilityError&) {
    throw;
  } catch (const d2q9::DeviceError&) {
    throw;
  } catch (const std::runtime_error& e) {
    throw OutputError(e.what());
  }
}

// step(n)'s n: a Python int (or an integer type with __index__), not a
// bool, float or str; InputError when negative or more than a run can count.
long long steps_argument(py::handle n) {
  PyObject* o = n.ptr();
  if (PyBool_Check(o) || PyFloat_Check(o) || !PyIndex_Check(o))
    throw py::type_error("step(n): n is a whole number of steps (an int), not a " +
                         std::string(Py_TYPE(o)->tp_name));
  py::object whole = py::reinterpret_steal<py::object>(PyNumber_Index(o));
  if (!whole) throw py::error_already_set();
  int overflow = 0;
  const long long steps = PyLong_AsLongLongAndOverflow(whole.ptr(), &overflow);
  if (steps == -1 && PyErr_Occurred()) throw py::error_already_set();
  const std::string text = py::str(whole);
  if (overflow < 0 || (overflow == 0 && steps < 0))
    throw d2q9::InputError("step(" + text + "): the number of steps is negative");
  if (overflow > 0 || steps > INT_MAX)
    throw d2q9::InputError("step(" + text + "): more steps than a run can count (at most " +
                           std::to_string(INT_MAX) + " in all)");
  return steps;
}

// Steps n in chunks of about kChunkSeconds each, the GIL and the lock taken
// back between them to look for signals (Ctrl-C): KeyboardInterrupt at a
// step boundary, steps_done counting the chunks done. Chunks are steps in
// a row, as one call's: the same bits.
constexpr double kChunkSeconds = 0.15;

// The live view's turn after a chunk (GIL held): its checkpoint, its Stop
// (true: step() returns now), and its pause, held in slices so that Ctrl-C
// still reaches Python.
bool serve_after_chunk(PySimulation& s) {
  d2q9::LiveView& live = *s.live;
  for (;;) {
    const d2q9::LiveCommand command = live.take_command();
    if (command == d2q9::LiveCommand::Stop) {
      s.stop_requested = true;
      return true;
    }
    if (command == d2q9::LiveCommand::Checkpoint) {
      try {
        live.report(py::str(s.on_checkpoint()).cast<std::string>());
      } catch (py::error_already_set& e) {
        live.report("error: " + std::string(py::str(e.value())));
      }
      continue;
    }
    if (!live.paused()) return false;
    {
      py::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> held(s.lock);
      const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
      live.hold_while_paused(*s.sim, [&] { return std::chrono::steady_clock::now() > until; });
    }
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }
}

void step_in_chunks(PySimulation& s, long long n) {
  long long left = n;
  long long chunk = 1;  // small at first: a chunk's time is only known after one
  while (left > 0) {
    const int k = static_cast<int>(std::min(chunk, left));
    double seconds = 0;
    {
      py::gil_scoped_release unlocked;  // other Python threads run while the device steps
      std::lock_guard<std::mutex> held(s.lock);
      const long long done = s.sim->steps_done();
      if (done + left > INT_MAX)
        throw d2q9::InputError("step(" + std::to_string(left) + "): more steps than a run can count (" +
                               std::to_string(done) + " done, at most " + std::to_string(INT_MAX) + " in all)");
      const auto t0 = std::chrono::steady_clock::now();
      s.sim->step(k);
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (s.live) s.live->after_chunk(*s.sim);
    }
    left -= k;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (s.live && serve_after_chunk(s)) break;
    // The next chunk aims at kChunkSeconds, growing at most fourfold.
    const double per_step = std::max(seconds, 1e-9) / k;
    chunk = std::clamp(static_cast<long long>(kChunkSeconds / per_step), 1LL, 4LL * k);
  }
  if (s.live) locked(s, [&](d2q9::Simulation& sim) { s.live->show_state(sim, "idle"); });
}

// serve(): the live view on host:port, answering between step() calls too.
std::string start_serving(PySimulation& s, const std::string& host, int port, py::object on_checkpoint) {
  if (s.live) throw d2q9::InputError("serve(): this simulation is served already, at " + s.live->url());
  d2q9::ServeAddress address;
  address.host = host;
  address.port = port;
  if (port < 0 || port > 65535) throw d2q9::InputError("serve(): port must be 0 to 65535, got " + std::to_string(port));
  std::unique_ptr<d2q9::LiveView> live;
  try {
    live = std::make_unique<d2q9::LiveView>(address);
  } catch (const d2q9::InputError& e) {
    throw d2q9::InputError(replaced(e.what(), "--serve: ", "serve(): "));  // Python's words
  }
  locked(s, [&](d2q9::Simulation& sim) {
    live->describe(sim, on_checkpoint.is_none() ? "" : "(the script's)");
    live->show_state(sim, "idle");
  });
  live->run_idle_with([&s](const std::function<void(d2q9::Simulation&)>& job) {
    std::unique_lock<std::mutex> held(s.lock, std::try_to_lock);
    if (!held.owns_lock()) return false;
    job(*s.sim);
    return true;
  });
  s.on_checkpoint = std::move(on_checkpoint);
  s.stop_requested = false;
  s.live = std::move(live);
  return s.live->url();
}

[[noreturn]] void refuse_copy(py::handle) {
  throw py::type_error(
      "d2q9.Simulation cannot be copied or pickled: it holds device state; use checkpoint()/resume()");
}

// The check a Simulation on `backend` in `precision` makes of the problem's
// params, run before the mask is built (a grid too large is refused at once).
std::function<void(const d2q9::Params&)> runs_on(const std::string& name, const std::string& backend,
                                                 const std::string& precision) {
  d2q9::SimulationOptions options;
  options.backend = backend_named(backend);
  options.precision = precision_named(precision);
  return [name, options](const d2q9::Params& p) { d2q9::check_problem_runs(p, name, options); };
}

d2q9::Problem problem_from(const std::string& path, const std::string& obstacles, const std::string& backend,
                           const std::string& precision) {
  return d2q9::load_problem(path, obstacles, runs_on(path, backend, precision));
}

// What Python reads of a simulation: its fields, distributions and series,
// copied under its lock and handed over as numpy arrays.
void bind_reads(py::class_<PySimulation>& simulation) {
  simulation
    .def("fields", [](PySimulation& s) {
      const d2q9::FlowFields f = locked(s, [](d2q9::Simulation& sim) { return sim.fields(); });
      py::dict d;
      d["density"] = grid(f.density, f.ny, f.nx);
      d["ux"] = grid(f.ux, f.ny, f.nx);
      d["uy"] = grid(f.uy, f.ny, f.nx);
      d["speed"] = grid(f.speed, f.ny, f.nx);
      d["vorticity"] = grid(f.vorticity, f.ny, f.nx);
      if (!f.temperature.empty()) d["temperature"] = grid(f.temperature, f.ny, f.nx);  // a problem with [heat]
      return d;
    })
    .def("wall_heat", [](PySimulation& s) {
      const std::vector<d2q9::WallHeat> walls = locked(s, [](d2q9::Simulation& sim) { return sim.heat_at_walls(); });
      py::dict d;
      for (const d2q9::WallHeat& w : walls) {
        py::dict one;
        one["heat_in"] = w.heat_in;
        one["faces"] = w.faces;
        one["nusselt"] = w.nusselt;
        d[py::str(w.name)] = one;
      }
      return d;
    })
    .def("distributions", [](PySimulation& s) {
      int nx = 0, ny = 0;
      const std::vector<double> f = locked(s, [&](d2q9::Simulation& sim) {
        nx = sim.params().nx;
        ny = sim.params().ny;
        return sim.distributions();
      });
      // Nine planes, or fourteen with heat (the temperature's five after them).
      const py::ssize_t planes = static_cast<py::ssize_t>(f.size() / (static_cast<std::size_t>(nx) * ny));
      py::array_t<double> a({planes, static_cast<py::ssize_t>(ny), static_cast<py::ssize_t>(nx)});
      std::copy(f.begin(), f.end(), a.mutable_data());
      return a;
    })
    .def("average_velocities", [](PySimulation& s) {
      return vector(locked(s, [](d2q9::Simulation& sim) { return sim.average_velocities(); }));
    })
    .def("_force_series", [](PySimulation& s) {
      // The library's coefficients, the very doubles forces.csv prints.
      auto [bodies, first, series, coefficients, with_coefficients] = locked(s, [](d2q9::Simulation& sim) {
        const d2q9::MeasurementLog& log = sim.measurements();
        return std::make_tuple(log.bodies(), log.forces_from(), log.force_series(), log.coefficient_series(),
                               log.coefficients());
      });
      return py::make_tuple(bodies, first, vector(series),
                            with_coefficients ? py::object(vector(coefficients)) : py::object(py::none()));
    })
    .def("_probe_series", [](PySimulation& s) {
      // The log's own doubles, not probes.csv's 13 digits.
      auto [names, steps, series, quantities] = locked(s, [](d2q9::Simulation& sim) {
        const d2q9::MeasurementLog& log = sim.measurements();
        std::vector<std::string> probe_names;
        for (const d2q9::Probe& p : log.probe_list()) probe_names.push_back(p.name);
        return std::make_tuple(probe_names, log.probe_steps(), log.probe_series(), log.probe_quantities());
      });
      py::array_t<std::int64_t> step_array(static_cast<py::ssize_t>(steps.size()));
      std::copy(steps.begin(), steps.end(), step_array.mutable_data());
      return py::make_tuple(names, step_array, vector(series), quantities);
    })
    .def("_nusselt_series", [](PySimulation& s) {
      auto [walls, steps, series] = locked(s, [](d2q9::Simulation& sim) {
        const d2q9::MeasurementLog& log = sim.measurements();
        return std::make_tuple(log.nusselt_walls(), log.nusselt_steps(), log.nusselt_series());
      });
      py::array_t<std::int64_t> step_array(static_cast<py::ssize_t>(steps.size()));
      std::copy(steps.begin(), steps.end(), step_array.mutable_data());
      return py::make_tuple(walls, step_array, vector(series));
    });
}

// What a simulation writes and restores (the library's checks and files),
// and the copies it refuses.
void bind_writes(py::class_<PySimulation>& simulation) {
  simulation
    .def("write_outputs", [](PySimulation& s, const std::string& dir, const std::optional<std::string>& final_state) {
      // None: the problem's default (d2q9::final_state_format).
      std::optional<d2q9::FinalStateFormat> format;
      if (final_state && !(format = d2q9::parse_final_state_format(*final_state)))
        throw d2q9::InputError("write_outputs: final_state must be \"text\", \"vti\" or \"both\", got '" +
                               *final_state + "'");
      writing([&] { locked(s, [&](d2q9::Simulation& sim) { sim.write_outputs(dir, format); }); });
    }, py::arg("dir"), py::arg("final_state") = py::none())
    .def("_check_checkpoint_target", [](PySimulation& s, const std::string& path, bool overwrite) {
      locked(s, [&](d2q9::Simulation& sim) { sim.check_checkpoint_target(path, overwrite); });
    })
    .def("_checkpoint", [](PySimulation& s, const std::string& path, const std::string& problem_file, bool overwrite) {
      writing([&] {
        locked(s, [&](d2q9::Simulation& sim) {
          sim.save_checkpoint(path, d2q9::problem_file_record(problem_file, sim.params()), overwrite);
        });
      });
    })
    .def("_resume", [](PySimulation& s, const std::string& path) {
      locked(s, [&](d2q9::Simulation& sim) { sim.resume(d2q9::read_checkpoint(path), path); });
    })
    .def("__copy__", [](py::handle self) { refuse_copy(self); })
    .def("__deepcopy__", [](py::handle self, py::handle) { refuse_copy(self); })
    .def("__reduce_ex__", [](py::handle self, py::handle) { refuse_copy(self); })
    .def("__reduce__", [](py::handle self) { refuse_copy(self); });
}

}  // namespace

PYBIND11_MODULE(_d2q9, m) {
  m.doc() = "The d2q9 lattice Boltzmann library (use the d2q9 package, not this module)";
  // Today's messages, as Python exceptions (InputError: bad input; InstabilityError: the run blew up).
  py::register_exception<d2q9::InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<d2q9::InstabilityError>(m, "InstabilityError", PyExc_ArithmeticError);
  py::register_exception<d2q9::DeviceError>(m, "DeviceError", PyExc_RuntimeError);
  // A file the run could not write (write_outputs, checkpoint).
  py::register_exception<OutputError>(m, "OutputError", PyExc_OSError);

  py::class_<d2q9::Problem>(m, "Problem")
      .def_static("load", &problem_from, py::arg("path"), py::arg("obstacles") = "", py::arg("backend") = "opencl",
                  py::arg("precision") = "float",
                  "A problem file (.toml), or a .params file and its obstacle file, checked for a Simulation on "
                  "`backend` in `precision`")
      .def_static("parse", [](const std::string& text, const std::string& name, const std::string& backend,
                              const std::string& precision) {
        return d2q9::parse_problem_file(text, name, runs_on(name, backend, precision));
      }, py::arg("text"), py::arg("name"), py::arg("backend") = "opencl", py::arg("precision") = "float",
         "A problem file's text; `name` is what errors call it");

  py::class_<PySimulation> simulation(m, "Simulation");
  simulation
    .def(py::init<d2q9::Problem, const std::string&, int, const std::string&, const std::string&>(),
         py::arg("problem"), py::arg("backend"), py::arg("device"), py::arg("precision"), py::arg("kernels_dir"))
    .def("step", [](PySimulation& s, py::handle n) { step_in_chunks(s, steps_argument(n)); }, py::arg("steps"))
    .def("_serve", &start_serving, py::arg("host"), py::arg("port"), py::arg("on_checkpoint"))
    .def("_stop_serving", [](PySimulation& s) {
      py::gil_scoped_release unlocked;  // the server's threads may be waiting for the simulation's lock
      s.live.reset();
    })
    .def_property_readonly("_serving_url", [](PySimulation& s) { return s.live ? s.live->url() : std::string(); })
    .def_property_readonly("_stop_requested", [](PySimulation& s) { return s.stop_requested; })
    .def_property_readonly("steps_done", [](PySimulation& s) {
      return locked(s, [](d2q9::Simulation& sim) { return sim.steps_done(); });
    })
    .def_property_readonly("params", [](PySimulation& s) {
      const d2q9::Params p = locked(s, [](d2q9::Simulation& sim) { return sim.params(); });
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
    });
  bind_reads(simulation);
  bind_writes(simulation);

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
