// The d2q9 library: #include <d2q9/d2q9.hpp> and link d2q9::d2q9
// (find_package(d2q9), or add_subdirectory of this repository).
//
//   d2q9::Simulation sim(d2q9::load_problem("cylinder.toml"), {d2q9::Backend::OpenCL});
//   sim.step(100);
//   const d2q9::FlowFields fields = sim.fields();  // density, ux, uy, speed, vorticity
//   sim.write_outputs("out");
//
// What it brings: load_problem and parse_problem_file (a problem from a file
// or from text), Problem and Params, SimulationOptions and Simulation,
// FlowFields, the measurements (forces, probes), checkpoints
// (read_checkpoint, Simulation::resume), RunInfo (how it runs) and the
// errors (InputError, InstabilityError, DeviceError). The headers under
// d2q9/internal/ are those types' own, reached through this one: include
// this one alone. The solvers, launch plans and tuning behind a Simulation
// are not among them (docs/architecture.md#the-public-headers).
#pragma once

#include <d2q9/internal/sim/simulation.hpp>
#include <d2q9/internal/problem/stability.hpp>
