// d2q9-bench end to end on the default device (PoCL on CI): the quick bench,
// several precisions in one call, the work-group shape sweep, the options it
// refuses before timing anything, where it finds the coursework inputs, and
// the provenance its records carry. The only timing
// checked is the bound on the quick bench's wall time.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L tuning
TEST_SUITE_BEGIN("tuning");

using d2q9::test::contains;
using d2q9::test::count_lines;
using d2q9::test::Result;
using d2q9::test::run_shell;
using d2q9::test::TempDir;

namespace {

std::string shell_quoted(const std::string& s) { return "'" + s + "'"; }

// The bench in the build tree, with the kernels it was built with.
std::string bench_command(const std::string& args, const std::string& exe = D2Q9_BENCH_EXE) {
  return shell_quoted(exe) + " --kernels-dir " + shell_quoted(D2Q9_KERNELS_DIR) + " " + args;
}

// A CSV line's fields, split on commas outside quotes (quotes dropped).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> f(1);
  bool quoted_field = false;
  for (char c : line) {
    if (c == '"') quoted_field = !quoted_field;
    else if (c == ',' && !quoted_field) f.emplace_back();
    else f.back() += c;
  }
  return f;
}

// The records of a CSV file, each a map from column name to value.
std::vector<std::map<std::string, std::string>> csv_records(const std::string& path) {
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  const std::vector<std::string> names = csv_fields(header);
  std::vector<std::map<std::string, std::string>> records;
  for (std::string line; std::getline(in, line);) {
    const std::vector<std::string> f = csv_fields(line);
    REQUIRE_MESSAGE(f.size() == names.size(), line);
    std::map<std::string, std::string> record;
    for (std::size_t i = 0; i < f.size(); ++i) record[names[i]] = f[i];
    records.push_back(record);
  }
  return records;
}

std::vector<std::string> case_names(const std::vector<std::map<std::string, std::string>>& records) {
  std::vector<std::string> names;
  for (const auto& r : records) names.push_back(r.at("case"));
  return names;
}

// Version and commit as `d2q9-bgk --version` prints them:
// "d2q9-bgk 0.9.0 (commit 1a2b3c4d5e6f; backends: ...)".
std::pair<std::string, std::string> program_version_and_commit() {
  const Result r = d2q9::test::run_program("--version");
  REQUIRE(r.status == 0);
  const std::string prefix = "d2q9-bgk ", commit_tag = " (commit ";
  const auto commit_at = r.out.find(commit_tag);
  REQUIRE(r.out.rfind(prefix, 0) == 0);
  REQUIRE(commit_at != std::string::npos);
  const auto commit_end = r.out.find(';', commit_at);
  return {r.out.substr(prefix.size(), commit_at - prefix.size()),
          r.out.substr(commit_at + commit_tag.size(), commit_end - commit_at - commit_tag.size())};
}

// The smallest --copy-mib the bench accepts on the default device, from its
// refusal of 1 MiB ("... use --copy-mib N or more").
int smallest_copy_mib() {
  const Result r = run_shell(bench_command("--no-coursework --copy-mib 1"));
  REQUIRE_MESSAGE(r.status == 2, r.err);
  const std::string tag = "use --copy-mib ";
  const auto at = r.err.find(tag);
  REQUIRE_MESSAGE(at != std::string::npos, r.err);
  return std::stoi(r.err.substr(at + tag.size()));
}

}  // namespace

TEST_CASE("d2q9-bench --quick finishes within 30 s, runs no coursework, and its records carry version and commit") {
  TempDir dir;
  const auto started = std::chrono::steady_clock::now();
  const Result r = run_shell(bench_command("--quick -o " + shell_quoted(dir.path)));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  REQUIRE_MESSAGE(r.status == 0, r.err);
  MESSAGE("d2q9-bench --quick took " << seconds << " s");
  CHECK(seconds < 30);  // the bound, on the 2-core CI machine
  CHECK(dir.listing() == "bench_opencl_float_auto.csv\nbench_opencl_float_auto.json\n");

  const auto program = program_version_and_commit();
  const std::string& version = program.first;
  const std::string& commit = program.second;
  const auto records = csv_records(dir.file("bench_opencl_float_auto.csv"));
  CHECK(case_names(records) == std::vector<std::string>{"box_128", "box_512", "box_1024"});
  for (const auto& record : records) {
    CHECK(record.at("version") == version);
    CHECK(record.at("commit") == commit);
    CHECK(record.at("skipped").empty());
  }

  const auto j = nlohmann::json::parse(d2q9::test::slurp(dir.file("bench_opencl_float_auto.json")));
  CHECK(j["program"] == nlohmann::json{{"name", "d2q9-bench"}, {"version", version}, {"commit", commit}});
  CHECK(j["commit"] == commit);
  REQUIRE(j["cases"].size() == 3);
  for (const auto& c : j["cases"]) CHECK(!contains(c["case"].get<std::string>(), "coursework"));
  // The copy buffers exceed the cache: 4x its size, and 64 MiB at least.
  const auto copy_bytes = j["copy_buffer_bytes"].get<unsigned long long>();
  CHECK(copy_bytes >= 64ull << 20);
  CHECK(copy_bytes >= 4 * j["device_cache_bytes"].get<unsigned long long>());
}

