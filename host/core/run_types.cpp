#include "core/run_types.hpp"

#include <stdexcept>
#include <vector>

namespace d2q9 {

const char* to_string(Backend b) {
  switch (b) {
    case Backend::Reference: return "reference";
    case Backend::OpenCL: return "opencl";
    case Backend::Cuda: return "cuda";
  }
  return "?";
}

std::optional<Backend> parse_backend(const std::string& text) {
  for (Backend b : kBackends)
    if (text == to_string(b)) return b;
  return std::nullopt;
}

std::string backend_names(bool devices_only) {
  std::vector<std::string> names;
  for (Backend b : kBackends)
    if (!devices_only || b != Backend::Reference) names.push_back(to_string(b));
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

const char* to_string(KernelVariant v) {
  switch (v) {
    case KernelVariant::Auto: return "auto";
    case KernelVariant::Split: return "split";
    case KernelVariant::Fused: return "fused";
    case KernelVariant::FusedRows: return "fused-rows";
    case KernelVariant::Blocked: return "blocked";
  }
  return "?";
}

KernelVariant parse_kernel_variant(const std::string& text) {
  for (KernelVariant v : {KernelVariant::Auto, KernelVariant::Split, KernelVariant::Fused, KernelVariant::FusedRows,
                          KernelVariant::Blocked})
    if (text == to_string(v)) return v;
  throw std::invalid_argument("--kernel-variant must be auto, split, fused, fused-rows or blocked, got '" +
                              text + "'");
}

}  // namespace d2q9
