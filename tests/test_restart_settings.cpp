// A restart refuses a changed problem, whatever setting changed, and names
// it. The keys come from the parser's own lists (problem_file_keys()), so a
// key added to the problem file without a change here fails this test, and a
// setting left out of the checkpoint's record (problem/problem_settings.hpp)
// is a restart that goes on instead of being refused.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "io/checkpoint.hpp"
#include "problem/problem_file.hpp"
#include "problem/problem_settings.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L cli
TEST_SUITE_BEGIN("cli");

using namespace d2q9;
using d2q9::test::contains;
using d2q9::test::count_lines;
using d2q9::test::Result;
using d2q9::test::run_shell;
using d2q9::test::slurp;
using d2q9::test::TempDir;
using d2q9::test::write_png;

namespace {

enum Base { Channel, Cavity, Heat };

// One edit of a base problem: `from` (first occurrence) becomes `to`; the
// restart is refused with "it was written for <refused>".
struct Edit {
  Base base;
  std::string from, to, refused;
};

const std::string kObstacles = "different obstacles";

// Every problem-file key, and an edit that changes it alone.
const std::map<std::string, Edit> kEdits = {
    {"grid.nx", {Channel, "nx = 48", "nx = 50", "nx"}},
    {"grid.ny", {Channel, "ny = 20", "ny = 22", "ny"}},
    {"flow.steps", {Channel, "steps = 1000000", "steps = 1000001", "maxIters"}},
    {"flow.density", {Channel, "density = 1.0\nviscosity", "density = 1.01\nviscosity", "density"}},
    {"flow.omega", {Channel, "viscosity = 0.04", "omega = 1.5", "omega"}},
    {"flow.viscosity", {Channel, "viscosity = 0.04", "viscosity = 0.041", "omega"}},
    {"flow.reynolds", {Cavity, "reynolds = 10", "reynolds = 11", "omega"}},
    {"flow.velocity", {Cavity, "velocity = 0.05\nlength", "velocity = 0.06\nlength", "omega"}},
    {"flow.length", {Cavity, "length = 22", "length = 20", "reynolds_dim"}},
    {"flow.accel", {Cavity, "accel = 0.001", "accel = 0.002", "accel"}},
    {"flow.body_force", {Cavity, "body_force = [1e-6, 0.0]", "body_force = [2e-6, 0.0]", "body_force"}},
    {"flow.collision", {Channel, "collision = \"trt\"\nmagic = 0.1875\n", "collision = \"regularised\"\n", "collision"}},
    {"flow.magic", {Channel, "magic = 0.1875", "magic = 0.25", "magic"}},
    {"flow.smagorinsky", {Channel, "magic = 0.1875", "magic = 0.1875\nsmagorinsky = 0.1", "smagorinsky"}},
    {"flow.inlet_ramp", {Channel, "inlet_ramp = 50", "inlet_ramp = 60", "inlet_ramp"}},
    {"edges.left", {Cavity, "[edges]\n", "[edges]\nleft = \"wall\"\nright = \"wall\"\n", kObstacles}},
    {"edges.right", {Channel, "right = { outlet_density = 1.0 }", "right = \"wall\"", kObstacles}},
    {"edges.bottom", {Cavity, "bottom = \"wall\"", "bottom = { wall_velocity = [0.05, 0.0] }", kObstacles}},
    {"edges.top", {Cavity, "top = { wall_velocity = [0.05, 0.0] }", "top = \"wall\"", kObstacles}},
    {"edges.wall_velocity", {Cavity, "wall_velocity = [0.05, 0.0]", "wall_velocity = [0.04, 0.0]", "wall_velocity"}},
    {"edges.inlet_velocity", {Channel, "parabolic = 0.06", "parabolic = 0.05", "inlet_velocity"}},
    {"edges.outlet_density", {Channel, "outlet_density = 1.0", "outlet_density = 1.01", "outlet_density"}},
    {"edges.sponge", {Channel, "outlet_density = 1.0 }", "outlet_density = 1.0, sponge = 6 }", "sponge"}},
    {"inlet_velocity.parabolic", {Channel, "{ parabolic = 0.06 }", "[0.06, 0.0]", "parabolic"}},
    {"obstacle.name", {Channel, "name = \"cylinder\"", "name = \"post\"", "bodies"}},
    {"obstacle.boundary", {Channel, "boundary = \"interpolated\"\n", "", kObstacles}},
    {"obstacle.circle", {Channel, "center = [12.3, 9.6]", "center = [12.3, 12.6]", kObstacles}},
    // Less than a cell: the same cells, other links.
    {"circle.center", {Channel, "center = [12.3, 9.6]", "center = [12.35, 9.6]", kObstacles}},
    {"circle.radius", {Channel, "radius = 3.2", "radius = 3.22", kObstacles}},
    {"circle.fill", {Cavity, "fill = \"inside\"", "fill = \"outside\"", kObstacles}},
    {"obstacle.rectangle", {Channel, "rectangle = { from = [30, 1], to = [31, 4] }",
                            "rectangle = { from = [33, 1], to = [34, 4] }", kObstacles}},
    {"rectangle.from", {Channel, "from = [30, 1]", "from = [29, 1]", kObstacles}},
    {"rectangle.to", {Channel, "to = [31, 4]", "to = [31, 5]", kObstacles}},
    // A moving or turning shape's cells are moving walls: other cells.
    {"obstacle.wall_velocity", {Channel, "rectangle = { from = [30, 1], to = [31, 4] }",
                                "wall_velocity = [0.0, 0.01]\nrectangle = { from = [30, 1], to = [31, 4] }", kObstacles}},
    {"obstacle.angular_velocity", {Channel, "rectangle = { from = [30, 1], to = [31, 4] }",
                                   "angular_velocity = 0.001\nrectangle = { from = [30, 1], to = [31, 4] }", kObstacles}},
    {"obstacle.mask", {Cavity, "mask = \"block.png\"", "mask = \"other.png\"", kObstacles}},
    {"forces.velocity", {Channel, "velocity = 0.04", "velocity = 0.05", "forces"}},
    {"forces.length", {Channel, "length = 6.4", "length = 6.5", "forces"}},
    {"forces.density", {Channel, "density = 1.0\n[probes]", "density = 1.1\n[probes]", "forces"}},
    {"probes.every", {Channel, "every = 10", "every = 20", "probes"}},
    // Heat: the temperature's model, then what each wall does to it (by wall number, so the cells keep theirs).
    {"heat.diffusivity", {Heat, "prandtl = 0.8", "diffusivity = 0.05", "heat"}},
    {"heat.prandtl", {Heat, "prandtl = 0.8", "prandtl = 0.9", "heat"}},
    {"heat.nusselt_every", {Heat, "prandtl = 0.8", "prandtl = 0.8\nnusselt_every = 10", "heat"}},
    {"heat.collision", {Heat, "collision = \"trt\"\nmagic = 0.3\n", "collision = \"bgk\"\n", "heat"}},
    {"heat.magic", {Heat, "magic = 0.3", "magic = 0.35", "heat"}},
    {"heat.initial", {Heat, "initial = 0.1", "initial = 0.2", "heat"}},
    {"heat.reference", {Heat, "reference = 0.05", "reference = 0.06", "heat"}},
    {"heat.gravity", {Heat, "gravity = [0.0, -1.0]", "gravity = [0.0, 1.0]", "heat"}},
    {"heat.expansion", {Heat, "rayleigh = 1e3", "expansion = 1e-4", "heat"}},
    {"heat.rayleigh", {Heat, "rayleigh = 1e3", "rayleigh = 2e3", "heat"}},
    {"heat.length", {Heat, "length = 14", "length = 15", "heat"}},
    {"heat.temperature_difference", {Heat, "temperature_difference = 1.0", "temperature_difference = 2.0", "heat"}},
    {"edges.temperature", {Heat, "top = { temperature = -0.25 }", "top = { temperature = -0.3 }", "thermal_walls"}},
    {"edges.heat_flux", {Heat, "heat_flux = 1e-4", "heat_flux = 3e-4", "thermal_walls"}},
    {"obstacle.temperature", {Heat, "temperature = 1.0\ncircle", "temperature = 1.5\ncircle", "thermal_walls"}},
    {"obstacle.heat_flux", {Heat, "heat_flux = 2e-4", "heat_flux = 5e-4", "thermal_walls"}},
};

// Keys the table above changes in one place that also shape the run
// elsewhere: an edge's temperature is an inlet's too.
const std::vector<std::pair<std::string, Edit>> kMoreEdits = {
    {"edges.temperature", {Heat, "temperature = 0.5 }", "temperature = 0.6 }", "inlet_temperatures"}},
};

// Problem-file keys that say when to stop or what to write, not what is
// run: a restart with them changed goes on (it uses the new value).
const std::map<std::string, Edit> kRunControls = {
    {"flow.until_steady", {Channel, "steps = 1000000", "steps = 1000000\nuntil_steady = 1e-6", ""}},
    {"output.final_state", {Channel, "wake = [20, 10]", "wake = [20, 10]\n[output]\nfinal_state = \"both\"", ""}},
};

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "the base problem has no \"" << from << "\"");
  return text.replace(at, from.size(), to);
}

