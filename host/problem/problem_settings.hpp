// The settings that define a problem besides the grid, the flow's seven
// coursework values and the obstacle mask (all three in a checkpoint's
// header), and what it measures: declared here once. Checkpoints record them by name and a
// restart compares them by name, so a mismatch names the setting.
// A new field of Extensions or Measurements registers here; a problem-file
// key that changes neither is refused by tests/test_restart_settings.cpp.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "problem/problem.hpp"

namespace d2q9 {

struct ProblemSetting {
  const char* name;  // as the problem file (or --collision) names it
  std::string (*value)(const Extensions&, const Measurements&);  // exact text: equal texts, same run
};

const std::vector<ProblemSetting>& problem_settings();

using SettingValues = std::vector<std::pair<std::string, std::string>>;

// (name, value) of every setting, in problem_settings()'s order.
SettingValues problem_setting_values(const Extensions& e, const Measurements& m);

// The first setting whose value differs between `recorded` and `given`, as
// "name = recorded" and "name = given"; none when all agree. A setting a
// record lacks is compared with its value in a problem without it.
struct SettingMismatch {
  std::string name, recorded, given;
};
std::optional<SettingMismatch> first_setting_mismatch(const SettingValues& recorded, const Extensions& e,
                                                      const Measurements& m);

}  // namespace d2q9
