// Spelling suggestions ("did you mean ...?") for mistyped command-line
// options and problem-file tables and keys.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace d2q9 {

// Edits (insert, delete, replace, swap two neighbours) from a to b.
std::size_t edit_distance(const std::string& a, const std::string& b);
// The first of `names` closest to `typed` when it is close enough to be a
// misspelling of it (at most 2 edits, and at most a third of its length),
// else "".
std::string closest_name(const std::string& typed, const std::vector<std::string>& names);

}  // namespace d2q9