// A run of `dir`/p.toml, killed (SIGKILL) once it has written a checkpoint.
std::string checkpoint_of(const TempDir& dir, const std::string& out) {
  const Result killed = run_shell("cd '" + dir.path + "' && { '" + D2Q9_EXE + "' p.toml -o " + out +
                                  " --checkpoint-every 20 -b reference -q --no-png & pid=$!; while [ ! -e " + out +
                                  "/checkpoint.d2q9 ] && kill -0 $pid 2>/dev/null; do sleep 0.01; done; "
                                  "kill -9 $pid; wait $pid; }");
  REQUIRE_MESSAGE(killed.status == 128 + 9, "the run ended before it was killed: " << killed.err);
  return dir.file(out + "/checkpoint.d2q9");
}

}  // namespace

TEST_CASE("restart settings: every problem-file key is one the restart test changes") {
  for (const std::string& key : problem_file_keys()) {
    CAPTURE(key);
    CHECK(kEdits.count(key) + kRunControls.count(key) == 1);
  }
  for (const auto& [key, edit] : kRunControls) {
    CAPTURE(key);
    const auto keys = problem_file_keys();
    CHECK(std::find(keys.begin(), keys.end(), key) != keys.end());
  }
  for (const auto& [key, edit] : kEdits) {
    CAPTURE(key);
    const auto keys = problem_file_keys();
    CHECK(std::find(keys.begin(), keys.end(), key) != keys.end());
  }
}

