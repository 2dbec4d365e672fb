/* nk-low.h: fixture — marked, in the umbrella, but without the include guard */
#pragma once

NK_AVAILABLE_IN_ALL
int  nk_low_marked   (void);
