// Serial CPU implementation of the model, written for clarity rather than
// speed: it is the oracle the device backends are tested against.
#pragma once

#include <array>
#include <vector>

#include "device/solver.hpp"

namespace d2q9 {

template <typename Real>
class ReferenceSolver final : public Solver {
 public:
  ReferenceSolver(const Params& params, const ObstacleMask& mask);

  Backend backend() const override { return Backend::Reference; }
  std::string device_name() const override { return "serial CPU reference"; }
  Precision precision() const override { return sizeof(Real) == sizeof(float) ? Precision::Float : Precision::Double; }
  void run(int steps, std::vector<double>& av_vels) override;
  std::vector<double> distributions() override;
  void load_distributions(const std::vector<double>& f) override;

  // The steps of one timestep, in the order the model applies them.
  void accelerate_flow();
  void propagate();
  void rebound();
  void collision();
  Real av_velocity() const;

 private:
  using Cell = std::array<Real, kSpeeds>;
  Params params_;
  ObstacleMask mask_;
  std::vector<Cell> cells_;
  std::vector<Cell> tmp_cells_;
};

extern template class ReferenceSolver<float>;
extern template class ReferenceSolver<double>;

}  // namespace d2q9
