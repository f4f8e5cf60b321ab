#include "opencl/opencl_render.hpp"

#include <cmath>

namespace d2q9 {

OpenCLRenderer::OpenCLRenderer(const cl::Context& context, const cl::Device& device, const std::string& kernels_dir,
                               const std::vector<std::string>& defines)
    : context_(context), program_(build_opencl_program(context, device, kernels_dir, "render.cl", defines)) {
  try {
    field_ = cl::Kernel(program_, "render_field");
    colours_ = cl::Kernel(program_, "render_colours");
  } catch (const cl::Error& e) {
    rethrow_cl(e, "making the live view's render kernels");
  }
}

FieldImage OpenCLRenderer::render(cl::CommandQueue& queue, const cl::Buffer& lattice, const cl::Buffer& obstacles,
                                  int nx, int ny, const FieldImageRequest& request) {
  const FieldImageLayout l = field_image_layout(nx, ny, request.width);
  const std::size_t pixels = static_cast<std::size_t>(l.width) * l.height;
  FieldImage image;
  image.field = request.field;
  image.width = l.width;
  image.height = l.height;
  image.made_by = "device";
  try {
    // Buffers grow to the largest picture asked for and are kept.
    if (pixels > pixels_) {
      values_ = cl::Buffer(context_, CL_MEM_READ_WRITE, pixels * sizeof(cl_float));
      rgba_ = cl::Buffer(context_, CL_MEM_WRITE_ONLY, pixels * 4);
      pixels_ = pixels;
    }
    if (static_cast<std::size_t>(l.height) > rows_) {
      ranges_ = cl::Buffer(context_, CL_MEM_WRITE_ONLY, 2 * l.height * sizeof(cl_float));
      rows_ = l.height;
    }
    const int field = static_cast<int>(request.field);
    int arg = 0;
    for (const auto* buffer : {&lattice, &obstacles}) field_.setArg(arg++, *buffer);
    for (const int value : {field, l.scale, l.width, l.height}) field_.setArg(arg++, value);
    field_.setArg(arg++, values_);
    field_.setArg(arg++, ranges_);
    queue.enqueueNDRangeKernel(field_, cl::NullRange, cl::NDRange(l.height), cl::NullRange);
    std::vector<float> ranges(2 * static_cast<std::size_t>(l.height));
    queue.enqueueReadBuffer(ranges_, CL_TRUE, 0, ranges.size() * sizeof(float), ranges.data());
    image.range = image_range(request.field, ranges);
    colours_.setArg(0, values_);
    colours_.setArg(1, field);
    colours_.setArg(2, static_cast<float>(image.range.low));
    colours_.setArg(3, static_cast<float>(image.range.high));
    colours_.setArg(4, static_cast<int>(pixels));
    colours_.setArg(5, rgba_);
    queue.enqueueNDRangeKernel(colours_, cl::NullRange, cl::NDRange(pixels), cl::NullRange);
    image.rgba.resize(pixels * 4);
    queue.enqueueReadBuffer(rgba_, CL_TRUE, 0, image.rgba.size(), image.rgba.data());
  } catch (const cl::Error& e) {
    rethrow_cl(e, "drawing the live view's picture");
  }
  return image;
}

}  // namespace d2q9
