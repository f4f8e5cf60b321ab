// The live view's JSON of the measurements: the forces' coefficients (or
// forces) and the probes, thinned to at most a number of points each.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/measurements.hpp"

namespace d2q9 {

// {"steps": [...], "coefficients": bool, "bodies": [{"name", "cd", "cl"}]}
// (or "fx", "fy" without [forces] velocity and length), at most `points`
// steps, evenly spaced, the last step always among them.
nlohmann::json forces_json(const MeasurementLog& log, int points);
// {"steps": [...], "probes": [{"name", "rho", "ux", "uy"}]}, thinned alike.
nlohmann::json probes_json(const MeasurementLog& log, int points);

}  // namespace d2q9
