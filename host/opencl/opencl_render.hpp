// The live view's pictures sampled on an OpenCL device (cl/render.cl): only
// the picture's values come back to the host, which colours them.
#pragma once

#include <string>
#include <vector>

#include "io/field_image.hpp"
#include "opencl/cl_common.hpp"

namespace d2q9 {

class OpenCLRenderer {
 public:
  // Builds cl/render.cl from `kernels_dir` with the lattice's `defines`
  // (DeviceError naming the build's failure).
  OpenCLRenderer(const cl::Context& context, const cl::Device& device, const std::string& kernels_dir,
                 const std::vector<std::string>& defines);
  // The picture of `lattice` (the whole nx x ny grid) on `queue`, after
  // everything queued before it; blocking.
  FieldImage render(cl::CommandQueue& queue, const cl::Buffer& lattice, const cl::Buffer& obstacles, int nx, int ny,
                    const FieldImageRequest& request);

 private:
  cl::Context context_;
  cl::Program program_;
  cl::Kernel field_;
  cl::Buffer values_;
  std::size_t pixels_ = 0;  // the buffer's size
};

}  // namespace d2q9
