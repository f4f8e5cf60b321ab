#include "serve/live_server.hpp"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>

#include <nlohmann/json.hpp>

#include "live_view_page.hpp"  // kLiveViewPage: generated from live_view.html by CMake

namespace d2q9 {

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

int parse_port(const std::string& text, const std::string& whole) {
  std::size_t used = 0;
  long port = -1;
  try {
    port = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || port < 0 || port > 65535 || text[0] == '-' || text[0] == '+')
    throw InputError("--serve must be [HOST:]PORT with PORT 0 to 65535 (0: any free port), got '" + whole + "'");
  return static_cast<int>(port);
}

// Why binding `host`:`port` fails, from a bind of our own (httplib says only
// that it failed): "Address already in use", "Permission denied", ...
std::string bind_failure(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (const int e = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); e != 0)
    return ::gai_strerror(e);
  std::string why = "the port is in use, or the host is not an address of this machine";
  const int sock = ::socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  if (sock >= 0) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(sock, found->ai_addr, found->ai_addrlen) != 0) why = std::strerror(errno);
    ::close(sock);
  }
  ::freeaddrinfo(found);
  return why;
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

}  // namespace

ServeAddress parse_serve_address(const std::string& text) {
  ServeAddress a;
  std::string port = text;
  if (!text.empty() && text[0] == '[') {  // [IPv6]:PORT
    const auto close = text.find("]:");
    if (close == std::string::npos || close < 2)
      throw InputError("--serve must be [HOST:]PORT, e.g. 8080 or [::1]:8080, got '" + text + "'");
    a.host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else if (const auto colon = text.rfind(':'); colon != std::string::npos) {
    a.host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (a.host.empty() || a.host.find(':') != std::string::npos)
      throw InputError("--serve must be [HOST:]PORT (an IPv6 host in brackets), got '" + text + "'");
  }
  a.port = parse_port(port, text);
  return a;
}

std::string random_token() {
  std::random_device device;  // /dev/urandom with libstdc++ on Linux
  std::string hex;
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t word = device();
    for (int shift = 28; shift >= 0; shift -= 4) hex += digits[(word >> shift) & 0xF];
  }
  return hex;
}

bool same_token(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

LiveServer::LiveServer(const std::string& token) : token_(token.empty() ? random_token() : token) {
  // Two runs must not share a port: no SO_REUSEPORT (httplib's default), which would split the requests between them.
  server_.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server_.new_task_queue = [] { return new httplib::ThreadPool(4); };
  server_.set_payload_max_length(4096);  // no request of ours has a body worth more
  server_.set_read_timeout(5, 0);       // a client that sends nothing does not hold a thread
  server_.set_write_timeout(5, 0);
  server_.set_keep_alive_max_count(100);
  server_.set_tcp_nodelay(true);  // headers and body leave at once, not after a delayed ACK
  guard_requests();
  server_.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(kLiveViewPage, "text/html; charset=utf-8");
  });
}

void LiveServer::guard_requests() {
  // Every request carries the token (a query parameter, or the header a script may send instead).
  server_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    const std::string given =
        req.has_param("token") ? req.get_param_value("token") : req.get_header_value("X-D2Q9-Token");
    if (same_token(given, token_)) {
      last_request_ns_ = now_ns();
      return httplib::Server::HandlerResponse::Unhandled;
    }
    res.status = 403;
    res.set_content("403 forbidden: this run's page needs its token (printed when the run started)\n", "text/plain");
    return httplib::Server::HandlerResponse::Handled;
  });
  // The token is in the page's address: no referrer carries it elsewhere, no cache keeps it.
  server_.set_default_headers({{"Cache-Control", "no-store"},
                               {"Referrer-Policy", "no-referrer"},
                               {"X-Content-Type-Options", "nosniff"},
                               {"X-Frame-Options", "DENY"},
                               {"Content-Security-Policy",
                                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                                "img-src blob: data:; connect-src 'self'"}});
  server_.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content(json{{"error", "internal error"}}.dump(), "application/json");
  });
}

void LiveServer::listen(const ServeAddress& address) {
  host_ = address.host;
  const int port = address.port == 0 ? server_.bind_to_any_port(address.host)
                                     : (server_.bind_to_port(address.host, address.port) ? address.port : -1);
  if (port < 0)
    throw InputError("--serve: cannot listen on " + address.host + ":" + std::to_string(address.port) + " (" +
                     bind_failure(address.host, address.port) + ")");
  port_ = port;
  listener_ = std::thread([this] {
    server_.listen_after_bind();
    listen_returned_ = true;
  });
  // httplib's stop() does nothing until the listener runs: a LiveView gone at once would never be joined.
  while (!server_.is_running() && !listen_returned_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void LiveServer::stop() {
  server_.stop();
  if (listener_.joinable()) listener_.join();
}

std::string LiveServer::url() const {
  const std::string host = host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_;
  return "http://" + host + ":" + std::to_string(port_) + "/?token=" + token_;
}

bool LiveServer::watched() const {
  constexpr std::int64_t kWatchedNs = 3'000'000'000;  // a page asks every 0.5 s or so
  return now_ns() - last_request_ns_.load() < kWatchedNs;
}

}  // namespace d2q9
