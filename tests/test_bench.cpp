// d2q9-bench end to end on the default device (PoCL on CI): the quick bench,
// the options it refuses before timing anything, where it finds the
// coursework inputs, and the provenance its records carry. The only timing
// checked is the bound on the quick bench's wall time.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "helpers.hpp"

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
