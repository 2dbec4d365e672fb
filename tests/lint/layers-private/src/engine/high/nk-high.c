/* nk-high.c: fixture — includes the private header of the layer below it */
#include "nk-low-private.h"
