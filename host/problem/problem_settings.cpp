#include "problem/problem_settings.hpp"

#include "core/shortest_text.hpp"

namespace d2q9 {

namespace {

std::string vec(Vec2 v) { return "[" + shortest_text(v.x) + ", " + shortest_text(v.y) + "]"; }
std::string none_or(const std::optional<std::string>& s) { return s ? *s : "none"; }

const std::vector<ProblemSetting> kSettings = {
    {"wall_velocity", [](const Extensions& e, const Measurements&) { return vec(e.wall_velocity); }},
    {"body_force", [](const Extensions& e, const Measurements&) { return vec(e.body_force); }},
    {"inlet_velocity",
     [](const Extensions& e, const Measurements&) { return none_or(e.inlet_velocity ? std::optional(vec(*e.inlet_velocity)) : std::nullopt); }},
    {"parabolic", [](const Extensions& e, const Measurements&) { return std::string(e.inlet_parabolic ? "true" : "false"); }},
    {"inlet_ramp", [](const Extensions& e, const Measurements&) { return std::to_string(e.inlet_ramp_steps); }},
    {"outlet_density",
     [](const Extensions& e, const Measurements&) { return none_or(e.outlet_density ? std::optional(shortest_text(*e.outlet_density)) : std::nullopt); }},
    {"sponge",
     [](const Extensions& e, const Measurements&) {
       return "left " + std::to_string(e.sponge_left) + ", right " + std::to_string(e.sponge_right) + " columns";
     }},
    {"collision", [](const Extensions& e, const Measurements&) { return std::string(to_string(e.collision)); }},
    // Lambda only shapes TRT.
    {"magic",
     [](const Extensions& e, const Measurements&) { return e.collision == CollisionOperator::Trt ? shortest_text(e.trt_magic) : std::string("none"); }},
    {"boundary", [](const Extensions& e, const Measurements&) { return std::string(e.curved_walls ? "interpolated" : "staircase"); }},
    // What is measured: a restart continues the same series.
    {"bodies",
     [](const Extensions&, const Measurements& m) {
       std::string names;
       for (const std::string& b : m.bodies) names += (names.empty() ? "" : ", ") + b;
       return "[" + names + "]";
     }},
    {"forces",
     [](const Extensions&, const Measurements& m) {
       return m.coefficients() ? "velocity = " + shortest_text(*m.velocity) + ", length = " + shortest_text(*m.length) +
                                     ", density = " + shortest_text(m.density)
                               : std::string("none");
     }},
    {"probes",
     [](const Extensions&, const Measurements& m) {
       std::string text = "every = " + std::to_string(m.probe_every);
       for (const Probe& p : m.probes)
         text += ", " + p.name + " = [" + std::to_string(p.i) + ", " + std::to_string(p.j) + "]";
       return text;
     }},
};

}  // namespace

const std::vector<ProblemSetting>& problem_settings() { return kSettings; }

SettingValues problem_setting_values(const Extensions& e, const Measurements& m) {
  SettingValues values;
  for (const ProblemSetting& s : kSettings) values.emplace_back(s.name, s.value(e, m));
  return values;
}

std::optional<SettingMismatch> first_setting_mismatch(const SettingValues& recorded, const Extensions& e,
                                                      const Measurements& m) {
  for (const ProblemSetting& s : kSettings) {
    std::string then = s.value(Extensions{}, Measurements{});
    for (const auto& [name, value] : recorded)
      if (name == s.name) then = value;
    const std::string now = s.value(e, m);
    if (then != now) return SettingMismatch{s.name, then, now};
  }
  return std::nullopt;
}

}  // namespace d2q9
