/* nk-high.h: fixture — the upper layer's public header, which may include low/ */
#pragma once
#include "nk-low.h"
