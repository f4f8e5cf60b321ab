#include "cuda/cuda_graphs.hpp"

#include "core/types.hpp"

namespace d2q9 {

namespace {

constexpr std::size_t kPassingGraphs = 8;

}  // namespace

#define CU_CALL(call, ...) check_cuda(drv_.call(__VA_ARGS__), #call)

CudaGraphs::~CudaGraphs() {
  for (auto* graphs : {&graphs_, &passing_graphs_}) {
    for (auto& entry : *graphs) drv_.cuGraphExecDestroy(entry.second);
    graphs->clear();
  }
}

std::string CudaGraphs::launch_mode() const {
  return failed_.empty() ? (use_graphs_ ? "graphs" : "plain launches (graphs turned off)")
                         : "plain launches (" + failed_ + ")";
}

CudaGraphs::GraphKey CudaGraphs::graph_key(const std::vector<StepLaunch>& launches) {
  GraphKey key;
  for (const StepLaunch& l : launches)
    key.emplace_back(l.state, l.first_group_row, l.group_rows, l.steps, l.accelerate_before,
                     l.accelerate_next, l.partial_offset, l.sample_first, l.sample_first > 0 ? l.sample_every : 0,
                     l.sample_first > 0 ? l.sample_row : 0);
  return key;
}

CUgraphExec CudaGraphs::capture(const std::vector<StepLaunch>& launches, CUstream kernels,
                                const LaunchPlainly& launch_plainly) {
  // Graphs hold their launches' arguments: captured past an inlet's ramp,
  // where the step no longer matters (sequences inside it launch plainly).
  std::vector<StepLaunch> past_ramp = launches;
  for (StepLaunch& l : past_ramp) l.step = ramp_steps_ + (l.step - launches.front().step);
  CU_CALL(cuStreamBeginCapture, kernels, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  std::string failure;
  try {
    launch_plainly(past_ramp);
  } catch (const DeviceError& e) {
    failure = e.what();
  }
  CUgraph graph = nullptr;
  const CUresult ended = drv_.cuStreamEndCapture(kernels, &graph);
  if (!failure.empty() || ended != CUDA_SUCCESS) {
    if (graph) drv_.cuGraphDestroy(graph);
    if (failure.empty()) check_cuda(ended, "cuStreamEndCapture");
    throw DeviceError(failure);
  }
  CUgraphExec exec = nullptr;
  const CUresult instantiated = drv_.cuGraphInstantiate(&exec, graph, 0);
  drv_.cuGraphDestroy(graph);
  check_cuda(instantiated, "cuGraphInstantiate");
  return exec;
}

CUgraphExec CudaGraphs::graph_for(const std::vector<StepLaunch>& launches, bool prepared, CUstream kernels,
                                  const LaunchPlainly& launch_plainly) {
  if (!use_graphs_ || !failed_.empty()) return nullptr;
  const GraphKey key = graph_key(launches);
  if (const auto found = graphs_.find(key); found != graphs_.end()) return found->second;
  if (const auto found = passing_graphs_.find(key); found != passing_graphs_.end()) return found->second;
  // Prepared sequences are reused all run long; others (a call's last
  // chunk, the chunks that end at probes: a few, alternating in state and
  // partial-sum half) are kept until there are kPassingGraphs of them, so
  // the cache stays small and alternating chunks are not captured anew.
  auto& graphs = prepared ? graphs_ : passing_graphs_;
  if (!prepared && passing_graphs_.size() >= kPassingGraphs) {
    for (auto& entry : passing_graphs_) drv_.cuGraphExecDestroy(entry.second);
    passing_graphs_.clear();
  }
  try {
    return graphs[key] = capture(launches, kernels, launch_plainly);
  } catch (const DeviceError& e) {
    graphs.erase(key);
    failed_ = std::string("graph capture failed: ") + e.what();
    return nullptr;
  }
}

}  // namespace d2q9
