// The flow for ParaView and VisIt, one point per cell at (ii, jj, 0): legacy
// VTK image data (STRUCTURED_POINTS, binary) for old readers, XML image data
// (.vti, raw appended arrays) and a time series of .vti files (.pvd).
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "core/types.hpp"
#include "io/fields.hpp"
#include "problem/problem.hpp"

namespace d2q9 {

// Legacy point data, all big-endian double as the format requires except the
// flag: density (params density on obstacles, as final_state.dat reports
// them), velocity (ux, uy, 0), speed |u|, with heat temperature, obstacle
// (unsigned char, 1 = blocked).
void write_vtk(std::FILE* out, const Params& params, const ObstacleMask& mask, const FlowFields& fields);

// The value type of a .vti's real arrays: Float32 for float and 16-bit runs
// (whose state holds no more than a float does), Float64 for double ones.
enum class VtiReal { Float32, Float64 };
inline VtiReal vti_real_for(Precision p) { return p == Precision::Double ? VtiReal::Float64 : VtiReal::Float32; }
inline const char* vti_type_name(VtiReal real) { return real == VtiReal::Float32 ? "Float32" : "Float64"; }

// XML ImageData, WholeExtent "0 nx-1 0 ny-1 0 0", origin 0, spacing 1; point
// data velocity (`real`, 3 components: ux, uy, 0), density, speed,
// vorticity, with heat temperature (`real`) and obstacle (UInt8). Every
// DataArray is format="appended" with its offset into one raw
// <AppendedData> block after the XML: for each array in file order a
// little-endian UInt64 byte count, then its little-endian values, so that
// offset(k+1) = offset(k) + 8 + bytes(k). Fields of some rows only (a piece
// of a .pvti) give the extent of those rows: "0 nx-1 first_row
// first_row+ny-1 0 0", an image of its own as well.
void write_vti(std::FILE* out, const ObstacleMask& mask, const FlowFields& fields, VtiReal real);

// A ParaView parallel image (.pvti): the whole nx x ny extent, the arrays
// write_vti writes (`temperature`: the pieces hold heat's), and one piece
// per file: global rows [first_row, last_row], the file named relative to
// the .pvti. Pieces of neighbouring rows share their boundary row, as VTK's
// point extents must.
struct PvtiPiece {
  int first_row, last_row;
  std::string file;
};
void write_pvti(std::FILE* out, int nx, int ny, const std::vector<PvtiPiece>& pieces, bool temperature, VtiReal real);

// A .vti read back, as write_vti writes one: raw appended arrays, UInt32 or
// UInt64 byte counts, little-endian, uncompressed (what ParaView re-saves in
// another encoding is refused, naming it). Each array's values as doubles,
// components interleaved, one tuple per point, x fastest.
struct VtiValues {
  std::string name;
  int components = 1;
  std::vector<double> values;
};
struct VtiContents {
  int extent[6] = {0, 0, 0, 0, 0, 0};  // the piece's Extent: x0 x1 y0 y1 z0 z1
  std::vector<VtiValues> arrays;
  int nx() const { return extent[1] - extent[0] + 1; }
  int ny() const { return extent[3] - extent[2] + 1; }
  // The array called `name`; InputError naming `path` where there is none.
  const VtiValues& array(const std::string& name, const std::string& path) const;
};
// InputError "<path>: ..." for a file that is not such a .vti.
VtiContents read_vti_file(const std::string& path);

// A ParaView collection: one DataSet per frame, its step as timestep and its
// file name relative to the .pvd.
struct PvdFrame {
  int step;
  std::string file;
};
void write_pvd(std::FILE* out, const std::vector<PvdFrame>& frames);

}  // namespace d2q9
