#include "device/tuning.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "model/output.hpp"

namespace d2q9 {

namespace {

std::string cache_dir() {
  if (const char* d = std::getenv("D2Q9_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/d2q9-bgk";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/d2q9-bgk";
  return "";
}

// A damaged or unreadable cache is only a lost optimisation: it is reported
// once and read as empty (a later search result replaces a damaged file).
nlohmann::json read_cache() {
  static bool warned = false;
  const std::string path = tuning_cache_path();
  std::string problem;
  nlohmann::json j;
  try {
    std::ifstream in(path);
    if (!in) return nlohmann::json::object();
    j = nlohmann::json::parse(in, nullptr, false);
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

std::string tuning_key(Backend backend, const std::string& device, const Params& params, Precision precision,
                       KernelVariant variant, int rows_per_item_requested) {
  return std::string(to_string(backend)) + "|" + device + "|" + std::to_string(params.nx) + "x" +
         std::to_string(params.ny) + "|" + to_string(precision) + "|" + to_string(variant) +
         (rows_per_item_requested > 0 ? "-r" + std::to_string(rows_per_item_requested) : "");
}

std::string tuning_cache_path() {
  const std::string dir = cache_dir();
  return dir.empty() ? "" : dir + "/tuning.json";
}

std::optional<LocalSize> load_tuned_local_size(const std::string& key) {
  const nlohmann::json cache = read_cache();
  const auto it = cache.find(key);
  if (it == cache.end() || !it->is_object() || !it->contains("x") || !it->contains("y")) return std::nullopt;
  const auto& e = *it;
  if (!e["x"].is_number_integer() || !e["y"].is_number_integer()) return std::nullopt;
  const LocalSize l{e["x"].get<int>(), e["y"].get<int>()};
  if (l.x < 1 || l.y < 1) return std::nullopt;
  return l;
}

void store_tuned_local_size(const std::string& key, LocalSize local, double seconds_per_step) {
  const std::string dir = cache_dir();
  if (dir.empty()) return;
  // mkdir -p, one level at a time.
  for (std::size_t pos = 1; pos != std::string::npos;) {
    pos = dir.find('/', pos + 1);
    ::mkdir(dir.substr(0, pos).c_str(), 0755);
  }
  nlohmann::json cache = read_cache();
  cache[key] = {{"x", local.x}, {"y", local.y}, {"us_per_step", seconds_per_step * 1e6}};
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

std::vector<TuningResult> tune_local_size(const SolverFactory& make, const Params& params,
                                          const std::vector<LocalSize>& candidates) {
  std::vector<TuningResult> results;
  std::vector<double> av;
  for (const LocalSize& l : candidates) {
    TuningResult r{l, -1.0, ""};
    try {
      auto solver = make(l);
      solver->run(3, av);  // warm-up: first launches, caches
      // Enough steps for ~30 ms, judged from a first short timing.
      auto t0 = std::chrono::steady_clock::now();
      int steps = 10;
      solver->run(steps, av);
      double t = seconds_since(t0);
      steps = static_cast<int>(std::clamp(0.03 / std::max(t / steps, 1e-9), 10.0, 20000.0));
      t0 = std::chrono::steady_clock::now();
      solver->run(steps, av);
      r.seconds_per_step = seconds_since(t0) / steps;
      av.clear();
    } catch (const DeviceError& e) {
      r.note = e.what();
    }
    results.push_back(r);
  }
  (void)params;
  return results;
}

LocalSizeChoice choose_local_size(const SolverFactory& make, const Params& params, LocalSize requested,
                                  bool force_search, const LaunchPlan& default_plan, const std::string& key) {
  LocalSizeChoice choice;
  if (!requested.is_auto()) {
    choice.solver = make(requested);
    choice.how = ShapeChoice::Given;
    return choice;
  }
  if (!force_search) {
    if (auto cached = load_tuned_local_size(key)) {
      try {
        choice.solver = make(*cached);
        choice.how = ShapeChoice::Cached;
        return choice;
      } catch (const DeviceError&) {
        // A stale entry (e.g. a changed driver limit): search again.
      }
    }
    // A row per work-item (CPU devices) has no shape to search; --tune times
    // the shapes of the one-cell-per-item kernel, and its choice is used then.
    if (default_plan.variant == KernelVariant::FusedRows ||
        static_cast<double>(params.cells()) * params.max_iters < kTuneMinCellUpdates) {
      choice.solver = make(LocalSize{});
      choice.how = ShapeChoice::Default;
      return choice;
    }
  }
  choice.table = tune_local_size(make, params, local_size_candidates(params));
  const TuningResult* best = nullptr;
  for (const auto& r : choice.table)
    if (r.seconds_per_step > 0 && (!best || r.seconds_per_step < best->seconds_per_step)) best = &r;
  const LocalSize chosen = best ? best->local : default_plan.local;
  if (best) store_tuned_local_size(key, chosen, best->seconds_per_step);
  choice.solver = make(chosen);
  choice.how = ShapeChoice::Tuned;
  return choice;
}

}  // namespace d2q9
