/* nk-a.h: fixture for check-include-cycles: the tensor core of old
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once
