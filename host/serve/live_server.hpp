// The live view's web server: cpp-httplib listening on its own threads, that
// answers only requests carrying the run's token (a query parameter or a
// header), with headers that keep the token from leaving the page.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>

#include <httplib.h>

#include "serve/live_view.hpp"

namespace d2q9 {

class LiveServer {
 public:
  // The request guard, the headers and the page (GET /); `token` empty: a random one.
  explicit LiveServer(const std::string& token);
  LiveServer(const LiveServer&) = delete;
  LiveServer& operator=(const LiveServer&) = delete;

  // For the other routes, added before listen().
  httplib::Server& http() { return server_; }
  // Listening on `address` before this returns (InputError naming the
  // address where it cannot), serving until stop().
  void listen(const ServeAddress& address);
  // Stops serving, once every request in hand is answered.
  void stop();

  int port() const { return port_; }
  std::string url() const;
  const std::string& token() const { return token_; }
  // Whether a request with the token came in the last few seconds.
  bool watched() const;

 private:
  void guard_requests();

  httplib::Server server_;
  std::thread listener_;
  std::atomic<bool> listen_returned_{false};
  std::string host_, token_;
  int port_ = 0;
  // When a request with the token last came (steady clock, ns).
  std::atomic<std::int64_t> last_request_ns_{std::numeric_limits<std::int64_t>::min() / 2};
};

}  // namespace d2q9
