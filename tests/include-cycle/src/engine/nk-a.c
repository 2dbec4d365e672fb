/* nk-a.c: fixture: includes the ops, which include it back
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "nk-a.h"
#include "nk-b-private.h"
