// The live view's pictures sampled on an OpenCL device (cl/render.cl): only
// the picture's values come back to the host, which colours them.
#pragma once

#include <string>
#include <vector>

#include "device/lattice_device.hpp"
#include "io/field_image.hpp"
#include "opencl/cl_common.hpp"

namespace d2q9 {

class OpenCLRenderer {
 public:
  // Builds cl/render.cl from `kernels_dir` with the lattice's `defines`
  // (DeviceError naming the build's failure).
  OpenCLRenderer(const cl::Context& context, const cl::Device& device, const std::string& kernels_dir,
                 const std::vector<std::string>& defines);
  // The values of `part`'s pixel rows of `lattice` (LatticeDevice::render),
  // on `queue` after everything queued before them; blocking.
  std::vector<float> render(cl::CommandQueue& queue, const cl::Buffer& lattice, const cl::Buffer& obstacles,
                            const FieldImageRequest& request, const RenderPart& part, const std::vector<float>& edge_ux);
  // ux at the picture's columns of `part`'s first and last own rows (LatticeDevice::render_edges); blocking.
  std::vector<float> edges(cl::CommandQueue& queue, const cl::Buffer& lattice, const cl::Buffer& obstacles,
                           const RenderPart& part);

 private:
  // The edge buffer holding at least 2 * width values (and one at least: the whole grid passes none).
  void fit_edges(int width);

  cl::Context context_;
  cl::Program program_;
  cl::Kernel field_;
  cl::Kernel edges_;
  cl::Buffer values_;
  std::size_t pixels_ = 0;  // the buffer's size
  cl::Buffer edge_ux_;      // render_field's edge_ux, and render_edges' out
  std::size_t edge_values_ = 0;
};

}  // namespace d2q9
