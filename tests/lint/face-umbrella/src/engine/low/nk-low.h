/* nk-low.h: fixture — guarded and marked, but the umbrella forgets it */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

NK_AVAILABLE_IN_ALL
int  nk_low_marked   (void);
