#include "opencl/opencl_lattice.hpp"

#include <mutex>

#include <algorithm>
#include <map>
#include <mutex>

#include "device/kernel_source.hpp"
#include "core/stopwatch.hpp"
#include "problem/lattice.hpp"

namespace d2q9 {

namespace {

// Work-items per work-group that a kernel of ours may take on `device`:
// CL_KERNEL_WORK_GROUP_SIZE of a probe kernel with a barrier and local
// memory, as ours have, built once per device and process. NVIDIA's and
// PoCL's give the device's own limit, so only rusticl pays for the probe
// (its llvmpipe gives 32 of its 1024). Each solver still checks its own
// kernels when built (check_kernel_group_limit): a kernel may allow fewer.
int kernel_group_limit(const cl::Device& device, const std::string& platform, int device_max) {
  if (platform != "rusticl") return device_max;
  static std::mutex mutex;
  static std::map<cl_device_id, int> known;
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = known.find(device()); it != known.end()) return it->second;
  int limit = device_max;
  try {
    const cl::Context context(device);
    cl::Program program(context,
                        "__kernel void probe(__global float* out, __local float* scratch) {\n"
                        "  scratch[get_local_id(0)] = (float)get_global_id(0);\n"
                        "  barrier(CLK_LOCAL_MEM_FENCE);\n"
                        "  out[get_global_id(0)] = scratch[0];\n"
                        "}\n");
    program.build({device});
    const cl::Kernel kernel(program, "probe");
    const std::size_t kernel_max = kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device);
    if (kernel_max > 0) limit = static_cast<int>(std::min<std::size_t>(kernel_max, device_max));
  } catch (const cl::Error&) {
    // The device's own limit: the solver's kernels are checked when built.
  }
  known.emplace(device(), limit);
  return limit;
}

}  // namespace

