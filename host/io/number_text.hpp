// Numbers as the coursework's printf formats write them, without printf:
// std::to_chars is exact like glibc's printf and several times faster, which
// matters for final_state.dat (four values a cell).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace d2q9 {

// printf("%.12E", x) into `out` (at least kMaxE12Chars bytes); returns the end.
constexpr std::size_t kMaxE12Chars = 32;
char* format_e12(char* out, double x);

// printf("%d", x) into `out` (at least 12 bytes); returns the end.
char* format_int(char* out, int x);

// Sixteen lower-case hex digits, as hashes are written in records and file names.
std::string hex64(std::uint64_t v);

// Rows [0, rows) of a text file written to `out` in order, formatted `band`
// rows at a time by several threads at once: formatting, not the disk, set
// the pace of large outputs, and no whole file's text is held at once.
// format(text, first, end) appends rows [first, end) to `text`. False on a
// short write (the file's error flag says why).
bool write_rows_in_bands(std::FILE* out, std::size_t rows, std::size_t band,
                         const std::function<void(std::string&, std::size_t, std::size_t)>& format);

}  // namespace d2q9
