/* napkin.h: fixture umbrella */
#include "nk-low.h"
