#include "core/printable.hpp"
#include "app/run.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <climits>
#include <iostream>

#include <unistd.h>

#include "sim/measurements.hpp"
#include "app/outputs.hpp"
#include "app/progress.hpp"
#include "app/run_loop.hpp"
#include "sim/steady.hpp"
#include "sim/simulation.hpp"
#include "sim/simulation_internal.hpp"
#include "app/summary.hpp"
#include "app/version.hpp"
#include "sim/backend.hpp"
#include "core/stopwatch.hpp"
#include "problem/limits.hpp"
#include "io/output.hpp"
#include "io/picture.hpp"
#include "problem/problem_file.hpp"
#include "problem/problem_settings.hpp"
#include "problem/stability.hpp"
#include "io/vtk_output.hpp"

namespace d2q9 {

namespace {

double seconds(const timeval& tv) { return tv.tv_sec + tv.tv_usec * 1e-6; }


void check_output_dir(const std::string& dir) { make_output_dir(dir); }

// The output directory held for one checkpointing run: a second run there
// would overwrite this run's checkpoint, and delete it when it finished.
class CheckpointDirLock {
 public:
  explicit CheckpointDirLock(const std::string& dir) : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_ < 0) throw InputError(dir + ": cannot open output directory (" + std::strerror(errno) + ")");
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw InputError(dir + ": another run is checkpointing into this output directory; give this one its own -o");
    }
  }
  ~CheckpointDirLock() { ::close(fd_); }
  CheckpointDirLock(const CheckpointDirLock&) = delete;
  CheckpointDirLock& operator=(const CheckpointDirLock&) = delete;

 private:
  int fd_;
};

// Options whose meaning needs one process, refused up front under mpirun.
void check_options_for_ranks(const Options& o, int ranks) {
  if (ranks < 2) return;
  if (o.tune)
    throw InputError("--tune searches shapes on one device: run it without mpirun, then pass the shape with --local-size");
}

// For the tests only: this rank fails at the start of the step loop, while
// the others wait for its halo rows.
int injected_failure_rank() {
  const char* value = std::getenv("D2Q9_MPI_FAIL_RANK");
  return value && *value ? std::atoi(value) : -1;
}

void print_tuning_table(const RunInfo& run, const std::vector<TuningResult>& table, const std::string& reason) {
  std::printf("Launch search on %s (%s, %s), the default first:\n", run.device.c_str(), run.backend.c_str(),
              to_string(run.precision));
  std::printf("  %-20s %12s\n", "launch", "us per step");
  for (const auto& r : table) {
    if (r.seconds_per_step > 0)
      std::printf("  %-20s %12.2f\n", r.launch.text().c_str(), r.seconds_per_step * 1e6);
    else
      std::printf("  %-20s %12s  (%s)\n", r.launch.text().c_str(), "-", printable(r.note).c_str());
  }
  std::printf("Chosen: %s\n", reason.c_str());
}

// The simulation's options: what the user asked of the device and the launch.
SimulationOptions simulation_options(const Options& o, const Options& given) {
  SimulationOptions s;
  s.backend = o.backend;
  s.device = o.device;
  s.precision = o.precision;
  s.kernels_dir = o.kernels_dir;
  s.launch.variant = o.variant;
  s.launch.local = o.local_size;
  s.launch.block_steps = o.block_steps;
  s.launch.tile = o.tile;
  // A restart's launch is the one its checkpoint recorded unless given now.
  const bool launch_given_now = std::any_of(given.given.begin(), given.given.end(), [](const auto& g) {
    return g.first == "local-size" || g.first == "kernel-variant" || g.first == "block-steps" || g.first == "tile";
  });
  if (!o.restart_file.empty() && !launch_given_now) s.launch.origin = "from the checkpoint";
  s.search_now = o.tune;
  return s;
}

// "NAME on each of 3 ranks", or each rank's device where they differ.
std::string devices_text(const std::vector<std::string>& names) {
  if (names.size() <= 1) return names.empty() ? "" : names[0];
  bool same = true;
  for (const auto& n : names) same = same && n == names[0];
  if (same) return names[0] + " on each of " + std::to_string(names.size()) + " ranks";
  std::string out;
  for (std::size_t r = 0; r < names.size(); ++r) out += (r ? ", rank " : "rank ") + std::to_string(r) + ": " + names[r];
  return out;
}

