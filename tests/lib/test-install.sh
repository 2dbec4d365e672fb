#!/bin/sh
# test-install: `meson install` into a scratch prefix puts libnapkin-1, napkin-1.pc,
# the headers and (with introspection) Napkin-1.gir/.typelib there; the C example
# builds with nothing but `pkg-config --cflags --libs napkin-1` and prints the
# lecture's 143.9 days, and PyGObject and gjs read the same number from the installed typelib.
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-install.sh BUILD_ROOT SOURCE_ROOT HAVE_GIR(true|false)
set -eu
build=$1 src=$2 gir=$3
dest=$(mktemp -d); trap 'rm -rf "$dest"' EXIT

meson install -C "$build" --no-rebuild --quiet --destdir "$dest" >/dev/null
pc=$(find "$dest" -name napkin-1.pc | head -1)
[ -n "$pc" ] || { echo "no napkin-1.pc installed"; exit 1; }
pcdir=$(dirname "$pc") libdir=$(dirname "$(dirname "$pc")")
prefix=$(sed -n 's/^prefix=//p' "$pc")
for f in "$pcdir/napkin-1.pc" "$dest$prefix/include/napkin-1/napkin.h" \
         "$dest$prefix/include/napkin-1/nk-enum-types.h" "$libdir/libnapkin-1.so"; do
  [ -e "$f" ] || { echo "not installed: ${f#"$dest"}"; exit 1; }
done
[ ! -e "$dest$prefix/include/napkin-1/nk-device-impl.h" ] || { echo "a private header was installed"; exit 1; }
if ls "$dest$prefix"/include/napkin-1/*-private.h >/dev/null 2>&1; then
  echo "a private header was installed"; exit 1
fi

# the scratch prefix stands in for the real one (GLib's own .pc files stay the system's)
mkdir "$dest/pc"
sed "s|^prefix=.*|prefix=$dest$prefix|" "$pc" > "$dest/pc/napkin-1.pc"
export PKG_CONFIG_PATH="$dest/pc"
flags=$(pkg-config --cflags --libs napkin-1)
# shellcheck disable=SC2086 # the flags are words
cc -Wall -Werror "$src/examples/c/plan-days.c" $flags -o "$dest/plan-days"
out=$(LD_LIBRARY_PATH="$libdir" "$dest/plan-days")
echo "C example: $out"
# the seed's worked example: 6·7e10·1.5e13 / (1024 · 989.5e12 · 0.5 · 86400 s) = 143.9 days
[ "$out" = "NVIDIA H100 SXM5 80 GB: 143.9 days" ] || { echo "expected the lecture's 143.9 days"; exit 1; }

if [ "$gir" = true ]; then
  typelib=$(find "$dest" -name 'Napkin-1.typelib' | head -1)
  gir_file=$(find "$dest" -name 'Napkin-1.gir' | head -1)
  [ -n "$typelib" ] && [ -n "$gir_file" ] || { echo "no Napkin-1.typelib / .gir installed"; exit 1; }
  days=$(GI_TYPELIB_PATH=$(dirname "$typelib") LD_LIBRARY_PATH="$libdir" /usr/bin/python3 -c '
import gi
gi.require_version("Napkin", "1")
from gi.repository import Napkin
plan = Napkin.Plan(params=7e10, tokens=1.5e13, gpus=1024, mfu=0.5, gpu="h100-sxm")
print("%.1f" % plan.props.days)')
  echo "Python, installed typelib: $days days"
  [ "$days" = 143.9 ] || { echo "expected 143.9 days from the installed typelib"; exit 1; }
  if command -v gjs >/dev/null; then
    days=$(GI_TYPELIB_PATH=$(dirname "$typelib") LD_LIBRARY_PATH="$libdir" gjs -c "
imports.gi.versions.Napkin = '1';
const plan = new imports.gi.Napkin.Plan({params: 7e10, tokens: 1.5e13, gpus: 1024, mfu: 0.5, gpu: 'h100-sxm'});
print(plan.days.toFixed(1));")
    echo "gjs, installed typelib: $days days"
    [ "$days" = 143.9 ] || { echo "expected 143.9 days from the installed typelib (gjs)"; exit 1; }
  fi
fi
echo "installed: libnapkin-1, napkin-1.pc, headers$([ "$gir" = true ] && echo ", Napkin-1.gir, Napkin-1.typelib")"
