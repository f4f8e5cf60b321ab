// The reference's entry in the registry of backends: a serial solver, no devices.
#include "reference/reference_solver.hpp"

namespace d2q9 {

namespace {

std::unique_ptr<Solver> make_reference_solver(const Params& params, const ObstacleMask& mask, Precision precision) {
  if (precision == Precision::Double) return std::make_unique<ReferenceSolver<double>>(params, mask);
  if (is_16bit(precision)) return std::make_unique<ReferenceSolver<float>>(params, mask, precision);
  return std::make_unique<ReferenceSolver<float>>(params, mask);
}

DeviceDescription describe_reference(int) {
  DeviceDescription d;
  d.name = "serial CPU reference";
  return d;
}

}  // namespace

const BackendEntry& reference_backend_entry() {
  static const BackendEntry entry{Backend::Reference, make_reference_solver, nullptr, nullptr, describe_reference,
                                  nullptr, nullptr, nullptr};
  return entry;
}

}  // namespace d2q9