TEST_CASE("d2q9-bench refuses a copy buffer that fits in the cache, in one line, before timing or writing anything") {
  const Result help = run_shell(shell_quoted(D2Q9_BENCH_EXE) + " --help");
  CHECK(contains(help.out, "--quick"));
  CHECK(contains(help.out, "--no-coursework"));

  TempDir dir;
  const std::string out_dir = dir.file("results");
  const int smallest = smallest_copy_mib();
  CHECK(smallest >= 64);
  const std::string too_small = std::to_string(smallest - 1);
  const Result r = run_shell(bench_command("--copy-mib " + too_small + " -o " + shell_quoted(out_dir)));
  CHECK(r.status == 2);
  CHECK(r.err.rfind("error: --copy-mib " + too_small + " ", 0) == 0);
  CHECK(contains(r.err, "cache"));
  CHECK(contains(r.err, "use --copy-mib " + std::to_string(smallest) + " or more"));
  CHECK(count_lines(r.err) == 1);
  CHECK(r.out.empty());  // nothing timed
  CHECK(dir.listing().empty());

  // The smallest size it names is accepted; --no-coursework leaves the boxes only.
  const Result ok = run_shell(bench_command("--no-coursework --sizes 32 --min-seconds 0.05 --copy-mib " +
                                            std::to_string(smallest) + " -o " + shell_quoted(out_dir)));
  REQUIRE_MESSAGE(ok.status == 0, ok.err);
  CHECK(case_names(csv_records(out_dir + "/bench_opencl_float_auto.csv")) == std::vector<std::string>{"box_32"});
}

TEST_CASE("installed d2q9-bench finds the coursework inputs in ../share/d2q9-bgk/inputs, or fails writing nothing") {
  // An installed layout: bin/d2q9-bench, share/d2q9-bgk/inputs, run from an empty folder.
  TempDir prefix;
  namespace fs = std::filesystem;
  fs::create_directories(prefix.file("bin"));
  fs::create_directories(prefix.file("work"));
  fs::copy_file(D2Q9_BENCH_EXE, prefix.file("bin/d2q9-bench"));
  const std::string exe = prefix.file("bin/d2q9-bench");
  const std::string in_work = "cd " + shell_quoted(prefix.file("work")) + " && ";
  const std::string copy_mib = " --copy-mib " + std::to_string(smallest_copy_mib());

  const Result missing = run_shell(in_work + bench_command("--sizes 16" + copy_mib, exe));
  CHECK(missing.status == 2);
  CHECK(missing.err.rfind("error: cannot find the coursework inputs", 0) == 0);
  CHECK(contains(missing.err, "--inputs-dir"));
  CHECK(contains(missing.err, "--no-coursework"));
  CHECK(count_lines(missing.err) == 1);
  CHECK(missing.out.empty());
  CHECK(fs::is_empty(prefix.file("work")));  // no results/<device>/

  const Result given_missing = run_shell(in_work + bench_command("--inputs-dir nowhere --sizes 16" + copy_mib, exe));
  CHECK(given_missing.status == 2);
  CHECK(given_missing.err.rfind("error: nowhere: no coursework inputs", 0) == 0);
  CHECK(count_lines(given_missing.err) == 1);

  // Without the coursework it runs, and makes results/<device>/ when it writes the records.
  const Result boxes_only =
      run_shell(in_work + bench_command("--no-coursework --sizes 16 --min-seconds 0.01" + copy_mib, exe));
  REQUIRE_MESSAGE(boxes_only.status == 0, boxes_only.err);
  CHECK(run_shell("ls " + shell_quoted(prefix.file("work")) + "/results/*/bench_opencl_float_auto.csv").status == 0);

  fs::create_directories(prefix.file("share/d2q9-bgk"));
  fs::copy(D2Q9_SOURCE_DIR "/inputs", prefix.file("share/d2q9-bgk/inputs"));
  const Result found =
      run_shell(in_work + bench_command("--sizes 16 --min-seconds 0.01 --coursework-steps 2 -o out" + copy_mib, exe));
  REQUIRE_MESSAGE(found.status == 0, found.err);
  CHECK(case_names(csv_records(prefix.file("work/out/bench_opencl_float_auto.csv"))) ==
        std::vector<std::string>{"box_16", "coursework_128x128", "coursework_128x256", "coursework_256x256",
                                 "coursework_1024x1024"});
}

