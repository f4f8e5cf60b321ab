#include "problem/problem_settings.hpp"

#include "core/shortest_text.hpp"

namespace d2q9 {

namespace {

std::string vec(Vec2 v) { return "[" + shortest_text(v.x) + ", " + shortest_text(v.y) + "]"; }
const OpenBoundary* left_inlet(const Extensions& e) {
  const OpenBoundary* b = e.open_at(Edge::Left);
  return b && b->inlet() ? b : nullptr;
}
const OpenBoundary* right_outlet(const Extensions& e) {
  const OpenBoundary* b = e.open_at(Edge::Right);
  return b && !b->inlet() ? b : nullptr;
}

const std::vector<ProblemSetting> kSettings = {
    // The first five as the first checkpoints had them (one wall velocity, a
    // left inlet, a right outlet); what they could not hold follows them.
    {"wall_velocity", [](const Extensions& e, const Measurements&) { return vec(e.wall_velocities.empty() ? Vec2{} : e.wall_velocities[0]); }},
    {"body_force", [](const Extensions& e, const Measurements&) { return vec(e.body_force); }},
    {"inlet_velocity",
     [](const Extensions& e, const Measurements&) {
       const OpenBoundary* b = left_inlet(e);
       return b ? vec(b->velocity) : std::string("none");
     }},
    {"parabolic", [](const Extensions& e, const Measurements&) { return std::string(left_inlet(e) && left_inlet(e)->parabolic ? "true" : "false"); }},
    {"inlet_ramp", [](const Extensions& e, const Measurements&) { return std::to_string(e.inlet_ramp_steps); }},
    {"outlet_density",
     [](const Extensions& e, const Measurements&) {
       const OpenBoundary* b = right_outlet(e);
       return b ? shortest_text(b->density) : std::string("none");
     }},
    {"sponge",
     [](const Extensions& e, const Measurements&) {
       const OpenBoundary *l = left_inlet(e), *r = right_outlet(e);
       return "left " + std::to_string(l ? l->sponge : 0) + ", right " + std::to_string(r ? r->sponge : 0) + " columns";
     }},
    {"open_edges",
     [](const Extensions& e, const Measurements&) {
       std::string text;
       for (const OpenBoundary& b : e.open_boundaries) {
         if (&b == left_inlet(e) || &b == right_outlet(e)) continue;
         text += (text.empty() ? "" : "; ") + std::string(to_string(b.edge)) +
                 (b.inlet() ? " inlet " + vec(b.velocity) + (b.parabolic ? " parabolic" : "")
                            : " outlet " + shortest_text(b.density)) +
                 ", sponge " + std::to_string(b.sponge);
       }
       return text.empty() ? std::string("none") : text;
     }},
    {"wall_velocities",
     [](const Extensions& e, const Measurements&) {
       std::string text;
       for (std::size_t n = 1; n < e.wall_velocities.size(); ++n)
         text += (text.empty() ? "" : ", ") + std::to_string(n) + ": " + vec(e.wall_velocities[n]);
       return text.empty() ? std::string("none") : text;
     }},
    {"wall_rotations",
     [](const Extensions& e, const Measurements&) {
       std::string text;
       for (std::size_t n = 0; n < e.wall_rotations.size(); ++n)
         if (e.wall_rotations[n].omega != 0.0)
           text += (text.empty() ? "" : ", ") + std::to_string(n) + ": " + shortest_text(e.wall_rotations[n].omega) +
                   " about " + vec(e.wall_rotations[n].centre);
       return text.empty() ? std::string("none") : text;
     }},
    {"free_slip", [](const Extensions& e, const Measurements&) { return std::string(e.free_slip ? "true" : "false"); }},
    {"collision", [](const Extensions& e, const Measurements&) { return std::string(to_string(e.collision)); }},
    // Lambda only shapes TRT.
    {"magic",
     [](const Extensions& e, const Measurements&) { return e.collision == CollisionOperator::Trt ? shortest_text(e.trt_magic) : std::string("none"); }},
    {"smagorinsky",
     [](const Extensions& e, const Measurements&) { return e.subgrid() ? shortest_text(e.smagorinsky) : std::string("none"); }},
    {"boundary", [](const Extensions& e, const Measurements&) { return std::string(e.curved_walls ? "interpolated" : "staircase"); }},
    // Heat ([heat]): "none" without it, as records from before heat have it.
    {"heat",
     [](const Extensions& e, const Measurements& m) {
       if (!e.heat) return std::string("none");
       return "diffusivity = " + shortest_text(e.diffusivity) + ", collision = " + to_string(e.thermal_collision) +
              (e.thermal_collision == CollisionOperator::Trt ? ", magic = " + shortest_text(e.thermal_magic) : "") +
              ", buoyancy = " + vec(e.buoyancy) + ", reference = " + shortest_text(e.reference_temperature) +
              ", initial = " + shortest_text(e.initial_temperature) + ", length = " + shortest_text(e.heat_length) +
              ", temperature_difference = " + shortest_text(e.temperature_difference) +
              // nusselt.csv's series continues as its rows were taken (absent before the key was).
              (m.nusselt_every > 0 ? ", nusselt_every = " + std::to_string(m.nusselt_every) : "");
     }},
    // By wall number, those that are not adiabatic.
    {"thermal_walls",
     [](const Extensions& e, const Measurements&) {
       std::string text;
       for (std::size_t n = 1; n < e.thermal_walls.size(); ++n) {
         const ThermalWall& w = e.thermal_walls[n];
         if (w.kind == ThermalWall::Kind::Adiabatic) continue;
         text += (text.empty() ? "" : ", ") + std::to_string(n) + ": " +
                 (w.kind == ThermalWall::Kind::Temperature ? "temperature " : "heat_flux ") + shortest_text(w.value);
       }
       return text.empty() ? std::string("none") : text;
     }},
    {"inlet_temperatures",
     [](const Extensions& e, const Measurements&) {
       std::string text;
       if (e.heat)
         for (const OpenBoundary& b : e.open_boundaries)
           if (b.inlet())
             text += (text.empty() ? "" : ", ") + std::string(to_string(b.edge)) + " " + shortest_text(b.temperature);
       return text.empty() ? std::string("none") : text;
     }},
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
