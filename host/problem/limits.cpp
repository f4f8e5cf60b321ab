#include "problem/limits.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/shortest_text.hpp"


namespace d2q9 {

namespace {

std::string printable_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::uint64_t host_bytes_needed(const Params& params, bool reference_backend, Precision precision, bool checkpointing) {
  const std::uint64_t cells = params.cells();
  const std::uint64_t real = real_size(precision);
  const std::uint64_t values = static_cast<std::uint64_t>(params.extensions.planes()) * cells;
  std::uint64_t bytes = values * (sizeof(double) + real) + cells;
  if (reference_backend) bytes += 2 * values * real;
  bytes += static_cast<std::uint64_t>(params.max_iters) * sizeof(double) * (checkpointing ? 2 : 1);
  return bytes;
}

std::vector<LimitedValue> values_the_kernels_compute_with(const Params& params) {
  const Extensions& e = params.extensions;
  std::vector<LimitedValue> values = {{"density", params.density}, {"accel", params.accel}, {"omega", params.omega}};
  const auto add_vec = [&](const std::string& name, const Vec2& v) {
    values.push_back({name + "[0]", v.x});
    values.push_back({name + "[1]", v.y});
  };
  for (const Vec2& v : e.wall_velocities) add_vec("wall_velocity", v);
  for (const Extensions::Rotation& r : e.wall_rotations) values.push_back({"angular_velocity", r.omega});
  add_vec("body_force", e.body_force);
  for (const OpenBoundary& b : e.open_boundaries) {
    if (b.inlet()) add_vec("inlet_velocity", b.velocity);
    if (!b.inlet()) values.push_back({"outlet_density", b.density});
  }
  if (e.collision == CollisionOperator::Trt) values.push_back({"magic", e.trt_magic});
  if (e.smagorinsky != 0.0) values.push_back({"smagorinsky", e.smagorinsky});
  return values;
}

void check_params_fit_precision(const Params& params, Precision precision, const std::string& param_file) {
  if (precision != Precision::Double) {
    // float computes every precision but double (fp16s and fp16c store 16 bits, compute in float).
    const double largest = std::numeric_limits<float>::max(), smallest = std::numeric_limits<float>::min();
    const std::string range = "nonzero magnitudes from " + printable_number(smallest) + " to " + printable_number(largest);
    for (const auto& v : values_the_kernels_compute_with(params)) {
      const double size = std::fabs(v.value);
      if (size > largest)
        throw InputError(param_file + ": " + v.name + " " + printable_number(v.value) + " is too large for precision " +
                         to_string(precision) + " (at most " + printable_number(largest) + "); use precision double");
      if (size > 0.0 && size < smallest)
        throw InputError(param_file + ": " + v.name + " " + printable_number(v.value) + " is too small for precision " +
                         to_string(precision) + " (float holds " + range + "; it would be 0 or lose its precision)" +
                         (v.name == "omega" ? ": a viscosity this large leaves no collision" : "") +
                         "; use precision double");
    }
  }
  if (const std::string why = smagorinsky_problem(params.extensions.smagorinsky); !why.empty())
    throw InputError(param_file + ": smagorinsky = " + shortest_text(params.extensions.smagorinsky) + " " + why);
  // The kernels relax with omega as their arithmetic holds it: 2 there is no collision at all.
  const double held = precision == Precision::Double ? params.omega : static_cast<double>(static_cast<float>(params.omega));
  if (!(held > 0.0 && held < 2.0))
    throw InputError(param_file + ": omega " + shortest_text(params.omega) + " is " + shortest_text(held) +
                     " in precision " + to_string(precision) + ", outside (0, 2); lower it" +
                     (precision == Precision::Double ? "" : " or use precision double"));
}

std::uint64_t host_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : UINT64_MAX;
}

void check_host_memory(const Params& params, bool reference_backend, Precision precision, bool checkpointing,
                       std::uint64_t available) {
  const std::uint64_t needed = host_bytes_needed(params, reference_backend, precision, checkpointing);
  if (needed <= available) return;
  throw DeviceError("grid " + std::to_string(params.nx) + "x" + std::to_string(params.ny) + " needs " +
                    std::to_string(needed >> 20) + " MiB of host memory (with " + std::to_string(params.max_iters) +
                    " steps) but this machine has " + std::to_string(available >> 20) +
                    " MiB: out of memory");
}

}  // namespace d2q9
