#include "device/solver.hpp"

#include <algorithm>
#include <cstring>
#include <thread>

#include "problem/stability.hpp"
#include "problem/storage16.hpp"

namespace d2q9 {

std::string backend_choices(bool reference) {
  std::string text;
  for (Backend b : kBackends) {
    if (b == Backend::Reference && !reference) continue;
    text += std::string(text.empty() ? "" : " | ") + to_string(b);
    if (b == Backend::Cuda) text += " (NVIDIA GPUs, when built)";
    if (b == Backend::Reference) text += " (serial CPU oracle)";
  }
  return text;
}

std::vector<double> Solver::cell_distributions(const std::vector<std::size_t>& cells) {
  const std::vector<double> f = distributions();
  if (f.empty()) return {};
  const int per_cell = values_per_cell();
  const std::size_t n = f.size() / per_cell;
  std::vector<double> out;
  for (std::size_t c : cells)
    for (int k = 0; k < per_cell; ++k) out.push_back(f[k * n + c]);
  return out;
}

void append_cells_from_device(const unsigned char* raw, std::size_t cells, int planes, Precision precision,
                              const Params& lattice, std::vector<double>& out) {
  const std::vector<double> values = from_device_reals(raw, planes * cells, precision, lattice);
  const std::size_t first = out.size();
  out.resize(first + values.size());
  for (std::size_t c = 0; c < cells; ++c)
    for (int k = 0; k < planes; ++k) out[first + c * planes + k] = values[k * cells + c];
}

std::vector<double> cells_from_device(const std::vector<unsigned char>& raw, std::size_t cells, int planes,
                                      Precision precision, const Params& lattice) {
  std::vector<double> out;
  append_cells_from_device(raw.data(), cells, planes, precision, lattice, out);
  return out;
}

void append_average_velocities(const void* partials, Precision precision, int steps, int num_groups,
                               std::size_t fluid_cells, std::vector<double>& av_vels, int sums_per_group,
                               std::vector<double>* body_forces) {
  const auto value = [&](std::size_t i) {
    return precision == Precision::Double ? static_cast<const double*>(partials)[i]
                                          : static_cast<const float*>(partials)[i];
  };
  for (int t = 0; t < steps; ++t) {
    const std::size_t row = static_cast<std::size_t>(t) * num_groups * sums_per_group;
    double sum = 0.0;
    for (int g = 0; g < num_groups; ++g) sum += value(row + static_cast<std::size_t>(g) * sums_per_group);
    av_vels.push_back(sum / static_cast<double>(fluid_cells));
    check_average_velocity(av_vels.back(), av_vels.size() - 1);
    if (!body_forces) continue;
    for (int q = 1; q < sums_per_group; ++q) {
      double force = 0.0;
      for (int g = 0; g < num_groups; ++g) force += value(row + static_cast<std::size_t>(g) * sums_per_group + q);
      body_forces->push_back(force);
    }
  }
}

std::vector<unsigned char> to_device_reals(const std::vector<double>& f, Precision precision, const Params& lattice) {
  std::vector<unsigned char> out(f.size() * stored_size(precision));
  if (precision == Precision::Double) {
    std::memcpy(out.data(), f.data(), out.size());
  } else if (is_16bit(precision)) {
    Storage16(precision, lattice).encode_planes(f.data(), f.size(), reinterpret_cast<std::uint16_t*>(out.data()));
  } else {
    float* p = reinterpret_cast<float*>(out.data());
    for (std::size_t i = 0; i < f.size(); ++i) p[i] = static_cast<float>(f[i]);
  }
  return out;
}

std::vector<double> from_device_reals(const void* reals, std::size_t count, Precision precision, const Params& lattice) {
  std::vector<double> f(count);
  // A large lattice (a 4000x2400 grid's 86 million values) converts in
  // pieces on several threads: each value alone, so the bytes are the same.
  const auto convert = [&](std::size_t first, std::size_t n) {
    if (precision == Precision::Double) {
      std::memcpy(f.data() + first, static_cast<const double*>(reals) + first, n * sizeof(double));
    } else if (is_16bit(precision)) {
      // Value i is plane i / plane's (decode_planes' rule, over a piece).
      const Storage16 storage(precision, lattice);
      const std::uint16_t* codes = static_cast<const std::uint16_t*>(reals);
      const std::size_t plane = count / storage.planes();
      for (std::size_t i = first; i < first + n; ++i) f[i] = storage.decode(static_cast<int>(i / plane), codes[i]);
    } else {
      const float* p = static_cast<const float*>(reals) + first;
      for (std::size_t i = 0; i < n; ++i) f[first + i] = p[i];
    }
  };
  constexpr std::size_t kPiece = std::size_t{1} << 22;
  if (count <= kPiece) {  // (hardware_concurrency reads a file: not per small read)
    convert(0, count);
    return f;
  }
  const std::size_t threads = std::min<std::size_t>({std::max(1u, std::thread::hardware_concurrency()), 16,
                                                     (count + kPiece - 1) / kPiece});
  if (threads <= 1) {
    convert(0, count);
    return f;
  }
  std::vector<std::thread> workers;
  const std::size_t each = (count + threads - 1) / threads;
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t first = t * each;
    if (first < count) workers.emplace_back(convert, first, std::min(each, count - first));
  }
  for (std::thread& w : workers) w.join();
  return f;
}

}  // namespace d2q9
