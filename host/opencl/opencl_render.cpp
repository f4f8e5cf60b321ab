#include "opencl/opencl_render.hpp"

#include <algorithm>
#include <cmath>

namespace d2q9 {

OpenCLRenderer::OpenCLRenderer(const cl::Context& context, const cl::Device& device, const std::string& kernels_dir,
                               const std::vector<std::string>& defines)
    : context_(context), program_(build_opencl_program(context, device, kernels_dir, "render.cl", defines)) {
  try {
    field_ = cl::Kernel(program_, "render_field");
    edges_ = cl::Kernel(program_, "render_edges");
  } catch (const cl::Error& e) {
    rethrow_cl(e, "making the live view's render kernel");
  }
}

void OpenCLRenderer::fit_edges(int width) {
  const std::size_t values = 2 * static_cast<std::size_t>(std::max(width, 1));
  if (values <= edge_values_) return;  // grows to the widest picture asked for, and is kept
  edge_ux_ = cl::Buffer(context_, CL_MEM_READ_WRITE, values * sizeof(cl_float));
  edge_values_ = values;
}

std::vector<float> OpenCLRenderer::render(cl::CommandQueue& queue, const cl::Buffer& lattice,
                                          const cl::Buffer& obstacles, const FieldImageRequest& request,
                                          const RenderPart& part, const std::vector<float>& edge_ux) {
  const FieldImageLayout& l = part.layout;
  const std::size_t pixels = static_cast<std::size_t>(l.width) * part.pixels.count;
  std::vector<float> values(pixels);
  if (pixels == 0) return values;
  try {
    if (pixels > pixels_) {  // grows to the largest picture asked for, and is kept
      values_ = cl::Buffer(context_, CL_MEM_WRITE_ONLY, pixels * sizeof(cl_float));
      pixels_ = pixels;
    }
    fit_edges(l.width);
    if (!edge_ux.empty())
      queue.enqueueWriteBuffer(edge_ux_, CL_FALSE, 0, edge_ux.size() * sizeof(float), edge_ux.data());
    int arg = 0;
    for (const auto* buffer : {&lattice, &obstacles}) field_.setArg(arg++, *buffer);
    for (const int value : {static_cast<int>(request.field), l.scale, l.width, l.height, part.pixels.first,
                            part.pixels.count, part.grid_ny, part.first_row, part.rows, part.first_local})
      field_.setArg(arg++, value);
    field_.setArg(arg++, edge_ux_);
    field_.setArg(arg++, values_);
    queue.enqueueNDRangeKernel(field_, cl::NullRange, cl::NDRange(l.width, part.pixels.count), cl::NullRange);
    queue.enqueueReadBuffer(values_, CL_TRUE, 0, pixels * sizeof(float), values.data());
  } catch (const cl::Error& e) {
    rethrow_cl(e, "drawing the live view's picture");
  }
  return values;
}

std::vector<float> OpenCLRenderer::edges(cl::CommandQueue& queue, const cl::Buffer& lattice,
                                         const cl::Buffer& obstacles, const RenderPart& part) {
  const FieldImageLayout& l = part.layout;
  std::vector<float> out(2 * static_cast<std::size_t>(l.width));
  try {
    fit_edges(l.width);
    int arg = 0;
    for (const auto* buffer : {&lattice, &obstacles}) edges_.setArg(arg++, *buffer);
    for (const int value : {l.scale, l.width, part.rows, part.first_local}) edges_.setArg(arg++, value);
    edges_.setArg(arg++, edge_ux_);
    queue.enqueueNDRangeKernel(edges_, cl::NullRange, cl::NDRange(l.width, 2), cl::NullRange);
    queue.enqueueReadBuffer(edge_ux_, CL_TRUE, 0, out.size() * sizeof(float), out.data());
  } catch (const cl::Error& e) {
    rethrow_cl(e, "drawing the live view's picture");
  }
  return out;
}

}  // namespace d2q9
