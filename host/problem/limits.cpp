#include "problem/limits.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>
#include <vector>


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
  const std::uint64_t values = kSpeeds * cells;
  std::uint64_t bytes = values * (sizeof(double) + real) + cells;
  if (reference_backend) bytes += 2 * values * real;
  bytes += static_cast<std::uint64_t>(params.max_iters) * sizeof(double) * (checkpointing ? 2 : 1);
  return bytes;
}

void check_params_fit_precision(const Params& params, Precision precision, const std::string& param_file) {
  if (precision == Precision::Double) return;
  // float computes every precision but double (fp16s and fp16c store 16 bits, compute in float).
  const double largest = std::numeric_limits<float>::max(), smallest = std::numeric_limits<float>::min();
  const Extensions& e = params.extensions;
  struct Value {
    std::string name;
    double value;
  };
  std::vector<Value> values = {{"density", params.density}, {"accel", params.accel}, {"omega", params.omega}};
  if (e.any()) {  // a problem file: its keys' names
    values = {{"density", params.density}, {"omega", params.omega}};
    for (const auto& [name, v] : {std::pair<const char*, Vec2>{"wall_velocity", e.wall_velocity}, {"body_force", e.body_force}}) {
      values.push_back({std::string(name) + "[0]", v.x});
      values.push_back({std::string(name) + "[1]", v.y});
    }
    if (e.inlet_velocity) {
      values.push_back({"inlet_velocity[0]", e.inlet_velocity->x});
      values.push_back({"inlet_velocity[1]", e.inlet_velocity->y});
    }
    if (e.outlet_density) values.push_back({"outlet_density", *e.outlet_density});
    if (e.collision == CollisionOperator::Trt) values.push_back({"magic", e.trt_magic});
  }
  const std::string range = "nonzero magnitudes from " + printable_number(smallest) + " to " + printable_number(largest);
  for (const auto& v : values) {
    const double size = std::fabs(v.value);
    if (size > largest)
      throw InputError(param_file + ": " + v.name + " " + printable_number(v.value) + " is too large for --precision " +
                       to_string(precision) + " (at most " + printable_number(largest) + "); use --precision double");
    if (size > 0.0 && size < smallest)
      throw InputError(param_file + ": " + v.name + " " + printable_number(v.value) + " is too small for --precision " +
                       to_string(precision) + " (float holds " + range + "; it would be 0 or lose its precision)" +
                       (v.name == "omega" ? ": a viscosity this large leaves no collision" : "") +
                       "; use --precision double");
  }
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

void check_problem_fits(const Params& params, bool reference_backend, Precision precision, bool checkpointing) {
  check_host_memory(params, reference_backend, precision, checkpointing);
}

}  // namespace d2q9
