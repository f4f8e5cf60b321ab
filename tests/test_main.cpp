#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  // Keep the work-group tuning cache of this run (and of the programs it
  // starts) away from the user's own.
  char dir[] = "/tmp/d2q9-test-cache-XXXXXX";
  if (::mkdtemp(dir)) ::setenv("D2Q9_CACHE_DIR", dir, 1);
  doctest::Context context(argc, argv);
  const int status = context.run();
  std::system(("rm -rf '" + std::string(dir) + "'").c_str());
  return status;
}
