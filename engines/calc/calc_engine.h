// The calc example engine: the seed's quick start, in C++. Stateless only (no `sessions`).
#pragma once

#include <sandbox/engine.h>

namespace sandbox::engines {

Engine make_calc_engine();

}  // namespace sandbox::engines
