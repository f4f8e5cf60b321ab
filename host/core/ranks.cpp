#include "core/ranks.hpp"

namespace d2q9 {

int exit_status(const std::exception& e) {
  if (const auto* s = dynamic_cast<const StatusError*>(&e)) return s->status();
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
