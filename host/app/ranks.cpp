#include "app/ranks.hpp"

#include "app/cli.hpp"
#include "app/run_loop.hpp"

namespace d2q9 {

int exit_status(const std::exception& e) {
  if (const auto* r = dynamic_cast<const RanksFailure*>(&e)) return r->status();
  if (dynamic_cast<const UsageError*>(&e)) return 2;
  if (const auto* i = dynamic_cast<const InterruptedError*>(&e)) return i->exit_status();
  return 1;
}

void Ranks::on_root(const std::function<void()>& work) {
  std::exception_ptr failure;
  if (is_root()) {
    try {
      work();
    } catch (...) {
      failure = std::current_exception();
    }
  }
  agree(failure);
}

}  // namespace d2q9
