// libFuzzer target: parse_command_line on arbitrary arguments (the input split
// at NUL bytes, at most 32 of them).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "fuzz_check.hpp"

using namespace d2q9;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"d2q9-bgk"};
  std::string current;
  for (std::size_t i = 0; i < size && args.size() < 32; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  if (!current.empty() && args.size() < 32) args.push_back(current);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  try {
    const Options o = parse_command_line(static_cast<int>(args.size()), argv.data());
    if (!o.help && !o.list_devices) {
      fuzz::require(std::string(to_string(o.backend)) != "?", "accepted an unknown backend");
      fuzz::require(o.device >= -1, "accepted a negative device");
      fuzz::require(o.local_size.is_auto() || (o.local_size.x >= 1 && o.local_size.y >= 1), "accepted an empty local size");
      fuzz::require(o.checkpoint_every >= 0, "accepted a negative checkpoint interval");
    }
  } catch (const UsageError& e) {
    fuzz::require(std::string(e.what()).find('\n') == std::string::npos, "usage error is not one line");
  }
  return 0;
}
