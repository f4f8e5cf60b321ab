// Launch sequences recorded once as CUDA graphs on a lattice's kernel stream
// and replayed: a graph's launch costs the host less than its kernels' plain
// launches. The prepared sequences (a single device's chunks) are kept all
// run long, a few others while they recur.
#pragma once

#include <cuda.h>

#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cuda/cuda_driver.hpp"
#include "device/lattice_device.hpp"

namespace d2q9 {

class CudaGraphs {
 public:
  // Queues a sequence's launches one by one on the kernel stream (captured into a graph here).
  using LaunchPlainly = std::function<void(const std::vector<StepLaunch>&)>;

  // `use_graphs`: false, every sequence launches plainly; `ramp_steps`: an
  // inlet's ramp, steps whose launches are never replayed.
  CudaGraphs(const CudaDriver& drv, bool use_graphs, int ramp_steps)
      : drv_(drv), use_graphs_(use_graphs), ramp_steps_(ramp_steps) {}
  ~CudaGraphs();
  CudaGraphs(const CudaGraphs&) = delete;
  CudaGraphs& operator=(const CudaGraphs&) = delete;

  // "graphs", or "plain launches" and why.
  std::string launch_mode() const;
  // The sequence's graph, captured on first use on stream `kernels` through
  // `launch_plainly`; nullptr once graphs have failed, so that the caller
  // launches plainly. `prepared`: kept all run long.
  CUgraphExec graph_for(const std::vector<StepLaunch>& launches, bool prepared, CUstream kernels,
                        const LaunchPlainly& launch_plainly);

 private:
  // A sequence is fully described by its launches, apart from the steps'
  // numbers, which only an inlet's ramp reads (and the base of the blocked
  // kernel's sample rows, which the device sets before them).
  using GraphKey = std::vector<std::tuple<int, int, int, int, bool, bool, int, int, int, int>>;
  static GraphKey graph_key(const std::vector<StepLaunch>& launches);
  CUgraphExec capture(const std::vector<StepLaunch>& launches, CUstream kernels, const LaunchPlainly& launch_plainly);

  const CudaDriver& drv_;
  bool use_graphs_;
  int ramp_steps_;
  std::string failed_;  // why graphs were given up, empty while they work
  std::map<GraphKey, CUgraphExec> graphs_;
  std::map<GraphKey, CUgraphExec> passing_graphs_;  // sequences not prepared (kPassingGraphs at most)
};

}  // namespace d2q9
