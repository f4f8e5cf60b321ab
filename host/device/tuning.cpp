#include "device/tuning.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "device/kernel_cache.hpp"
#include "io/output.hpp"

namespace d2q9 {

namespace {

// A damaged or unreadable cache is only a lost optimisation: it is reported
// once and read as empty (a later search result replaces a damaged file).
nlohmann::json read_cache() {
  static bool warned = false;
  const std::string path = tuning_cache_path();
  std::string problem;
  nlohmann::json j;
  if (path.empty()) return nlohmann::json::object();
  try {
    const std::optional<std::string> text = read_cache_entry(path, std::size_t(16) << 20, "tuning cache", "ignored");
    if (!text) return nlohmann::json::object();
    j = nlohmann::json::parse(*text, nullptr, false);
    if (!j.is_object()) problem = "not a JSON object";
  } catch (const std::exception& e) {
    problem = e.what();
  }
  if (problem.empty()) return j;
  if (!warned) std::fprintf(stderr, "warning: tuning cache %s is damaged (%s): ignored\n", path.c_str(), problem.c_str());
  warned = true;
  return nlohmann::json::object();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

namespace {

// What of a problem compiles other kernels (and so may run at another
// speed): empty for the coursework's problems.
std::string kernel_kind(const Extensions& e) {
  std::string kind;
  auto add = [&](const std::string& part) { kind += (kind.empty() ? "" : ",") + part; };
  if (e.collision != CollisionOperator::Bgk) add(to_string(e.collision));
  if (e.subgrid()) add("smagorinsky");
  if (e.forced()) add("forced");
  if (e.moving_walls()) add("moving-walls");
  // The first problems' words for a left inlet and a right outlet, which
  // keep their cached launches; an edge's own otherwise.
  const auto add_open = [&](bool inlets) {
    for (const OpenBoundary& b : e.open_boundaries) {
      if (b.inlet() != inlets) continue;
      const bool first_kind = b.edge == (inlets ? Edge::Left : Edge::Right);
      const std::string where = first_kind ? "" : std::string(to_string(b.edge)) + "-";
      add(where + (b.inlet() ? (b.parabolic ? "parabolic-inlet" : "inlet") : "outlet"));
    }
  };
  add_open(true);
  if (e.inlet_ramp_steps > 0) add("ramp");
  add_open(false);
  if (e.sponges()) add("sponge");
  if (e.free_slip) add("free-slip");
  if (e.measured_bodies > 0) add("bodies=" + std::to_string(e.measured_bodies));
  if (e.curved_walls) add("curved");
  return kind;
}

}  // namespace

std::string tuning_key(Backend backend, const std::string& device, const Params& params, Precision precision,
                       const LaunchRequest& request) {
  const std::string kind = kernel_kind(params.extensions);
  return std::string(to_string(backend)) + "|" + device + "|" + std::to_string(params.nx) + "x" +
         std::to_string(params.ny) + "|" + to_string(precision) + "|" + to_string(request.variant) +
         (request.rows_per_item > 0 ? "-r" + std::to_string(request.rows_per_item) : "") +
         (request.block_steps > 0 ? "-k" + std::to_string(request.block_steps) : "") +
         (request.tile.is_auto() ? "" : "-t" + request.tile.text()) + (kind.empty() ? "" : "|" + kind);
}

std::string tuning_cache_path() {
  const std::string dir = cache_dir();
  return dir.empty() ? "" : dir + "/tuning.json";
}

std::optional<LaunchCandidate> load_tuned_launch(const std::string& key) {
  const nlohmann::json cache = read_cache();
  const auto it = cache.find(key);
  if (it == cache.end() || !it->is_object()) return std::nullopt;
  const auto& e = *it;
  LaunchCandidate launch;
  try {
    launch.variant = parse_kernel_variant(e.at("variant").get<std::string>());
    launch.local = {e.at("x").get<int>(), e.at("y").get<int>()};
  } catch (const std::exception&) {
    return std::nullopt;  // an entry of an older version, or edited by hand: search again
  }
  if (launch.variant == KernelVariant::Auto || launch.local.x < 0 || launch.local.y < 0 ||
      launch.local.is_auto() != (launch.variant == KernelVariant::FusedRows))
    return std::nullopt;
  return launch;
}

void store_tuned_launch(const std::string& key, const LaunchCandidate& launch, double seconds_per_step) {
  if (made_cache_dir().empty()) return;
  // Runs tuning at once each add their entry: the read, the merge and the
  // rename are one, under a lock on a file beside the cache (never renamed).
  const std::string lock_path = tuning_cache_path() + ".lock";
  const int lock = ::open(lock_path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (lock >= 0) ::flock(lock, LOCK_EX);
  struct Unlock {
    int fd;
    ~Unlock() {
      if (fd >= 0) ::close(fd);
    }
  } unlock{lock};
  nlohmann::json cache = read_cache();
  cache[key] = {{"variant", to_string(launch.variant)},
                {"x", launch.local.x},
                {"y", launch.local.y},
                {"us_per_step", seconds_per_step * 1e6}};
  try {
    AtomicFile out(tuning_cache_path());
    const std::string text = cache.dump(2) + "\n";
    std::fputs(text.c_str(), out.get());
    out.commit();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warning: tuning result not cached: %s\n", e.what());
  }
}

std::vector<LocalSize> local_size_candidates(const Params& params) {
  const std::vector<LocalSize> all = {{32, 1},  {64, 1}, {128, 1}, {256, 1}, {512, 1}, {1024, 1},
                                      {32, 2},  {32, 4}, {64, 2},  {64, 4},  {128, 2}, {16, 16}};
  std::vector<LocalSize> out;
  for (const LocalSize& l : all)
    if (l.x <= std::max(32, params.nx) && l.y <= params.ny) out.push_back(l);
  return out;
}

double time_steps(Solver& solver) {
  std::vector<double> av;
  solver.run(3, av);  // warm-up: first launches, caches
  // Enough steps for ~30 ms, judged from a first short timing.
  auto t0 = std::chrono::steady_clock::now();
  int steps = 10;
  solver.run(steps, av);
  const double t = seconds_since(t0);
  steps = static_cast<int>(std::clamp(0.03 / std::max(t / steps, 1e-9), 10.0, 20000.0));
  t0 = std::chrono::steady_clock::now();
  solver.run(steps, av);
  return seconds_since(t0) / steps;
}

std::vector<TuningResult> time_launches(const SolverFactory& make, const std::vector<LaunchCandidate>& candidates,
                                        const StepTimer& timer) {
  std::vector<TuningResult> results;
  for (const LaunchCandidate& launch : candidates) {
    TuningResult r{launch, -1.0, ""};
    try {
      r.seconds_per_step = timer(*make(launch));
    } catch (const DeviceError& e) {
      r.note = e.what();
    }
    results.push_back(r);
  }
  return results;
}

namespace {

const TuningResult* fastest(const std::vector<TuningResult>& table) {
  const TuningResult* best = nullptr;
  for (const auto& r : table)
    if (r.seconds_per_step > 0 && (!best || r.seconds_per_step < best->seconds_per_step)) best = &r;
  return best;
}

bool same(const LaunchCandidate& a, const LaunchCandidate& b) {
  return a.variant == b.variant && a.local.x == b.local.x && a.local.y == b.local.y;
}

// The variant whose shapes a search tries: the default's, or fused where the
// default (fused-rows) takes none; Auto when the user named fused-rows.
KernelVariant shaped_variant(const LaunchSearch& search) {
  const KernelVariant v =
      search.default_launch.variant != KernelVariant::FusedRows ? search.default_launch.variant : KernelVariant::Fused;
  return std::find(search.variants.begin(), search.variants.end(), v) != search.variants.end() ? v : KernelVariant::Auto;
}

// Every candidate shape of shaped_variant() but the default's own.
std::vector<LaunchCandidate> other_shapes(const Params& params, const LaunchSearch& search) {
  std::vector<LaunchCandidate> out;
  const KernelVariant shaped = shaped_variant(search);
  if (shaped != KernelVariant::Auto)
    for (const LocalSize& l : local_size_candidates(params))
      if (!same({shaped, l}, search.default_launch)) out.push_back({shaped, l});
  return out;
}

// The variants a search tries besides the default's and shaped_variant(),
// at `shape` (fused-rows at none; the shaped ones not at all without a shape).
std::vector<LaunchCandidate> other_variants(const LaunchSearch& search, LocalSize shape) {
  std::vector<LaunchCandidate> out;
  for (KernelVariant v : search.variants) {
    if (v == shaped_variant(search) || v == search.default_launch.variant) continue;
    if (v == KernelVariant::FusedRows)
      out.push_back({v, {}});
    else if (!shape.is_auto())
      out.push_back({v, shape});
  }
  return out;
}

// The default first, then the shapes of one variant, then the other
// variants at the fastest of those shapes.
std::vector<TuningResult> search_launches(const SolverFactory& make, const Params& params, const LaunchSearch& search) {
  std::vector<TuningResult> table = time_launches(make, {search.default_launch}, search.timer);
  for (auto& r : time_launches(make, other_shapes(params, search), search.timer)) table.push_back(std::move(r));
  std::vector<TuningResult> shaped_results;
  for (const auto& r : table)
    if (!r.launch.local.is_auto()) shaped_results.push_back(r);
  const TuningResult* best_shape = fastest(shaped_results);
  const LocalSize shape = best_shape ? best_shape->launch.local : LocalSize{};
  for (auto& r : time_launches(make, other_variants(search, shape), search.timer)) table.push_back(std::move(r));
  return table;
}

}  // namespace

LaunchChoice choose_launch(const SolverFactory& make, const Params& params, bool force_search,
                           const LaunchSearch& search) {
  LaunchChoice choice;
  if (!force_search) {
    choice.solver = make(search.default_launch);
    choice.how = LaunchSource::Default;
    choice.reason = search.default_reason;
    return choice;
  }
  choice.table = search_launches(make, params, search);
  const TuningResult* best = fastest(choice.table);
  double default_s = choice.table.front().seconds_per_step;
  double best_s = best ? best->seconds_per_step : -1.0;
  if (best && default_s > 0 && !same(best->launch, search.default_launch)) {
    // The default is timed first, possibly before the device has reached its
    // clocks: time both again, alternately, and judge by each one's best.
    for (int round = 0; round < 2; ++round) {
      const auto again = time_launches(make, {search.default_launch, best->launch}, search.timer);
      if (again[0].seconds_per_step > 0) default_s = std::min(default_s, again[0].seconds_per_step);
      if (again[1].seconds_per_step > 0) best_s = std::min(best_s, again[1].seconds_per_step);
    }
  }
  LaunchCandidate chosen = search.default_launch;
  if (best && (default_s <= 0 || best_s < (1.0 - kTuneMargin) * default_s)) {
    chosen = best->launch;
    choice.reason = chosen.text() + ": the fastest of " + std::to_string(choice.table.size()) + " launches timed now, cached";
  } else {
    choice.reason = search.default_reason + " (none of " + std::to_string(choice.table.size()) +
                    " launches timed now was faster by " + std::to_string(static_cast<int>(kTuneMargin * 100)) +
                    "%; cached)";
  }
  if (best) store_tuned_launch(search.key, chosen, same(chosen, search.default_launch) ? default_s : best_s);
  choice.solver = make(chosen);
  choice.how = LaunchSource::Tuned;
  return choice;
}

std::vector<LaunchCandidate> run_search_candidates(const Params& params, const LaunchSearch& search) {
  // The other variants at the default's shape: no time is spent finding the best one first.
  const LocalSize& d = search.default_launch.local;
  std::vector<LaunchCandidate> out = other_shapes(params, search);
  for (const LaunchCandidate& c : other_variants(search, d.is_auto() ? LocalSize{128, 1} : d)) out.push_back(c);
  return out;
}

}  // namespace d2q9
