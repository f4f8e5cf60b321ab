// LD_PRELOAD library for the fault-injection tests: makes the Nth call of one
// libc file operation fail, as a full disk or a vanished directory would.
// D2Q9_FAIL_CALL=<fopen|fclose|link|rename>:<N>. fclose really closes the
// file and then reports EIO, like a write-back that failed at close. With
// D2Q9_CALL_COUNTS=<file>, the number of calls of each is written there at
// exit ("fopen 3 fclose 3 link 2 rename 5").
#include <dlfcn.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

struct Plan {
  char call[16] = "";
  long nth = 0;
};

const Plan& plan() {
  static const Plan p = [] {
    Plan q;
    const char* spec = std::getenv("D2Q9_FAIL_CALL");
    const char* colon = spec ? std::strchr(spec, ':') : nullptr;
    if (colon && static_cast<std::size_t>(colon - spec) < sizeof q.call) {
      std::memcpy(q.call, spec, static_cast<std::size_t>(colon - spec));
      q.nth = std::atol(colon + 1);
    }
    return q;
  }();
  return p;
}

// True on the planned call of `name` (counted per name).
bool should_fail(const char* name, std::atomic<long>& calls) {
  const long n = ++calls;
  return std::strcmp(plan().call, name) == 0 && n == plan().nth;
}

template <typename F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

std::atomic<long> fopen_calls{0}, fclose_calls{0}, link_calls{0}, rename_calls{0};

}  // namespace

__attribute__((destructor)) void write_counts() {
  const char* path = std::getenv("D2Q9_CALL_COUNTS");
  if (!path) return;
  if (FILE* out = next<FILE* (*)(const char*, const char*)>("fopen")(path, "w")) {
    std::fprintf(out, "fopen %ld fclose %ld link %ld rename %ld\n", fopen_calls.load(), fclose_calls.load(),
                 link_calls.load(), rename_calls.load());
    next<int (*)(FILE*)>("fclose")(out);
  }
}

extern "C" {

FILE* fopen(const char* path, const char* mode) {
  if (should_fail("fopen", fopen_calls)) {
    errno = ENOSPC;
    return nullptr;
  }
  return next<FILE* (*)(const char*, const char*)>("fopen")(path, mode);
}

int fclose(FILE* file) {
  const bool fail = should_fail("fclose", fclose_calls);
  const int rc = next<int (*)(FILE*)>("fclose")(file);
  if (!fail) return rc;
  errno = EIO;
  return EOF;
}

int link(const char* from, const char* to) {
  if (should_fail("link", link_calls)) {
    errno = EMLINK;
    return -1;
  }
  return next<int (*)(const char*, const char*)>("link")(from, to);
}

int rename(const char* from, const char* to) {
  if (should_fail("rename", rename_calls)) {
    errno = EXDEV;
    return -1;
  }
  return next<int (*)(const char*, const char*)>("rename")(from, to);
}
}
