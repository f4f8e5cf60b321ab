// The live view (docs/live-view.md): a web page, served while a Simulation
// steps, that shows its flow, speed, forces and probes and lets a user
// pause, resume, checkpoint and stop the run; JSON endpoints give scripts the
// same numbers. Used by d2q9-bgk --serve and Python's Simulation.serve.
//
// The server's threads never touch the Simulation: the stepping thread
// publishes its status after each chunk of steps (after_chunk) and runs the
// requests that need the simulation (pictures, forces, probes) there, so
// that serving costs nothing while no page asks. Every request needs the
// run's random token; the server listens on 127.0.0.1 unless told otherwise.
// Under mpirun rank 0 serves, and the other ranks do their part of what
// needs every rank (a picture) when rank 0 announces it (share_work_with).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "sim/simulation.hpp"

namespace d2q9 {

// Where to listen: "[HOST:]PORT" ("8080", "0.0.0.0:8080", "[::1]:8080");
// port 0 picks a free port. InputError for anything else.
struct ServeAddress {
  std::string host = "127.0.0.1";
  int port = 0;
};
ServeAddress parse_serve_address(const std::string& text);

// 128 random bits as 32 hex digits (std::random_device: /dev/urandom on Linux).
std::string random_token();
// a == b, in time that depends on their lengths alone.
bool same_token(const std::string& a, const std::string& b);

// What the page's buttons asked for, taken by the stepping thread.
enum class LiveCommand { None, Checkpoint, Stop };

class LiveView {
 public:
  // Listening on `address` before this returns (InputError naming the
  // address where it cannot: in use, or not this machine's), serving from
  // threads of its own until it is destroyed. `token` empty: a random one.
  explicit LiveView(const ServeAddress& address, const std::string& token = "");
  ~LiveView();
  LiveView(const LiveView&) = delete;
  LiveView& operator=(const LiveView&) = delete;

  int port() const;
  // http://HOST:PORT/?token=...: the page, with the token its requests carry.
  std::string url() const;
  const std::string& token() const;

  // The stepping thread's side. What the page names the run: the problem,
  // its grid, device and what it measures; `checkpoint_path`: where the
  // page's checkpoint button writes one (empty: the button is off);
  // `device`: the run's devices where they are more than `sim`'s (MPI ranks).
  void describe(const Simulation& sim, const std::string& checkpoint_path = "", const std::string& device = "");
  // After each chunk of steps: the status the page shows, and the requests
  // waiting for the simulation answered from it.
  void after_chunk(Simulation& sim);
  // The status the page shows, named `state` ("running", "idle": a program
  // between its steps ...), without answering requests.
  void show_state(const Simulation& sim, const std::string& state);
  // While the page holds the run paused: answers requests until it is
  // resumed or stopped, a checkpoint is asked for (the caller writes it and
  // holds again), or `interrupted` says so (a signal, or the end of a slice).
  void hold_while_paused(Simulation& sim, const std::function<bool()>& interrupted = {});
  // A command from the page: Checkpoint once, Stop from then on (None when there is none).
  LiveCommand take_command();
  // Whether the page holds the run paused.
  bool paused() const;
  // Whether a client asked for anything (with the token) in the last few
  // seconds: a page is open, and the run reports more often.
  bool watched() const;
  // One line the page shows under its buttons ("checkpoint written to ...").
  void report(const std::string& message);
  // Requests that need the simulation while nothing steps it (Python
  // between step() calls): `run` runs one on the server's thread where the
  // simulation is free now (true), else says it is busy (false: the
  // stepping thread answers it later).
  using IdleRunner = std::function<bool(const std::function<void(Simulation&)>& job)>;
  void run_idle_with(IdleRunner run);
  // A run split across MPI ranks, served by rank 0: before each request
  // whose answer needs every rank's part (a picture: Simulation::picture is
  // collective there), the stepping thread calls `announce` with the work
  // the other ranks then do alongside, each passing it to join_work. It
  // returns false where they no longer join (the run is over: the request is
  // answered 503). Null: one process.
  using Announcer = std::function<bool(const std::string& work)>;
  void share_work_with(Announcer announce);
  // Another rank's side of announced `work`, on its simulation (collective
  // with rank 0's); false, having done nothing, where `work` is no such work.
  static bool join_work(Simulation& sim, const std::string& work);
  // The run is over (stopped or at its last step): the status says so, and
  // requests that need the simulation are answered 503 from now on.
  void finish(Simulation& sim, const std::string& how);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace d2q9