DeviceLimits opencl_device_limits(const cl::Device& device) {
  DeviceLimits l;
  try {
    l.name = trimmed(device.getInfo<CL_DEVICE_NAME>());
    l.platform = trimmed(cl::Platform(device.getInfo<CL_DEVICE_PLATFORM>()).getInfo<CL_PLATFORM_NAME>());
    l.fp64 = device.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() != 0;
    l.gpu = (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0;
    const auto items = device.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>();
    const auto clamp = [](std::size_t v) { return static_cast<int>(std::min<std::size_t>(v, 1 << 30)); };
    l.max_x = clamp(items.at(0));
    l.max_y = clamp(items.at(1));
    l.max_threads = kernel_group_limit(device, l.platform, clamp(device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>()));
    l.has_rows_kernel = true;
    l.local_mem_bytes = static_cast<long long>(device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>());
    l.compute_units = static_cast<int>(device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
  } catch (const cl::Error& e) {
    rethrow_cl(e, "reading the device's limits");
  }
  return l;
}

// One context per device for the whole process: a program that runs one
// simulation after another (the library API, the launch search) pays for it
// once. Never freed: some drivers fail when a context outlives their unload.
static cl::Context shared_context(const cl::Device& device, bool* reused) {
  static std::mutex guard;
  static auto* contexts = new std::vector<std::pair<cl_device_id, cl::Context>>();
  const std::lock_guard<std::mutex> lock(guard);
  for (const auto& [id, context] : *contexts)
    if (id == device()) {
      *reused = true;
      return context;
    }
  contexts->emplace_back(device(), cl::Context(device));
  *reused = false;
  return contexts->back().second;
}

OpenCLLattice::OpenCLLattice(const cl::Device& dev, const Params& lattice, const LaunchPlan& plan, Precision p,
                             const std::string& kernels_dir, const std::vector<std::string>& defines,
                             std::size_t partial_values, const ObstacleMask& mask)
    : device(dev),
      device_name(trimmed(dev.getInfo<CL_DEVICE_NAME>())),
      one_write_per_buffer(cl::Platform(dev.getInfo<CL_DEVICE_PLATFORM>()).getInfo<CL_PLATFORM_NAME>().find("Oclgrind") !=
                           std::string::npos),
      precision(p),
      lattice(lattice),
      cells(lattice.cells()),
      planes(lattice.extensions.planes()) {
  if (precision == Precision::Double && device.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() == 0)
    throw DeviceError(device_name + " does not support double precision (cl_khr_fp64); use --precision float");
  const std::size_t lattice_bytes = planes * plane_bytes();
  const std::size_t partial_bytes = partial_values * real_size(precision);
  const std::vector<std::uint8_t> obstacle_bytes = obstacle_buffer(mask);
  check_device_memory("grid " + std::to_string(lattice.nx) + "x" + std::to_string(lattice.ny),
                      2ULL * lattice_bytes + obstacle_bytes.size() + partial_bytes, lattice_bytes,
                      device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>(), device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>(),
                      device_name);
  try {
    Stopwatch watch;
    context = shared_context(device, &setup.context_reused);
    queue = cl::CommandQueue(context, device);
    setup.context_s = watch.lap();
    program = build_opencl_program(context, device, kernels_dir, kKernelFile, defines, &setup);
    const std::vector<std::string> plain = defines_without_probes(defines);
    if (!plain.empty()) {
      SetupTimes twin;
      program_plain = build_opencl_program(context, device, kernels_dir, kKernelFile, plain, &twin);
      setup.compile_cost_s += twin.compile_cost_s;
      setup.kernels_cached = setup.kernels_cached && twin.kernels_cached;
    }
    setup.compile_s = watch.lap();
    for (auto& buf : lattices) buf = cl::Buffer(context, CL_MEM_READ_WRITE, lattice_bytes);
    obstacles = cl::Buffer(context, CL_MEM_READ_ONLY, obstacle_bytes.size());
    partials = cl::Buffer(context, CL_MEM_READ_WRITE, partial_bytes);
    // One write: oclgrind tracks only a buffer's last host write as initialised.
    queue.enqueueWriteBuffer(obstacles, CL_TRUE, 0, obstacle_bytes.size(), obstacle_bytes.data());
    setup.upload_s = watch.lap();
    long long kernel_max = 1LL << 30;
    for (int b = 0; b < 2; ++b) {
      accelerate[b] = cl::Kernel(program, "accelerate_flow");
      accelerate[b].setArg(0, lattices[b]);
      accelerate[b].setArg(1, obstacles);
      collide[b] = cl::Kernel(program, plan.step_kernel());
      collide_plain[b] = program_plain() ? cl::Kernel(program_plain, plan.step_kernel()) : collide[b];
      for (cl::Kernel* k : {&collide[b], &collide_plain[b]}) {
        cl::Kernel& kernel = *k;
        kernel.setArg(0, lattices[b]);
        kernel.setArg(1, lattices[1 - b]);
        kernel.setArg(2, obstacles);
        kernel.setArg(3, partials);
        kernel.setArg(4, 0);
        kernel.setArg(5, 0);
        kernel.setArg(6, 1);
        kernel.setArg(7, 0);
        kernel.setArg(8, 0);
        if (plan.variant == KernelVariant::Blocked) {
          // No probes yet (set_sample_cells): null buffers, never read.
          kernel.setArg(9, cl::Buffer());
          kernel.setArg(10, cl::Buffer());
          kernel.setArg(11, 0);
          kernel.setArg(12, 0);
          kernel.setArg(13, 1);
          kernel.setArg(14, 0);
          kernel.setArg(15, cl::Buffer());  // tiles row by row (OpenCLDevice sets an order)
        }
        kernel_max = std::min<long long>(kernel_max, kernel.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device));
      }
    }
    check_kernel_group_limit(plan, kernel_max, "propagate_rebound_collide", device_name);
    setup.compile_s += watch.lap();  // kernels made from the program
  } catch (const cl::Error& e) {
    rethrow_cl(e, "setting up " + device_name);
  }
}

std::vector<double> OpenCLLattice::download(int which) {
  std::vector<unsigned char> raw(planes * plane_bytes());
  try {
    queue.enqueueReadBuffer(lattices[which], CL_TRUE, 0, raw.size(), raw.data());
  } catch (const cl::Error& e) {
    rethrow_cl(e, "reading results from " + device_name);
  }
  return from_device_reals(raw.data(), planes * cells, precision, lattice);
}

void OpenCLLattice::upload(int which, const std::vector<double>& f) {
  if (f.size() != planes * cells) throw std::invalid_argument("load_distributions: wrong number of values");
  const std::vector<unsigned char> raw = to_device_reals(f, precision, lattice);
  try {
    queue.enqueueWriteBuffer(lattices[which], CL_TRUE, 0, raw.size(), raw.data());
  } catch (const cl::Error& e) {
    rethrow_cl(e, "uploading distributions to " + device_name);
  }
}

void OpenCLLattice::fill_at_rest(int which, const Params& params) {
  // Written from a block of cells at rest rather than by clEnqueueFillBuffer,
  // which NVIDIA's OpenCL failed (CL_INVALID_COMMAND_QUEUE) on a 9.7 GB lattice.
  Params block_cells = params;
  block_cells.nx = static_cast<int>(std::min<std::size_t>(cells, 1 << 20));
  block_cells.ny = 1;
  const std::size_t block = block_cells.cells();
  const std::vector<unsigned char> values = to_device_reals(initial_distributions(block_cells), precision, lattice);
  const std::size_t value_bytes = stored_size(precision);
  try {
    for (int k = 0; k < planes; ++k)
      for (std::size_t done = 0; done < cells; done += block)
        queue.enqueueWriteBuffer(lattices[which], CL_FALSE, (k * cells + done) * value_bytes,
                                 std::min(block, cells - done) * value_bytes, values.data() + k * block * value_bytes);
    queue.finish();  // before `values` goes
  } catch (const cl::Error& e) {
    rethrow_cl(e, "setting up " + device_name);
  }
}

}  // namespace d2q9
