// The flow for ParaView and VisIt, one point per cell at (ii, jj, 0): legacy
// VTK image data (STRUCTURED_POINTS, binary) for old readers, XML image data
// (.vti) and a time series of .vti files (.pvd).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "io/fields.hpp"
#include "problem/problem.hpp"

namespace d2q9 {

// Legacy point data, all big-endian double as the format requires except the
// flag: density (params density on obstacles, as final_state.dat reports
// them), velocity (ux, uy, 0), speed |u|, with heat temperature, obstacle
// (unsigned char, 1 = blocked).
void write_vtk(std::FILE* out, const Params& params, const ObstacleMask& mask, const FlowFields& fields);

// XML ImageData, WholeExtent "0 nx-1 0 ny-1 0 0", origin 0, spacing 1; point
// data velocity (Float64, 3 components: ux, uy, 0), density, speed,
// vorticity, with heat temperature (Float64) and obstacle (UInt8), each an inline base64 "binary"
// DataArray: a little-endian UInt64 byte count, then the values. Fields of
// some rows only (a piece of a .pvti) give the extent of those rows:
// "0 nx-1 first_row first_row+ny-1 0 0", an image of its own as well.
void write_vti(std::FILE* out, const ObstacleMask& mask, const FlowFields& fields);

// A ParaView parallel image (.pvti): the whole nx x ny extent, the arrays
// write_vti writes (`temperature`: the pieces hold heat's), and one piece
// per file: global rows [first_row, last_row], the file named relative to
// the .pvti. Pieces of neighbouring rows share their boundary row, as VTK's
// point extents must.
struct PvtiPiece {
  int first_row, last_row;
  std::string file;
};
void write_pvti(std::FILE* out, int nx, int ny, const std::vector<PvtiPiece>& pieces, bool temperature);

// A ParaView collection: one DataSet per frame, its step as timestep and its
// file name relative to the .pvd.
struct PvdFrame {
  int step;
  std::string file;
};
void write_pvd(std::FILE* out, const std::vector<PvdFrame>& frames);

// RFC 4648 base64 with padding, as VTK's XML readers decode it.
std::string base64(const std::string& bytes);

}  // namespace d2q9