// "path" made absolute against the current directory, so a record means
// the same from anywhere.
std::string absolute(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (!::getcwd(cwd, sizeof cwd)) throw InputError(std::string("cannot read the current directory (") + std::strerror(errno) + ")");
  return std::string(cwd) + "/" + path;
}

// What a checkpoint keeps of this run: the inputs, and the options as given
// with paths made absolute and the launch plan as resolved, so that a restart
// writes where this run wrote and rounds as it rounded. Left out: what only
// concerns this invocation (--restart, --tune, --quiet) and the split across
// ranks (a checkpoint restarts on any number of ranks).
// A problem file (.toml) is recorded as the obstacle file too, and in place of
// that file's hash the fingerprint of its Extensions, which the checkpoint's
// header does not hold (see check_settings_match).
RunRecord run_record(const Options& o, const RunInfo& run, const Extensions& file_extensions,
                     const Extensions& effective, const Measurements& measure) {
  RunRecord r;
  r.settings = problem_setting_values(effective, measure);
  r.param_file = absolute(o.param_file);
  r.param_hash = file_hash(o.param_file);
  const bool problem_file = o.obstacle_file.empty();
  r.obstacle_file = problem_file ? r.param_file : absolute(o.obstacle_file);
  r.obstacle_hash = problem_file ? extensions_fingerprint(file_extensions) : file_hash(o.obstacle_file);
  for (const auto& [name, value] : o.given) {
    if (name == "restart" || name == "overwrite-checkpoint" || name == "tune" || name == "autotune" || name == "quiet" || name == "serve" || name == "slab-rows" || name == "output-dir" ||
        name == "kernels-dir" || name == "local-size" || name == "kernel-variant" || name == "block-steps" ||
        name == "tile")
      continue;
    r.options.emplace_back(name, value);
  }
  r.options.emplace_back("output-dir", absolute(o.output_dir));
  if (!o.kernels_dir.empty()) r.options.emplace_back("kernels-dir", absolute(o.kernels_dir));
  if (!run.kernel_variant.empty()) {
    r.options.emplace_back("local-size", run.local_size.text());
    r.options.emplace_back("kernel-variant", run.kernel_variant);
    if (run.block_steps > 0) {
      r.options.emplace_back("block-steps", std::to_string(run.block_steps));
      r.options.emplace_back("tile", run.tile.text());
    }
  }
  return r;
}

// The options of a run continued from `checkpoint`: what it recorded, with
// what was given now taking precedence.
Options options_to_resume(const Options& given, const Checkpoint& checkpoint) {
  if (checkpoint.run.empty()) {
    if (given.param_file.empty())
      throw InputError(given.restart_file + ": this checkpoint (from an older version) does not record its input "
                       "files: give <paramfile> <obstaclefile> as well");
    return given;
  }
  Options o = resume_options(given, checkpoint.run.options, checkpoint.run.param_file, checkpoint.run.obstacle_file);
  o.restart_file = given.restart_file;
  return o;
}

// The problem is checked value by value; an edited file that still describes
// it (a comment, spacing) is worth a word, not a refusal.
void warn_if_inputs_changed(const RunRecord& record, const Options& o) {
  // A problem file and a .params file are different files whatever they describe.
  if (record.empty() || is_problem_file(record.param_file) != is_problem_file(o.param_file)) return;
  std::vector<std::pair<const std::string*, std::uint64_t>> files = {{&o.param_file, record.param_hash}};
  // A problem-file run's record holds no obstacle file hash (see run_record).
  if (!o.obstacle_file.empty()) files.emplace_back(&o.obstacle_file, record.obstacle_hash);
  for (const auto& [path, hash] : files)
    if (file_hash(*path) != hash)
      std::fprintf(stderr, "warning: %s: changed since the checkpoint was written, but describes the same problem\n",
                   printable(*path).c_str());
}

