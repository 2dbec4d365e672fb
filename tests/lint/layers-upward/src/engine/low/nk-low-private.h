/* nk-low-private.h: fixture — private to low/ */
#pragma once