namespace {

std::vector<std::string> column(const std::vector<std::map<std::string, std::string>>& records, const std::string& name) {
  std::vector<std::string> values;
  for (const auto& r : records) values.push_back(r.at(name));
  return values;
}

// Coursework inputs under their usual names but of a few cells each, so that
// a sweep times few shapes: 128x128 is 3x2 (x up to 4, rounded up), the others 2x2.
void write_tiny_coursework(const TempDir& dir) {
  const std::map<std::string, std::string> sides = {
      {"128x128", "3\n2\n"}, {"128x256", "2\n2\n"}, {"256x256", "2\n2\n"}, {"1024x1024", "2\n2\n"}};
  for (const auto& [name, nx_ny] : sides) {
    dir.write("input_" + name + ".params", nx_ny + "100\n2\n0.1\n0.005\n1.85\n");  // 100 steps of their own
    dir.write("obstacles_" + name + ".dat", "0 0 1\n");
  }
}

}  // namespace

TEST_CASE("d2q9-bench -p float,fp16s measures the copy bandwidth once and runs every case in each precision") {
  TempDir dir;
  const Result r = run_shell(bench_command("--quick --sizes 16,32 --min-seconds 0.05 -p float,fp16s -o " +
                                           shell_quoted(dir.path)));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(dir.listing() == "bench_opencl_float+fp16s_auto.csv\nbench_opencl_float+fp16s_auto.json\n");
  std::size_t copy_lines = 0;
  for (auto at = r.out.find("copy bandwidth:"); at != std::string::npos; at = r.out.find("copy bandwidth:", at + 1))
    ++copy_lines;
  CHECK(copy_lines == 1);

  // Every case in float, then every case in fp16s, all against the one copy figure.
  const auto records = csv_records(dir.file("bench_opencl_float+fp16s_auto.csv"));
  CHECK(case_names(records) == std::vector<std::string>{"box_16", "box_32", "box_16", "box_32"});
  CHECK(column(records, "precision") == std::vector<std::string>{"float", "float", "fp16s", "fp16s"});
  const double copy_gbs = std::stod(records.front().at("copy_gbs"));
  CHECK(copy_gbs > 0);
  for (const auto& record : records) {
    CAPTURE(record.at("case"));
    CAPTURE(record.at("precision"));
    CHECK(record.at("skipped").empty());
    CHECK(std::stod(record.at("copy_gbs")) == copy_gbs);
    const double mlups = std::stod(record.at("mlups"));
    CHECK(mlups > 0);
    // 9 distributions read and written (4 or 2 bytes each) and a mask byte per cell update.
    const double bytes = record.at("precision") == "float" ? 73 : 37;
    CHECK(std::stod(record.at("effective_gbs")) == doctest::Approx(mlups * bytes / 1000).epsilon(0.01));
  }

  const auto j = nlohmann::json::parse(d2q9::test::slurp(dir.file("bench_opencl_float+fp16s_auto.json")));
  CHECK(j["precision"] == "float+fp16s");
  CHECK(j["precisions"] == nlohmann::json{"float", "fp16s"});
  CHECK(!j.contains("bytes_per_cell_update"));  // each case carries its own
  REQUIRE(j["cases"].size() == 4);
  CHECK(j["cases"][0]["precision"] == "float");
  CHECK(j["cases"][0]["bytes_per_cell_update"] == 73.0);
  CHECK(j["cases"][3]["precision"] == "fp16s");
  CHECK(j["cases"][3]["bytes_per_cell_update"] == 37.0);
}