// The problem's settings (problem/problem_settings.hpp) must match as well,
// as this run would apply them (options included); the first that differs is
// named. Records from before settings were recorded hold a fingerprint of
// the problem file's extensions instead (a run of a .params file, none).
void check_settings_match(const Checkpoint& checkpoint, const Options& o, const Extensions& effective,
                          const Measurements& measure, const Extensions& file_extensions) {
  const RunRecord& record = checkpoint.run;
  if (!record.settings.empty()) {
    if (const auto m = first_setting_mismatch(record.settings, effective, measure))
      throw InputError(o.restart_file + ": checkpoint does not match the inputs: it was written for " + m->name + " = " +
                       m->recorded + ", but " + o.param_file + (o.collision ? " with --collision" : "") +
                       (o.smagorinsky ? " with --smagorinsky" : "") + " gives " +
                       m->name + " = " + m->given);
    return;
  }
  const std::uint64_t recorded = !record.empty() && is_problem_file(record.param_file)
                                     ? record.obstacle_hash
                                     : extensions_fingerprint(Extensions{});
  if (extensions_fingerprint(file_extensions) != recorded)
    throw InputError(o.restart_file + ": checkpoint does not match the inputs: it was written for another wall "
                     "velocity, body force, inlet, outlet or collision than " + o.param_file + " gives");
}

}  // namespace

namespace {

// What the set-up reads and checks before any device is touched.
struct RunInputs {
  Options o;                           // as given, or as the checkpoint recorded them
  Problem problem;
  Extensions file_extensions;          // as the input files give them
  std::optional<double> until_steady;  // --until-steady, else the problem file's
  ExtraOutputs extra;
  Checkpoint restart;
  std::unique_ptr<CheckpointDirLock> lock;
};

// Every rank reads the inputs and checks them, the outputs and the
// checkpoint's target (rank 0, which writes them).
void read_inputs(const Options& given, Ranks& ranks, RunInputs& in) {
  Options& o = in.o;
  o = given;
  if (!given.restart_file.empty()) {
    in.restart = read_checkpoint(given.restart_file);
    o = options_to_resume(given, in.restart);
  }
  check_options_for_ranks(o, ranks.size());
  auto check_fits = [&](const Params& p) {
    check_problem_runs(p, o.param_file, simulation_options(o, given), o.checkpoint_every > 0);
  };
  in.problem = load_problem(o.param_file, o.obstacle_file, check_fits);
  Params& params = in.problem.params;
  in.until_steady = o.until_steady ? o.until_steady : in.problem.until_steady;
  // Checkpoints record what the files give; --collision and --smagorinsky are options, recorded as such.
  in.file_extensions = params.extensions;
  if (o.collision) {
    params.extensions.collision = o.collision->op;
    // Lambda as the problem file gives it unless the option names one.
    if (o.collision->trt_magic) params.extensions.trt_magic = *o.collision->trt_magic;
  }
  if (o.smagorinsky) params.extensions.smagorinsky = *o.smagorinsky;
  if (!params.extensions.heat &&
      std::find(o.fields.begin(), o.fields.end(), PictureField::Temperature) != o.fields.end())
    throw UsageError("--field temperature draws the temperature of a problem with [heat]; " + in.problem.name +
                     " has none");
  if (!o.restart_file.empty()) {
    check_checkpoint_matches(in.restart, o.restart_file, params, o.param_file, in.problem.mask,
                             o.obstacle_file.empty() ? o.param_file : o.obstacle_file, o.precision);
    check_settings_match(in.restart, o, params.extensions, in.problem.measure, in.file_extensions);
    if (ranks.is_root()) warn_if_inputs_changed(in.restart.run, o);
  }
  if (ranks.is_root()) check_output_dir(o.output_dir);
  if (ranks.is_root() && o.checkpoint_every > 0) {
    in.lock = std::make_unique<CheckpointDirLock>(o.output_dir);
    check_checkpoint_target(o, checkpoint_path(o), in.problem.read_files);
  }
  in.extra = plan_extra_outputs(o, in.problem.measure, final_state_format(in.problem, o.final_state), params.max_iters,
                                ranks.is_root(), ranks.size());
  if (ranks.is_root()) check_output_targets(o, in.extra, in.problem.read_files);
}

// The summary of a finished run, from the simulation and the loop's times.
RunSummary make_summary(const Options& o, const Simulation& sim, const std::vector<std::string>& devices,
                        RunTimes times, const RunLoopResult& result, const SteadyRule& steady,
                        const SteadyCheck& steady_check, Stopwatch& wall) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  RunSummary summary;
  const BuildInfo build = build_info();
  summary.version = build.version;
  summary.commit = build.commit;
  summary.param_file = o.param_file;
  summary.obstacle_file = o.obstacle_file;
  summary.params = sim.params();
  summary.fluid_cells = sim.mask().fluid_cells();
  const RunInfo run = sim.run_info();
  summary.device = devices_text(devices);
  summary.backend = run.backend;
  summary.precision = run.precision;
  summary.local_size = run.local_size;
  summary.kernel_variant = run.kernel_variant;
  summary.block_steps = run.block_steps;
  summary.tile = run.tile;
  summary.launch_reason = sim.launch_reason();
  summary.decomposition = run.decomposition;
  summary.halos = run.halos;
  times.search_s = sim.search_seconds();
  times.wall_s = wall.total();  // all but the renames and this summary
  times.loop = {sim.stepping_seconds(), sim.measuring_seconds(), result.checkpoints_s, result.snapshots_s,
                result.steady_checks_s, result.progress_s};
  summary.times = times;
  summary.elapsed_s = times.loop_s;  // the loop as the user waits for it, measurements and all
  summary.first_step = sim.first_step();
  summary.user_cpu_s = seconds(usage.ru_utime);
  summary.system_cpu_s = seconds(usage.ru_stime);
  const std::vector<double>& av_vels = sim.average_velocities();
  summary.final_average_velocity = av_vels.back();
  summary.steps_run = static_cast<int>(av_vels.size());
  if (steady.active()) summary.steady = SteadyOutcome{steady, steady_check};
  const MeasurementLog& measurements = sim.measurements();
  if (measurements.forces() || measurements.probes())
    summary.measured = measurements.summary(steady_check.steady ? steady.window : 0);
  return summary;
}

