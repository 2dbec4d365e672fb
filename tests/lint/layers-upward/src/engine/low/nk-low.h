/* nk-low.h: fixture — the lower layer's public header */
#pragma once
