#include "opencl/device_table.hpp"

#include <algorithm>

namespace d2q9 {

std::string device_table(const std::vector<OpenCLDeviceInfo>& devices, int default_index) {
  std::vector<std::vector<std::string>> rows = {
      {"#", "type", "compute units", "memory", "fp64", "device", "platform"}};
  for (const auto& d : devices) {
    char memory[32];
    std::snprintf(memory, sizeof memory, "%.1f GiB", d.global_mem_bytes / 1073741824.0);
    rows.push_back({std::to_string(d.index) + (d.index == default_index ? "*" : ""), d.type,
                    std::to_string(d.compute_units), memory, d.has_fp64 ? "yes" : "no", d.name, d.platform});
  }
  std::vector<std::size_t> width(rows[0].size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  // Numbers right-aligned, text left-aligned; the last column is not padded.
  const bool right[] = {true, false, true, true, false, false, false};
  std::string out;
  for (const auto& row : rows) {
    std::string line = " ";
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(width[c] - row[c].size(), ' ');
      line += ' ';
      if (c + 1 == row.size()) line += row[c];
      else line += right[c] ? pad + row[c] : row[c] + pad;
      if (c + 1 < row.size()) line += ' ';
    }
    out += line + "\n";
  }
  out += "  (* the default device: the first GPU, else the first device)\n";
  return out;
}

}  // namespace d2q9