// The loop's schedule and hooks: checkpoints, snapshots, steady checks, progress.
RunLoopOptions loop_options(const Options& o, Simulation& sim, Ranks& ranks, ProgressLine& progress,
                            ViewWriter& views, const SteadyRule& steady, SteadyCheck& steady_check) {
  RunLoopOptions loop;
  loop.checkpoint_every = o.checkpoint_every;
  loop.checkpoint_path = checkpoint_path(o);
  loop.progress = &progress;
  loop.ranks = &ranks;
  loop.snapshot_every = o.snapshot_every;
  if (steady.active()) {
    loop.steady_every = steady.every;
    loop.steady = [&sim, &steady, &steady_check](int) {
      steady_check = sim.steady_check(steady);
      return steady_check.steady;
    };
  }
  loop.snapshot = [&sim, &ranks, &views](int step) {
    const std::vector<double> f = sim.distributions();
    ranks.on_root([&] { views.write_snapshot(step, f); });
  };
  return loop;
}

// The outputs, written by every rank (each its own rows' part of
// final_state.dat and of a .pvti) and rank 0 (the rest, final_state.vti from
// the fields it gathers) into `outputs`: every file complete before any
// replaces an older one, and they replace their targets together or not at
// all. Collective.
void add_run_outputs(OutputSet& outputs, Ranks& ranks, const Options& o, const ExtraOutputs& extra,
                     const Simulation& sim, ViewWriter& views, const StateRows& state) {
  const std::vector<double>& av_vels = sim.average_velocities();
  check_final_state(ranks, sim.params(), sim.mask(), state, av_vels.size() - 1);
  ranks.on_root([&] { write_av_vels(outputs.add(o.output_dir + "/" + kAvVelsFile), av_vels); });
  if (!extra.final_state_dat.empty())
    add_final_state(outputs, ranks, extra.final_state_dat, sim.params(), sim.mask(), state);
  views.add_final_outputs(outputs, ranks, state);
  ranks.on_root([&] {
    const auto file = [&](const std::string& path) { return path.empty() ? nullptr : outputs.add(path); };
    sim.measurements().write(file(extra.forces_csv), file(extra.probes_csv), file(extra.nusselt_csv));
  });
}

