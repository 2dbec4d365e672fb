/* cli-fixture.c: fixture — a file outside the engine including a private header */
#include "nk-low-private.h"
