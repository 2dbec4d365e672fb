/* nk-version-macros.h: the mark on every public declaration of the engine
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * json-glib's json-version-macros.h at Napkin's scale: each function a program may
 * call carries NK_AVAILABLE_IN_ALL, which exports it from a shared libnapkin-1 (the
 * sources are built with -fvisibility=hidden, so an unmarked function stays inside
 * the library). Once the library has a stable release, declarations added after it
 * get NK_AVAILABLE_IN_<version> and deprecations NK_DEPRECATED_IN_<version>.
 *
 * Programs include <napkin.h>, which defines NAPKIN_INSIDE; the engine's own
 * sources, the app, the CLI and the tests build with NAPKIN_COMPILATION and may
 * include one header at a time.
 */
#pragma once

#if !defined (NAPKIN_INSIDE) && !defined (NAPKIN_COMPILATION)
#error "Only <napkin.h> can be included directly."
#endif

#ifndef _NK_EXTERN
#define _NK_EXTERN __attribute__((visibility ("default"))) extern
#endif

#define NK_AVAILABLE_IN_ALL _NK_EXTERN
