#include "opencl/opencl_render.hpp"

#include <cmath>

namespace d2q9 {

OpenCLRenderer::OpenCLRenderer(const cl::Context& context, const cl::Device& device, const std::string& kernels_dir,
                               const std::vector<std::string>& defines)
    : context_(context), program_(build_opencl_program(context, device, kernels_dir, "render.cl", defines)) {
  try {
    field_ = cl::Kernel(program_, "render_field");
  } catch (const cl::Error& e) {
    rethrow_cl(e, "making the live view's render kernel");
  }
}

FieldImage OpenCLRenderer::render(cl::CommandQueue& queue, const cl::Buffer& lattice, const cl::Buffer& obstacles,
                                  int nx, int ny, const FieldImageRequest& request) {
  const FieldImageLayout l = field_image_layout(nx, ny, request.width);
  const std::size_t pixels = static_cast<std::size_t>(l.width) * l.height;
  std::vector<float> values(pixels);
  try {
    if (pixels > pixels_) {  // grows to the largest picture asked for, and is kept
      values_ = cl::Buffer(context_, CL_MEM_WRITE_ONLY, pixels * sizeof(cl_float));
      pixels_ = pixels;
    }
    int arg = 0;
    for (const auto* buffer : {&lattice, &obstacles}) field_.setArg(arg++, *buffer);
    for (const int value : {static_cast<int>(request.field), l.scale, l.width, l.height}) field_.setArg(arg++, value);
    field_.setArg(arg++, values_);
    queue.enqueueNDRangeKernel(field_, cl::NullRange, cl::NDRange(l.width, l.height), cl::NullRange);
    queue.enqueueReadBuffer(values_, CL_TRUE, 0, pixels * sizeof(float), values.data());
  } catch (const cl::Error& e) {
    rethrow_cl(e, "drawing the live view's picture");
  }
  return colour_field_image(request.field, l.width, l.height, values, "device");
}

}  // namespace d2q9
