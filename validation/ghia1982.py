"""Reference data for the lid-driven cavity, as published in

    U. Ghia, K. N. Ghia and C. T. Shin, "High-Re solutions for incompressible
    flow using the Navier-Stokes equations and a multigrid method",
    Journal of Computational Physics 48 (1982) 387-411,
    doi:10.1016/0021-9991(82)90058-4.

Table I: u / U along the vertical line through the cavity's geometric centre
(x = 0.5), at the points Y. Table II: v / U along the horizontal line through
the centre (y = 0.5), at the points X. The primary vortex's centre and
stream-function minimum come from the paper's table of primary-vortex
properties. Coordinates are in units of the cavity size L with the origin at
the bottom-left corner and the lid (moving in +x at speed U) at y = 1; the
values are from the paper's 129 x 129 multigrid solutions (257 x 257 at
higher Re, not used here).

Only Re = 100, 400 and 1000 are typed here (validation/cavity.py uses these).
Every value was checked against several independent public copies of the
tables (source files of unrelated projects that carry them). Where copies
disagree, the value most copies carry is used and the variant is noted:
  * Table I, Re 100, y = 0.1719: -0.10150 (one copy has -0.10372).
  * Table II, Re 400, x = 0.5000: 0.05186 (one copy has 0.05188).
  * Table II, Re 1000, x = 0.9063: -0.51550 (some copies have -0.51500).
The differences are far below the tolerances of the checks.

SUSPECT lists a published value that is very likely a misprint in the paper
itself: Table II, Re 400, v at x = 0.9063 is -0.23827, which breaks the
profile's monotone rise from its minimum (-0.44993 at x = 0.8594) to the wall
(-0.22847 at x = 0.9453, -0.19254 at 0.9531, ...); every copy found carries
the same number, and converged solvers give about -0.38 there. It is kept
as published; validation/cavity.py reports its deviation but leaves it out
of the pass/fail maximum.
"""

CITATION = ("U. Ghia, K. N. Ghia and C. T. Shin, High-Re solutions for incompressible flow using the "
            "Navier-Stokes equations and a multigrid method, J. Comput. Phys. 48 (1982) 387-411, Tables I and II")

# Table I: points on the vertical centreline, top (lid) to bottom.
Y = [1.0000, 0.9766, 0.9688, 0.9609, 0.9531, 0.8516, 0.7344, 0.6172, 0.5000,
     0.4531, 0.2813, 0.1719, 0.1016, 0.0703, 0.0625, 0.0547, 0.0000]

U = {
    100: [1.00000, 0.84123, 0.78871, 0.73722, 0.68717, 0.23151, 0.00332, -0.13641, -0.20581,
          -0.21090, -0.15662, -0.10150, -0.06434, -0.04775, -0.04192, -0.03717, 0.00000],
    400: [1.00000, 0.75837, 0.68439, 0.61756, 0.55892, 0.29093, 0.16256, 0.02135, -0.11477,
          -0.17119, -0.32726, -0.24299, -0.14612, -0.10338, -0.09266, -0.08186, 0.00000],
    1000: [1.00000, 0.65928, 0.57492, 0.51117, 0.46604, 0.33304, 0.18719, 0.05702, -0.06080,
           -0.10648, -0.27805, -0.38289, -0.29730, -0.22220, -0.20196, -0.18109, 0.00000],
}

# Table II: points on the horizontal centreline, right wall to left wall.
X = [1.0000, 0.9688, 0.9609, 0.9531, 0.9453, 0.9063, 0.8594, 0.8047, 0.5000,
     0.2344, 0.2266, 0.1563, 0.0938, 0.0781, 0.0703, 0.0625, 0.0000]

V = {
    100: [0.00000, -0.05906, -0.07391, -0.08864, -0.10313, -0.16914, -0.22445, -0.24533, 0.05454,
          0.17527, 0.17507, 0.16077, 0.12317, 0.10890, 0.10091, 0.09233, 0.00000],
    400: [0.00000, -0.12146, -0.15663, -0.19254, -0.22847, -0.23827, -0.44993, -0.38598, 0.05186,
          0.30174, 0.30203, 0.28124, 0.22965, 0.20920, 0.19713, 0.18360, 0.00000],
    1000: [0.00000, -0.21388, -0.27669, -0.33714, -0.39188, -0.51550, -0.42665, -0.31966, 0.02526,
           0.32235, 0.33075, 0.37095, 0.32627, 0.30353, 0.29012, 0.27485, 0.00000],
}

# Primary vortex: centre (x, y) and the stream function there, psi / (U L),
# with u = d(psi)/dy and psi = 0 on the walls.
PRIMARY_VORTEX = {
    100: {"x": 0.6172, "y": 0.7344, "psi": -0.103423},
    400: {"x": 0.5547, "y": 0.6055, "psi": -0.113909},
    1000: {"x": 0.5313, "y": 0.5625, "psi": -0.117929},
}

# Published values that are very likely misprints (see the module's docstring):
# {Re: {"u": [y, ...], "v": [x, ...]}}.
SUSPECT = {400: {"u": [], "v": [0.9063]}}

REYNOLDS = sorted(U)
