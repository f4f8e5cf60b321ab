// Serial CPU implementation of the model, written for clarity rather than
// speed: it is the oracle the device backends are tested against.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "device/backend_entry.hpp"
#include "device/solver.hpp"
#include "problem/storage16.hpp"

namespace d2q9 {

template <typename Real>
class ReferenceSolver final : public Solver {
 public:
  // `storage` Fp16s or Fp16c (with Real = float): the state is kept in that
  // 16-bit format between steps, rounded where the kernels store it.
  ReferenceSolver(const Params& params, const ObstacleMask& mask, std::optional<Precision> storage = std::nullopt);

  Backend backend() const override { return Backend::Reference; }
  std::string device_name() const override { return "serial CPU reference"; }
  Precision precision() const override {
    if (storage_format_) return *storage_format_;
    return sizeof(Real) == sizeof(float) ? Precision::Float : Precision::Double;
  }
  void run(int steps, std::vector<double>& av_vels) override;
  std::vector<double> distributions() override;
  std::vector<double> take_body_forces() override { return std::exchange(body_forces_, {}); }
  void load_distributions(const std::vector<double>& f) override;
  int values_per_cell() const override { return params_.extensions.planes(); }

  // The steps of one timestep, in the order the model applies them.
  void accelerate_flow();
  void propagate();
  void interpolate_links();
  void open_edges();
  void rebound();
  void measure_body_forces();
  void collision();
  void absorb();  // the sponges, after the collision
  Real av_velocity() const;
  // Heat (cl/heat.cl): the temperature lattice's pull, its walls, its
  // inlets (and each cell's temperature), and its collision after the flow's.
  void propagate_heat();
  void rebound_heat();
  void heat_inlets();
  void collide_heat();

 private:
  using Cell = std::array<Real, kSpeeds>;
  // 16-bit storage: speed k of cell i stored, and read back as the kernels do;
  // the same for the temperature's speed k (plane 9 + k).
  void store(std::size_t i, int k);
  void store_heat(std::size_t i, int k);
  // An inlet's velocity (u.n, u.t) at cell s along its edge this step: its profile and ramp.
  std::array<Real, 2> inflow(const OpenBoundary& b, int s) const;
  // Moving wall `number`'s velocity (x, y) at cell i: its own, and its rotation's.
  std::array<Real, 2> wall_velocity(int number, Real x, Real y) const;
  Real moving_push(std::uint8_t wall, int k, Real x, Real y, Real density) const;
  std::optional<Precision> storage_format_;
  std::optional<Storage16> storage_;
  std::vector<std::array<std::uint16_t, kSpeeds>> codes_;
  Params params_;
  ObstacleMask mask_;
  std::vector<Cell> cells_;
  std::vector<Cell> tmp_cells_;
  std::vector<double> body_forces_;  // per step, Fx and Fy per measured body
  std::vector<double> link_forces_;  // this step's curved links' share of body_forces_
  int step_ = 0;                     // the step being run, counted from the run's start
  std::vector<Real> speed_;  // |u| each fluid cell collided with, for av_velocity()
  using HeatCell = std::array<Real, kHeatSpeeds>;
  std::vector<HeatCell> heat_, tmp_heat_;  // with heat: the state, and what each cell pulled
  std::vector<std::array<std::uint16_t, kHeatSpeeds>> heat_codes_;  // with heat and 16-bit storage: heat_'s codes
  std::vector<Real> temperature_, ux_, uy_;  // each cell's temperature and the velocity it collided with
};

extern template class ReferenceSolver<float>;
extern template class ReferenceSolver<double>;

// The reference in the registry's table (reference_entry.cpp): a serial
// solver of the precision asked for, no devices.
const BackendEntry& reference_backend_entry();

}  // namespace d2q9
