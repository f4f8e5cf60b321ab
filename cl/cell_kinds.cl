// Cell kinds: the byte each cell carries (the kernels' `obstacles`), its
// class in bits 0-1 and a number in bits 2-6 (bit 7 is free for the blocked
// kernel's local copy, CURVED_BIT). host/problem/problem.hpp declares the
// same values for the host; tests/test_boundaries.cpp checks that they agree.
//   CELL_FLUID        number 0: fluid; OPEN_LEFT..OPEN_TOP: an open boundary
//                     (cl/open_edges.cl) on that edge
//   CELL_WALL         bounce-back; number: its measured body (0: none)
//   CELL_MOVING_WALL  bounce-back with wall_velocities[number]'s momentum
//   CELL_FREE_SLIP    specular reflection across x or y (its number)
#define CELL_FLUID 0
#define CELL_WALL 1
#define CELL_MOVING_WALL 2
#define CELL_FREE_SLIP 3
#define CELL_NUMBER_SHIFT 2
#define CELL_CLASS(b) ((b) & 3)
#define CELL_NUMBER(b) ((b) >> CELL_NUMBER_SHIFT)
#define OPEN_LEFT 1
#define OPEN_RIGHT 2
#define OPEN_BOTTOM 3
#define OPEN_TOP 4
#define FREE_SLIP_ACROSS_X 30
#define FREE_SLIP_ACROSS_Y 31
