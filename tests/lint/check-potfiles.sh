#!/bin/sh
# check-potfiles.sh: fails when a source file with translatable strings is missing from
# po/POTFILES.in (or when POTFILES.in names a file that does not exist).
# Copyright 2026 The Napkin developers
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
root=${1:-.}
cd "$root"
status=0
listed=$(grep -v '^#' po/POTFILES.in | grep -v '^$' | sort -u)
marked=$( (grep -rlE '(^|[^A-Za-z0-9_])(N?_|C_|NC_|g_dngettext|ngettext)\(' --include='*.c' src;
           grep -rl 'translatable="yes"' ui src 2>/dev/null;
           ls data/*.desktop.in data/*.metainfo.xml.in data/*.gschema.xml) | sort -u)
for f in $marked; do
  if ! printf '%s\n' "$listed" | grep -qx "$f"; then
    echo "missing from po/POTFILES.in: $f"
    status=1
  fi
done
for f in $listed; do
  if [ ! -e "$f" ]; then
    echo "po/POTFILES.in names a file that does not exist: $f"
    status=1
  fi
done
[ $status = 0 ] && echo "POTFILES.in lists all $(printf '%s\n' "$marked" | wc -l) files with translatable strings"
exit $status
