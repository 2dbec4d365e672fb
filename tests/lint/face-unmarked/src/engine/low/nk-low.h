/* nk-low.h: fixture — one declaration marked, one not (the gap the check must find) */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

NK_AVAILABLE_IN_ALL
int  nk_low_marked   (void);
/* nk_low_in_a_comment (void) is not a declaration */
int  nk_low_unmarked (void);