TEST_CASE("restart settings: a checkpoint restarted after any one key changed is refused, naming the setting") {
  TempDir dir;
  std::vector<std::uint8_t> pixels(24 * 24, 255), other(24 * 24, 255);
  for (int y = 10; y < 14; ++y)
    for (int x = 8; x < 12; ++x) pixels[x + y * 24] = 0, other[x + 1 + y * 24] = 0;
  write_png(dir.file("block.png"), 24, 24, PNG_FORMAT_GRAY, pixels);
  write_png(dir.file("other.png"), 24, 24, PNG_FORMAT_GRAY, other);
  const std::string base[3] = {slurp(std::string(D2Q9_SOURCE_DIR) + "/tests/problems/restart_channel.toml"),
                               slurp(std::string(D2Q9_SOURCE_DIR) + "/tests/problems/restart_cavity.toml"),
                               slurp(std::string(D2Q9_SOURCE_DIR) + "/tests/problems/restart_heat.toml")};
  std::string checkpoint[3];
  for (int b : {Channel, Cavity, Heat}) {
    REQUIRE(!base[b].empty());
    dir.write("p.toml", base[b]);
    checkpoint[b] = checkpoint_of(dir, b == Channel ? "channel" : b == Cavity ? "cavity" : "heat");
  }
  const std::string p = dir.file("p.toml");
  // The record holds every setting by name.
  const Checkpoint c = read_checkpoint(checkpoint[Channel]);
  CHECK(c.run.settings.size() == problem_settings().size());
  dir.write("p.toml", base[Channel]);
  const Problem channel = read_problem_file(p);
  CHECK(c.run.settings == problem_setting_values(channel.params.extensions, channel.measure));
  // A problem without heat records heat's settings as a record from before them reads (their value in a
  // problem without them), so such older records still match it.
  for (const char* name : {"heat", "thermal_walls", "inlet_temperatures"}) {
    CAPTURE(name);
    const auto at = std::find_if(c.run.settings.begin(), c.run.settings.end(),
                                 [&](const auto& setting) { return setting.first == name; });
    REQUIRE(at != c.run.settings.end());
    CHECK(at->second == "none");
    SettingValues older = c.run.settings;
    older.erase(older.begin() + (at - c.run.settings.begin()));
    CHECK(!first_setting_mismatch(older, channel.params.extensions, channel.measure));
  }
  const Checkpoint h = read_checkpoint(checkpoint[Heat]);
  CHECK(h.planes() == 14);
  dir.write("p.toml", base[Heat]);
  const Problem heated = read_problem_file(p);
  CHECK(h.run.settings == problem_setting_values(heated.params.extensions, heated.measure));
  dir.write("p.toml", base[Channel]);

  // A sub-cell move of the curved circle keeps its cells and moves its links.
  {
    const Problem before = read_problem_file(p);
    dir.write("p.toml", replaced(base[Channel], "center = [12.3, 9.6]", "center = [12.35, 9.6]"));
    const Problem after = read_problem_file(p);
    CHECK(before.mask.kinds == after.mask.kinds);
    CHECK(before.mask.links != after.mask.links);
  }

  std::vector<std::pair<std::string, Edit>> edits(kEdits.begin(), kEdits.end());
  edits.insert(edits.end(), kMoreEdits.begin(), kMoreEdits.end());
  for (const auto& [key, edit] : edits) {
    CAPTURE(key);
    CAPTURE(edit.to);
    dir.write("p.toml", replaced(base[edit.base], edit.from, edit.to));
    // An output directory that cannot be: a restart not refused fails at once, on it.
    const Result r = run_shell(std::string("'") + D2Q9_EXE + "' --restart '" + checkpoint[edit.base] + "' -q -o /dev/null/x");
    CHECK(r.status == 1);
    CHECK(count_lines(r.err) == 1);
    CHECK_MESSAGE(contains(r.err, "error: " + checkpoint[edit.base] + ": checkpoint does not match the inputs: it was written for " +
                                      edit.refused),
                  r.err);
  }

  // A key that says when to stop may change: the restart goes on, here to the output folder that cannot be.
  for (const auto& [key, edit] : kRunControls) {
    CAPTURE(key);
    dir.write("p.toml", replaced(base[edit.base], edit.from, edit.to));
    const Result r = run_shell(std::string("'") + D2Q9_EXE + "' --restart '" + checkpoint[edit.base] + "' -q -o /dev/null/x");
    CHECK(r.status == 1);
    CHECK(contains(r.err, "error: /dev/null/x: cannot create output directory (Not a directory)\n"));
  }

  // --collision and --smagorinsky on the command line are settings too: they cannot change the model mid-run.
  dir.write("p.toml", base[Channel]);
  for (const auto& [option, refused] : std::vector<std::pair<std::string, std::string>>{
           {"--collision bgk", "collision = trt, but " + p + " with --collision gives collision = bgk"},
           {"--collision trt:0.25", "magic = 0.1875, but " + p + " with --collision gives magic = 0.25"},
           {"--smagorinsky 0.1", "smagorinsky = none, but " + p + " with --smagorinsky gives smagorinsky = 0.1"}}) {
    CAPTURE(option);
    const Result r =
        run_shell(std::string("'") + D2Q9_EXE + "' --restart '" + checkpoint[Channel] + "' -q -o /dev/null/x " + option);
    CHECK(r.status == 1);
    CHECK(r.err == "error: " + checkpoint[Channel] + ": checkpoint does not match the inputs: it was written for " +
                       refused + "\n");
  }
  // The same operator and Lambda (trt alone keeps the file's): it goes on, here to the output folder that cannot be.
  const Result same = run_shell(std::string("'") + D2Q9_EXE + "' --restart '" + checkpoint[Channel] +
                                "' -q -o /dev/null/x --collision trt");
  CHECK(same.err == "error: /dev/null/x: cannot create output directory (Not a directory)\n");
}

TEST_SUITE_END();
