// The live view: a web page (and JSON endpoints) showing a Simulation while
// it steps, with pause, resume, checkpoint and stop (docs/live-view.md).
// d2q9-bgk --serve and Python's Simulation.serve are its users; a C++
// program calls after_chunk(sim) between its steps.
#pragma once

#include <d2q9/internal/serve/live_view.hpp>
