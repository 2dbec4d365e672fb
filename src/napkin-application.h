/* napkin-application.h: the application: options, actions, settings
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define NAPKIN_TYPE_APPLICATION (napkin_application_get_type ())

G_DECLARE_FINAL_TYPE (NapkinApplication, napkin_application, NAPKIN, APPLICATION, AdwApplication)

NapkinApplication *napkin_application_new          (void);
GSettings         *napkin_application_get_settings (NapkinApplication *self);
GSettings         *napkin_settings_new             (void);

G_END_DECLS