InterruptedError interrupted_while_writing(int sig, const std::string& output_dir) {
  return InterruptedError(sig, std::string("interrupted by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") +
                                   " while writing the outputs; the previous outputs in " + output_dir +
                                   " are unchanged");
}

// The simulation on every rank, resumed where a checkpoint says; the ranks
// agree on any failure before one of them could wait for another.
std::unique_ptr<Simulation> start_simulation(RunInputs& in, const Options& given, Ranks& ranks) {
  const Options& o = in.o;
  std::unique_ptr<Simulation> sim;
  std::exception_ptr failure;
  try {
    sim = SimulationInternals::on_ranks(std::move(in.problem), simulation_options(o, given), &ranks, o.slab_rows);
    if (o.tune && !o.quiet)
      print_tuning_table(sim->run_info(), SimulationInternals::search_now_table(*sim), sim->launch_reason());
    if (!o.restart_file.empty()) sim->resume(std::move(in.restart), o.restart_file);
  } catch (...) {
    failure = std::current_exception();
  }
  ranks.agree(failure);
  in.restart = Checkpoint();  // not held through the run
  return sim;
}

// --serve's live view, listening: rank 0's alone (it serves a run across
// ranks), agreed on by every rank (a port in use stops them all).
std::unique_ptr<LiveView> serve(const Options& o, Ranks& ranks) {
  if (!o.serve) return nullptr;
  std::unique_ptr<LiveView> live;
  std::exception_ptr failure;
  try {
    if (ranks.is_root()) live = std::make_unique<LiveView>(*o.serve);
  } catch (...) {
    failure = std::current_exception();
  }
  ranks.agree(failure);
  if (live) std::fprintf(stderr, "serving %s\n", live->url().c_str());
  return live;
}

// The outputs replace their targets as one: a signal now waits until they are done.
void commit_with_signals_held(OutputSet& outputs) {
  sigset_t stop, previous;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &stop, &previous);
  try {
    outputs.commit();
  } catch (...) {
    ::sigprocmask(SIG_SETMASK, &previous, nullptr);
    throw;
  }
  ::sigprocmask(SIG_SETMASK, &previous, nullptr);
}

// The loop to its end (or a stop), then this rank's rows of the final
// state; a failure on one rank stops the others, which may be waiting for it.
StateRows run_to_end(Simulation& sim, const RunLoopOptions& loop, const SteadyRule& steady, SteadyCheck& steady_check,
                     Ranks& ranks, RunLoopResult& result, RunTimes& times, Stopwatch& wall) {
  StateRows state;
  try {
    if (ranks.size() > 1 && injected_failure_rank() == ranks.rank())
      throw DeviceError("failure injected by D2Q9_MPI_FAIL_RANK");
    result = run_steps(sim, loop);
    // A run that went to its last step says how far from steady it ended.
    if (steady.active() && !steady_check.steady) {
      Stopwatch check;
      steady_check = sim.steady_check(steady);
      result.steady_checks_s += check.lap();
    }
    times.loop_s = wall.lap();
    state = SimulationInternals::own_rows(sim);
    times.final_state_s = wall.lap();
  } catch (const InstabilityError&) {
    throw;  // every rank holds the same average velocities, so every rank stops alike
  } catch (const InterruptedError&) {
    throw;  // the ranks agreed on the signal
  } catch (const RanksFailure&) {
    throw;
  } catch (...) {
    ranks.abort(std::current_exception());
  }
  return state;
}

}  // namespace

