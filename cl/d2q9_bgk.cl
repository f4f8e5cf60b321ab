// D2Q9 BGK lattice Boltzmann kernels: the one source of the physics.
//
// Compiled at run time with the problem's constants injected as defines:
//   NX, NY              grid size
//   REAL_IS_DOUBLE      defined for double precision
//   DENSITY, ACCEL, OMEGA   problem parameters (literals)
//   LOCAL_SIZE_X, LOCAL_SIZE_Y  work-group shape (the reduction's local array size)
//   REDUCE_POW2         largest power of two below LOCAL_SIZE_X*LOCAL_SIZE_Y (0 when it is 1)
//   ROWS_PER_ITEM       rows each work-item of propagate_rebound_collide updates (default 1)
//   INDEX64             64-bit indices (grids of 2^31 or more distribution values)
//   BLOCK_STEPS, TILE_X, TILE_Y  propagate_rebound_collide_blocked: steps per launch and tile
//   PROBES_IN_LAUNCH    the blocked kernel samples probes in its launches
//   UNIFORM_BARRIERS    (CPU devices) every barrier outside branches, as PoCL's
//                       compile of the blocked kernel needs
//   STEP_KERNELS        which other step kernels the build holds, a sum of 1
//                       (propagate_rebound_collide) and 4 (_rows);
//                       default both. Hosts build only their plan's: every
//                       kernel costs compile time before the first step
//   STORAGE_FP16S or STORAGE_FP16C, with STORAGE_SCALE and STORAGE_INV_SCALE:
//                       distributions stored in 16 bits (float arithmetic; see below)
//     and with THERMAL THERMAL_REST, THERMAL_STORAGE_SCALE, THERMAL_STORAGE_INV_SCALE:
//                       the temperature's planes' rest temperature and scale (lattice.cl)
// and, only for one slab of a grid split across MPI ranks (host/mpi/), whose
// local lattice has a halo row below (row 0) and above (row NY-1):
//   FIRST_ROW, LAST_ROW  rows propagate_rebound_collide updates (default 0 and NY-1);
//                        work-item row j updates row FIRST_ROW + j
//   ACCEL_ROW            the accelerated row (default NY-2; -1: not in this slab)
// and, for such a slab run by propagate_rebound_collide_blocked, whose lattice
// has BLOCK_STEPS halo rows each side (rows FIRST_ROW..LAST_ROW its own):
//   BLOCKED_SLAB with GRID_NY, SLAB_ROW0, SLAB_GROUPS   the whole grid's rows,
//                        its row of lattice row 0 and the slab's tiles: the
//                        kernel passes collide() the grid's rows, finds the
//                        accelerated row (GRID_NY-2) in its halo rows too
//                        (ROW_OFFSET is not set) and takes first_group_row
// and, only for problems that use them (problem files, docs/problem-files.md),
// each compiled in alone so that coursework kernels stay as they are:
//   MOVING_WALL with WALL_NUMBERS, WALL_VELOCITIES   the velocity of each moving
//                                       wall number (cells of kind CELL_MOVING_WALL)
//   FREE_SLIP                           cells of kind CELL_FREE_SLIP (reflect)
//   BODY_FORCE with FORCE_X, FORCE_Y    force per unit volume on the fluid (Guo forcing)
//   OPEN_EDGES with <EDGE>_INLET or <EDGE>_OUTLET and their values
//                                       Zou/He velocity inlets and pressure
//                                       outlets on any edge (open_edges.cl)
//     and INLET_RAMP                    steps over which the inlets' velocity rises from 0
//   SPONGE with SPONGE_<EDGE>, SPONGE_STRENGTH, FAR_FIELD_<EDGE>, FAR_DENSITY
//                                       absorbing layers beside open edges (absorb)
//   COLLISION_TRT with OMEGA_MINUS      two-relaxation-time collision (trt_pair)
//   COLLISION_REGULARISED               regularised BGK collision
//   SMAGORINSKY with SMAGORINSKY_TAU0, SMAGORINSKY_FACTOR (and TRT_MAGIC with
//                       COLLISION_TRT)  the Smagorinsky subgrid model: each
//                                       cell's own rates (smagorinsky_tau)
//   CURVED_LINKS        curved walls (interpolated bounce-back): `obstacles`
//                       holds 8 planes of link bytes after the obstacle bytes
//   THERMAL             heat: a temperature lattice (D2Q5) in planes 9-13 of
//                       the distributions, its walls and buoyancy (heat.cl)
//   FORCE_BODIES        bodies whose force is measured (momentum exchange): an
//                       obstacle byte's number (cell_kinds.cl) is its body
//                       (1..FORCE_BODIES; 0: not measured); each work-group's
//                       partial sums then hold |u| and (Fx, Fy) per body
// With halo rows the pull never wraps in y.
//
// Every step kernel takes the same nine arguments, so that a host launches
// any of them alike: src, dst, obstacles, partial_sums, partial_offset,
// accelerate_next, steps (read by _blocked alone: the others run one step),
// first_group_row (read by the one-step kernels and a slab's
// _blocked: a slab launches its edge rows and its interior separately) and step, the number
// of the launch's first step counted from the run's start (read only with
// INLET_RAMP).
//
// Each cell's byte in `obstacles` is its kind (cell_kinds.cl): the cell
// physics (cell_physics.cl, open_edges.cl, curved_walls.cl) updates a cell
// as its kind says; the launch schemes (launch_*.cl) only move data.
//
// The arithmetic contract (docs/arithmetic.md): the stored distributions are
// bit-identical across backends and the serial reference. Each operation is
// one IEEE operation or one explicit fma (correctly rounded in OpenCL C, CUDA
// and C++); nothing else is fused (FP_CONTRACT OFF here, --fmad=false in
// NVRTC, -ffp-contract=off for the reference); division and sqrt are
// correctly rounded. Only |u| and its sums (av_vels) may differ, by the
// order of summation.
//
// Helper functions are ALWAYS_INLINE functions (NVRTC compiles them as
// device functions with -default-device).
//
// Distributions are structure-of-arrays: speed k of cell (ii, jj) sits at
// k*NX*NY + ii + jj*NX. Speeds: 0 rest, 1 E, 2 N, 3 W, 4 S, 5 NE, 6 NW, 7 SW, 8 SE.
// The kernels stay inside the subset that both OpenCL C 1.2 and CUDA (through
// cl/cuda_prelude.h) accept.

// The program is these parts in this order, joined by the host
// (host/device/kernel_source.cpp: read_kernel_source) for OpenCL and NVRTC alike.
#include "cell_kinds.cl"
#include "lattice.cl"
#include "launch_common.cl"
#include "open_edges.cl"
#include "heat.cl"
#include "cell_physics.cl"
#include "curved_walls.cl"
#include "launch_one_step.cl"
#include "launch_blocked.cl"
#include "launch_rows.cl"