TEST_CASE("d2q9-bench refuses a bad precision list and options a sweep cannot use, in one line, writing nothing") {
  TempDir dir;
  const std::string out = " -o " + shell_quoted(dir.file("results"));
  const std::vector<std::pair<std::string, std::string>> refusals = {
      {"-p float,half --no-coursework", "error: --precision must be float, double, fp16s or fp16c, or a comma list "
                                        "of them, got 'half' in 'float,half'"},
      {"-p float,float --no-coursework", "error: --precision lists float twice"},
      {"-p float, --no-coursework", "error: --precision must be"},
      {"--sweep-local-size --sizes 16", "error: --sizes is not for --sweep-local-size"},
      {"--sweep-local-size --local-size 4x4", "error: --local-size is not for --sweep-local-size"},
      {"--sweep-local-size --kernel-variant fused-rows", "error: --kernel-variant fused-rows takes no work-group shape"},
  };
  for (const auto& [args, message] : refusals) {
    CAPTURE(args);
    const Result r = run_shell(bench_command(args + out));
    CHECK(r.status == 2);
    CHECK(r.err.rfind(message, 0) == 0);
    CHECK(count_lines(r.err) == 1);
    CHECK(r.out.empty());
  }
  CHECK(dir.listing().empty());
}

TEST_CASE("d2q9-bench --sweep-local-size times every valid shape of each coursework problem, marking default and fastest") {
  TempDir inputs, dir;
  write_tiny_coursework(inputs);
  const Result r = run_shell(bench_command("--sweep-local-size --coursework-steps 20 --inputs-dir " +
                                           shell_quoted(inputs.path) + " -o " + shell_quoted(dir.path)));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(dir.listing() == "sweep_opencl_float.csv\n");
  CHECK(!contains(r.out, "copy bandwidth"));  // a sweep times the shapes and nothing else
  CHECK(contains(r.out, "128x128: fastest "));

  const auto program = program_version_and_commit();
  const auto records = csv_records(dir.file("sweep_opencl_float.csv"));
  // Powers of two up to the sides rounded up to powers of two: every one is
  // within any device's work-group limits at these sizes.
  const std::map<std::string, std::set<std::string>> expected = {
      {"128x128", {"1x1", "1x2", "2x1", "2x2", "4x1", "4x2"}},
      {"128x256", {"1x1", "1x2", "2x1", "2x2"}},
      {"256x256", {"1x1", "1x2", "2x1", "2x2"}},
      {"1024x1024", {"1x1", "1x2", "2x1", "2x2"}}};
  std::map<std::string, std::set<std::string>> shapes;
  std::map<std::string, std::vector<std::map<std::string, std::string>>> by_problem;
  for (const auto& record : records) {
    CAPTURE(record.at("problem"));
    CAPTURE(record.at("local_x") + "x" + record.at("local_y"));
    const int x = std::stoi(record.at("local_x")), y = std::stoi(record.at("local_y"));
    CHECK(shapes[record.at("problem")].insert(record.at("local_x") + "x" + record.at("local_y")).second);
    by_problem[record.at("problem")].push_back(record);
    CHECK(std::stoi(record.at("work_group_size")) == x * y);
    CHECK(record.at("backend") == "opencl");
    CHECK(record.at("precision") == "float");
    CHECK(record.at("variant") != "fused-rows");  // it takes no shape; CPU devices sweep fused instead
    CHECK(record.at("skipped").empty());
    const double us = std::stod(record.at("us_per_step"));
    CHECK(us > 0);
    // Projected over the problem's own 100 steps, not the 20 timed.
    CHECK(std::stod(record.at("projected_loop_s")) == doctest::Approx(us * 100 / 1e6).epsilon(0.01));
    CHECK(record.at("version") == program.first);
    CHECK(record.at("commit") == program.second);
  }
  CHECK(shapes == expected);

  // One default per problem, the plan's widest one-row group, and one fastest, the least time.
  const std::map<std::string, std::string> default_shape = {
      {"128x128", "4x1"}, {"128x256", "2x1"}, {"256x256", "2x1"}, {"1024x1024", "2x1"}};
  for (const auto& [problem, rows] : by_problem) {
    CAPTURE(problem);
    std::vector<std::string> defaults, fastest;
    double least = 1e300;
    for (const auto& row : rows) {
      CHECK(std::stoi(row.at("nx")) == (problem == "128x128" ? 3 : 2));
      CHECK(std::stoi(row.at("ny")) == 2);
      CHECK(row.at("variant") == rows.front().at("variant"));
      least = std::min(least, std::stod(row.at("us_per_step")));
      if (row.at("default") == "1") defaults.push_back(row.at("local_x") + "x" + row.at("local_y"));
      if (row.at("fastest") == "1") fastest.push_back(row.at("us_per_step"));
    }
    CHECK(defaults == std::vector<std::string>{default_shape.at(problem)});
    REQUIRE(fastest.size() == 1);
    CHECK(std::stod(fastest.front()) == least);
  }
}

TEST_SUITE_END();
