/* nk-file-util.c: helpers the file readers and writers (npy, safetensors, checkpoint) share
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nk-file-util.h"

gboolean
nk_file_fail (GError     **error,
              GQuark       domain,
              int          code,
              const char  *name,
              const char  *format,
              ...)
{
  g_autofree char *what = NULL;
  va_list args;

  va_start (args, format);
  what = g_strdup_vprintf (format, args);
  va_end (args);

  g_set_error (error, domain, code, "%s: %s", name, what);
  return FALSE;
}

static const char *
kind_of (mode_t mode)
{
  if (S_ISDIR (mode))
    return _("it is a folder");
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return _("it is a device");
  if (S_ISFIFO (mode))
    return _("it is a pipe");
  if (S_ISSOCK (mode))
    return _("it is a socket");
  return _("it is not a file");
}

gboolean
nk_file_check_regular (const char  *path,
                       GError     **error)
{
  GStatBuf st;

  g_return_val_if_fail (path != NULL, FALSE);

  if (g_stat (path, &st) != 0)
    {
      int errsv = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   _("Could not open “%s”: %s"), path, g_strerror (errsv));
      return FALSE;
    }
  if (!S_ISREG (st.st_mode))
    {
      /* mmap() of a folder or /dev/null fails with ENODEV or EINVAL, which names
       * neither the file nor the reason. */
      g_set_error (error, G_FILE_ERROR, S_ISDIR (st.st_mode) ? G_FILE_ERROR_ISDIR
                                                             : G_FILE_ERROR_INVAL,
                   _("“%s” is not a regular file (%s)."), path, kind_of (st.st_mode));
      return FALSE;
    }
  return TRUE;
}

/* Creates and removes a temporary file in @dir: the only test of writability that
 * holds for root, ACLs and read-only mounts alike. Returns 0 or the errno. */
static int
try_create_in (const char *dir)
{
  g_autofree char *probe = g_build_filename (dir, ".napkin-write-test-XXXXXX", NULL);
  int fd = g_mkstemp_full (probe, O_RDWR | O_CLOEXEC, 0600);

  if (fd < 0)
    return errno;
  close (fd);
  g_unlink (probe);
  return 0;
}

gboolean
nk_file_check_writable (const char  *path,
                        GError     **error)
{
  g_autofree char *dir = NULL;
  GStatBuf st;
  int errsv;

  g_return_val_if_fail (path != NULL, FALSE);

  if (g_stat (path, &st) == 0 && S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
                   _("Cannot write “%s”: it is a folder; give a file name."), path);
      return FALSE;
    }
  dir = g_path_get_dirname (path);
  if (g_stat (dir, &st) != 0)
    {
      errsv = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   _("Cannot write “%s”: the folder “%s” does not exist."), path, dir);
      return FALSE;
    }
  if (!S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR,
                   _("Cannot write “%s”: “%s” is a file, not a folder."), path, dir);
      return FALSE;
    }
  if ((errsv = try_create_in (dir)) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   _("Cannot write “%s”: no file can be created in “%s” (%s)."),
                   path, dir, g_strerror (errsv));
      return FALSE;
    }
  return TRUE;
}

gboolean
nk_file_check_writable_dir (const char  *dir,
                            GError     **error)
{
  GStatBuf st;
  int errsv;

  g_return_val_if_fail (dir != NULL, FALSE);

  if (g_stat (dir, &st) == 0 && !S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOTDIR,
                   _("Cannot write into “%s”: it is a file, not a folder."), dir);
      return FALSE;
    }
  if (g_mkdir_with_parents (dir, 0777) != 0)
    {
      errsv = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   _("Could not create the folder “%s”: %s"), dir, g_strerror (errsv));
      return FALSE;
    }
  if ((errsv = try_create_in (dir)) != 0)
    {
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                   _("Cannot write into the folder “%s”: %s"), dir, g_strerror (errsv));
      return FALSE;
    }
  return TRUE;
}
