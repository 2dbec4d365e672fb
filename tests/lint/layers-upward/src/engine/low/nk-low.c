/* nk-low.c: fixture — includes its own private header (allowed) and a header of
 * the layer above it (the violation the check must find) */
#include "nk-low-private.h"
#include "nk-high.h"
