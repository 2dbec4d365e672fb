/* nk-b-private.h: fixture: the ops' private header, which names the core
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once
#include "nk-a.h"
