/* nk-low.c: fixture — includes its own private header, which is allowed */
#include "nk-low-private.h"
