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

/**
 * nk_file_fail: (skip)
 * @error: return location for a #GError, or %NULL
 * @domain: the error domain
 * @code: the error code
 * @name: the file the message is about, written first
 * @format: a printf() format for the rest of the message
 * @...: the format's arguments
 *
 * Sets @error to "@name: <message>" in @domain, so a reader of a file can end with
 * `return nk_file_fail (...)` and every message names the file first. Skipped for
 * bindings: it takes varargs, and a binding makes its own errors.
 *
 * Returns: %FALSE, always
 */
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

static void
set_not_regular (GError    **error,
                 const char *path,
                 mode_t      mode)
{
  g_autofree char *name = g_filename_display_name (path);

  g_set_error (error, G_FILE_ERROR, S_ISDIR (mode) ? G_FILE_ERROR_ISDIR : G_FILE_ERROR_INVAL,
               _("“%s” is not a regular file (%s)."), name, kind_of (mode));
}

static void
set_too_large (GError    **error,
               const char *path,
               goffset     size,
               goffset     max_size)
{
  g_autofree char *name = g_filename_display_name (path);
  g_autofree char *has = g_strdup_printf ("%" G_GOFFSET_FORMAT, size);
  g_autofree char *most = g_format_size_full ((guint64) max_size, G_FORMAT_SIZE_IEC_UNITS);

  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
               _("“%s” holds %s bytes, more than the %s Napkin reads from one file."), name, has, most);
}

static void
set_errno (GError    **error,
           gboolean    reading,
           const char *path,
           int         errsv)
{
  g_autofree char *name = g_filename_display_name (path);

  if (reading)
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                 _("Could not read “%s”: %s"), name, g_strerror (errsv));
  else
    g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (errsv),
                 _("Could not open “%s”: %s"), name, g_strerror (errsv));
}

int
nk_file_open_regular (const char  *path,
                      goffset      max_size,
                      goffset     *size,
                      GError     **error)
{
  GStatBuf st;
  int fd;

  g_return_val_if_fail (path != NULL, -1);
  g_return_val_if_fail (max_size >= 0, -1);

  /* O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer */
  fd = g_open (path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
  if (fd < 0)
    {
      set_errno (error, FALSE, path, errno);
      return -1;
    }
  if (fstat (fd, &st) != 0)
    {
      set_errno (error, FALSE, path, errno);
      close (fd);
      return -1;
    }
  if (!S_ISREG (st.st_mode))
    {
      set_not_regular (error, path, st.st_mode);
      close (fd);
      return -1;
    }
  if (st.st_size > max_size)
    {
      set_too_large (error, path, st.st_size, max_size);
      close (fd);
      return -1;
    }
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  if (size != NULL)
    *size = st.st_size;
  return fd;
}

gboolean
nk_file_read_regular (const char  *path,
                      goffset      max_size,
                      char       **contents,
                      gsize       *length,
                      GError     **error)
{
  g_autofree char *buf = NULL;
  goffset size = 0;
  gsize n = 0, cap;
  int fd;

  g_return_val_if_fail (contents != NULL, FALSE);

  fd = nk_file_open_regular (path, max_size, &size, error);
  if (fd < 0)
    return FALSE;
  /* the size stat() gave, one more byte to see the end, and room if it grew */
  cap = (gsize) size + 1;
  buf = g_malloc (cap + 1);
  for (;;)
    {
      gssize got;

      if (n == cap)
        {
          if (n > (gsize) max_size)
            {
              close (fd);
              set_too_large (error, path, (goffset) n, max_size);
              return FALSE;
            }
          cap = MIN (cap * 2, (gsize) max_size + 1);
          buf = g_realloc (buf, cap + 1);
        }
      got = read (fd, buf + n, cap - n);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        {
          int errsv = errno;

          close (fd);
          set_errno (error, TRUE, path, errsv);
          return FALSE;
        }
      if (got == 0)
        break;
      n += (gsize) got;
    }
  close (fd);
  buf[n] = '\0';
  *contents = g_steal_pointer (&buf);
  if (length != NULL)
    *length = n;
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