void run(const Options& given, Ranks& ranks) {
  Stopwatch wall;  // the whole run, for the summary
  // Set-up: every rank reads the inputs and builds its part; the ranks agree
  // on any failure before one of them could wait for another.
  RunInputs in;
  std::exception_ptr failure;
  try {
    read_inputs(given, ranks, in);
  } catch (...) {
    failure = std::current_exception();
  }
  ranks.agree(failure);
  const Options& o = in.o;
  const ExtraOutputs& extra = in.extra;
  RunTimes times;
  times.inputs_s = wall.lap();

  const Measurements measure = in.problem.measure;
  const std::vector<std::string> inputs = run_input_files(o, in.problem.read_files);
  // Listening before the kernels are built: a port in use stops the run before any step.
  const std::unique_ptr<LiveView> live = serve(o, ranks);
  const std::unique_ptr<Simulation> sim = start_simulation(in, given, ranks);
  const Params& params = sim->params();
  const ObstacleMask& mask = sim->mask();
  times.setup_s = wall.lap();
  const RunInfo run = sim->run_info();
  times.setup = run.setup;
  const std::vector<std::string> devices = ranks.gather(run.device);
  if (live) live->describe(*sim, checkpoint_path(o), devices_text(devices));

  ProgressLine progress(stderr, params.max_iters, params.cells(), !o.quiet && ranks.is_root());
  ViewWriter views(extra, params, mask);
  const SteadyRule steady = in.until_steady ? steady_rule(*in.until_steady, params.max_iters) : SteadyRule{};
  SteadyCheck steady_check;
  RunLoopOptions loop = loop_options(o, *sim, ranks, progress, views, steady, steady_check);
  loop.live = live.get();
  if (o.checkpoint_every > 0 || o.serve)
    loop.run_record = [&] { return run_record(o, sim->run_info(), in.file_extensions, params.extensions, measure); };
  RunLoopResult result;
  // This rank's rows of the final state: never the whole grid on one rank of several.
  StateRows state = run_to_end(*sim, loop, steady, steady_check, ranks, result, times, wall);
  // A signal while the files are written leaves the previous outputs: the
  // temporaries go with `outputs`, and nothing has replaced anything yet.
  StopSignals signals;
  OutputSet outputs;
  add_run_outputs(outputs, ranks, o, extra, *sim, views, state);
  // From each rank's rows; rank 0's hold the grid's.
  const std::vector<WallHeat> heat_walls = wall_heat(ranks, params, mask, state);
  state = StateRows();
  times.outputs_s = wall.lap();  // formatted and written, not yet in place
  if (const int sig = ranks.max(signals.received())) throw interrupted_while_writing(sig, o.output_dir);

  ranks.on_root([&] {
    RunSummary summary = make_summary(o, *sim, devices, times, result, steady, steady_check, wall);
    summary.heat_walls = heat_walls;
    if (!extra.summary_json.empty()) std::fputs(summary_json(summary).c_str(), outputs.add(extra.summary_json));
    if (const int sig = signals.received()) throw interrupted_while_writing(sig, o.output_dir);
    commit_with_signals_held(outputs);
    remove_stale_outputs(o.output_dir, run_output_files(o, extra), inputs);
    // The outputs now hold the finished run; its checkpoint has no further use.
    if (result.wrote_checkpoint) std::remove(loop.checkpoint_path.c_str());
    if (!o.quiet) print_summary(stdout, summary);
    if (result.stopped_from_page && !o.quiet)
      std::fprintf(stderr, "stopped from the live view after %d of %d steps\n", sim->steps_done(), params.max_iters);
    if (live) live->finish(*sim, result.stopped_from_page ? "stopped" : "finished");
  });
}

int run_program(int argc, const char* const argv[], Ranks& ranks) {
  // A file-size limit (ulimit -f) makes a write fail with EFBIG, which the
  // writers report naming the file, instead of killing the process unseen.
  std::signal(SIGXFSZ, SIG_IGN);
  Options options;
  try {
    options = parse_command_line(argc, argv);  // the same arguments everywhere: every rank agrees
  } catch (const UsageError& e) {
    if (ranks.is_root()) std::fprintf(stderr, "error: %s (see --help)\n", printable(e.what()).c_str());
    return 2;
  }
  try {
    if (options.help || options.version || options.list_devices) {
      if (ranks.is_root() && options.help) std::cout << usage_text(argv[0]);
      if (ranks.is_root() && options.version) std::cout << version_line("d2q9-bgk") << "\n";
      if (ranks.is_root() && options.list_devices) print_devices(stdout);
      return 0;
    }
    run(options, ranks);
    return 0;
  } catch (const std::exception& e) {
    const auto* agreed = dynamic_cast<const RanksFailure*>(&e);
    if (ranks.is_root() && !(agreed && agreed->silent())) std::fprintf(stderr, "error: %s\n", printable(e.what()).c_str());
    return exit_status(e);
  }
}

}  // namespace d2q9
