/* nk-c.h: fixture: a unit outside the cycle
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once
#include "nk-a.h"
