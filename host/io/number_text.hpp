// Numbers as the coursework's printf formats write them, without printf:
// std::to_chars is exact like glibc's printf and several times faster, which
// matters for final_state.dat (four values a cell).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace d2q9 {

// printf("%.12E", x) into `out` (at least kMaxE12Chars bytes); returns the end.
constexpr std::size_t kMaxE12Chars = 32;
char* format_e12(char* out, double x);

// printf("%d", x) into `out` (at least 12 bytes); returns the end.
char* format_int(char* out, int x);

// Sixteen lower-case hex digits, as hashes are written in records and file names.
std::string hex64(std::uint64_t v);

}  // namespace d2q9
