/* nk-einops.c: rearrange, reduce and einsum over named dimensions
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <glib/gi18n-lib.h>
#include <string.h>

#include "nk-einops.h"
#include "nk-ops.h"

/**
 * nk_einops_error_quark:
 *
 * The error domain of einops patterns and the tensors they are applied to.
 *
 * Returns: the #GQuark of %NK_EINOPS_ERROR
 */
G_DEFINE_QUARK (nk-einops-error-quark, nk_einops_error)

/* ------------------------------------------------------------------------------
 * Patterns
 * ------------------------------------------------------------------------------ */

/* One item of a side: a name, "...", or a group "(a b)"; "1" and "()" are groups
 * without names (a dimension of size 1). */
typedef struct {
  gboolean   group;
  gboolean   ellipsis;   /* "..." alone, or inside the group */
  GPtrArray *names;      /* char *, owned; "..." appears as ELLIPSIS_NAME in groups */
} Item;

#define ELLIPSIS_NAME "..."

static void
item_free (gpointer data)
{
  Item *item = data;

  g_ptr_array_unref (item->names);
  g_free (item);
}

static Item *
item_new (void)
{
  Item *item = g_new0 (Item, 1);

  item->names = g_ptr_array_new_with_free_func (g_free);
  return item;
}

static gboolean
is_name_char (char c, gboolean first)
{
  return g_ascii_isalpha (c) || c == '_' || (!first && g_ascii_isdigit (c));
}

/* Parses one side of a pattern ("b (h d) ...") into Items; @allow_groups is FALSE
 * for einsum. Every name at most once unless @allow_repeats (an einsum input,
 * where "i i" is a diagonal), "..." at most once. */
static GPtrArray *
parse_side (const char  *pattern,
            const char  *side,
            gboolean     allow_groups,
            gboolean     allow_repeats,
            GError     **error)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (item_free);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  Item *group = NULL;
  gboolean seen_ellipsis = FALSE;
  const char *p = side;

  while (*p)
    {
      if (*p == ' ' || *p == '\t')
        {
          p++;
          continue;
        }
      if (*p == '(')
        {
          if (!allow_groups)
            goto no_groups;
          if (group != NULL)
            {
              g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
                           _("“%s”: a group cannot contain another group"), pattern);
              return NULL;
            }
          group = item_new ();
          group->group = TRUE;
          g_ptr_array_add (items, group);
          p++;
          continue;
        }
      if (*p == ')')
        {
          if (!allow_groups)
            goto no_groups;
          if (group == NULL)
            {
              g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
                           _("“%s”: “)” closes no group"), pattern);
              return NULL;
            }
          group = NULL;
          p++;
          continue;
        }
      if (g_str_has_prefix (p, "..."))
        {
          if (seen_ellipsis)
            {
              g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
                           _("“%s”: “...” appears twice on one side"), pattern);
              return NULL;
            }
          seen_ellipsis = TRUE;
          if (group != NULL)
            {
              group->ellipsis = TRUE;
              g_ptr_array_add (group->names, g_strdup (ELLIPSIS_NAME));
            }
          else
            {
              Item *item = item_new ();

              item->ellipsis = TRUE;
              g_ptr_array_add (items, item);
            }
          p += 3;
          continue;
        }
      if (*p == '1' && !is_name_char (p[1], FALSE))
        {
          /* An anonymous axis of size 1, like "()" */
          if (group == NULL)
            {
              Item *item = item_new ();

              item->group = TRUE;
              g_ptr_array_add (items, item);
            }
          p++;
          continue;
        }
      if (is_name_char (*p, TRUE))
        {
          const char *start = p;
          char *name;

          while (is_name_char (*p, FALSE))
            p++;
          name = g_strndup (start, p - start);
          if (g_hash_table_contains (seen, name) && !allow_repeats)
            {
              g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
                           _("“%s”: axis “%s” appears twice on one side"), pattern, name);
              g_free (name);
              return NULL;
            }
          if (group != NULL)
            g_ptr_array_add (group->names, name);
          else
            {
              Item *item = item_new ();

              g_ptr_array_add (item->names, name);
              g_ptr_array_add (items, item);
            }
          g_hash_table_add (seen, name);
          continue;
        }
      {
        const char *next = g_utf8_find_next_char (p, NULL);
        g_autofree char *what = g_strndup (p, next ? next - p : 1);

        if (g_ascii_isdigit (*p))
          g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
                       _("“%s”: only 1 can be written as a number; give other sizes by name"),
                       pattern);
        else if (*p == ',')
          g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
                       _("“%s”: “,” separates the inputs of einsum only"), pattern);
        else
          g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
                       _("“%s”: “%s” is not an axis name"), pattern, what);
        return NULL;
      }
    }
  if (group != NULL)
    {
      g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
                   _("“%s”: a group is not closed with “)”"), pattern);
      return NULL;
    }
  return g_steal_pointer (&items);

no_groups:
  g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
               _("“%s”: einsum takes no groups in parentheses"), pattern);
  return NULL;
}

static gboolean
split_arrow (const char  *pattern,
             char       **left,
             char       **right,
             GError     **error)
{
  const char *arrow = strstr (pattern, "->");

  if (arrow == NULL || strstr (arrow + 2, "->") != NULL)
    {
      g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
                   _("“%s” needs exactly one “->” between its input and output axes"),
                   pattern);
      return FALSE;
    }
  *left = g_strndup (pattern, arrow - pattern);
  *right = g_strdup (arrow + 2);
  return TRUE;
}

static gboolean
side_has_name (GPtrArray  *side,
               const char *name)
{
  for (guint i = 0; i < side->len; i++)
    {
      Item *item = g_ptr_array_index (side, i);

      for (guint j = 0; j < item->names->len; j++)
        if (g_str_equal (g_ptr_array_index (item->names, j), name))
          return TRUE;
    }
  return FALSE;
}

static gboolean
side_has_ellipsis (GPtrArray *side)
{
  for (guint i = 0; i < side->len; i++)
    if (((Item *) g_ptr_array_index (side, i))->ellipsis)
      return TRUE;
  return FALSE;
}

/* ------------------------------------------------------------------------------
 * rearrange and reduce
 * ------------------------------------------------------------------------------ */

typedef struct {
  char   *name;       /* "...0", "...1" for the dims "..." stands for */
  gint64  size;
} Axis;

static void
axis_clear (gpointer data)
{
  g_free (((Axis *) data)->name);
}

static int
find_axis (GArray     *axes,
           const char *name)
{
  for (guint i = 0; i < axes->len; i++)
    if (g_str_equal (g_array_index (axes, Axis, i).name, name))
      return i;
  return -1;
}

static char *
item_to_string (Item *item)
{
  g_autoptr(GString) s = g_string_new (NULL);

  if (!item->group)
    return g_strdup (item->ellipsis ? ELLIPSIS_NAME : g_ptr_array_index (item->names, 0));
  g_string_append_c (s, '(');
  for (guint i = 0; i < item->names->len; i++)
    {
      if (i > 0)
        g_string_append_c (s, ' ');
      g_string_append (s, g_ptr_array_index (item->names, i));
    }
  g_string_append_c (s, ')');
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* One rearrange or reduce: its pattern, parsed, and the axes found so far. */
typedef struct {
  const char *pattern;
  GPtrArray  *left, *right;   /* of Item */
  GHashTable *known;          /* axis name → gint64 size */
  GArray     *axes;           /* Axis: the left side's elementary axes, in order */
  int         n_ellipsis;     /* dims "..." stands for */
} Rearrange;

/* Every name on the right must come from the left; rearrange keeps every axis. */
static gboolean
check_sides (const Rearrange *r,
             gboolean         reduce,
             guint           *n_named_items,
             GError         **error)
{
  gboolean left_ellipsis = side_has_ellipsis (r->left);

  *n_named_items = 0;
  for (guint i = 0; i < r->left->len; i++)
    {
      Item *item = g_ptr_array_index (r->left, i);

      if (item->group && item->ellipsis)
        {
          g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
                       _("“%s”: “...” cannot be inside a group on the left side"), r->pattern);
          return FALSE;
        }
      if (!item->ellipsis)
        (*n_named_items)++;
      for (guint j = 0; j < item->names->len && !reduce; j++)
        {
          const char *name = g_ptr_array_index (item->names, j);

          if (!side_has_name (r->right, name))
            {
              g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_AXIS,
                           _("“%s”: axis “%s” is on the left but not on the right "
                             "(rearrange keeps every axis; reduce drops them)"),
                           r->pattern, name);
              return FALSE;
            }
        }
    }
  for (guint i = 0; i < r->right->len; i++)
    {
      Item *item = g_ptr_array_index (r->right, i);

      for (guint j = 0; j < item->names->len; j++)
        {
          const char *name = g_ptr_array_index (item->names, j);

          if (g_str_equal (name, ELLIPSIS_NAME))
            continue;
          if (!side_has_name (r->left, name))
            {
              g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_AXIS,
                           _("“%s”: axis “%s” is on the right but not on the left"),
                           r->pattern, name);
              return FALSE;
            }
        }
    }
  if (side_has_ellipsis (r->right) && !left_ellipsis)
    {
      g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_AXIS,
                   _("“%s”: “...” is on the right but not on the left"), r->pattern);
      return FALSE;
    }
  if (!reduce && left_ellipsis && !side_has_ellipsis (r->right))
    {
      g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_AXIS,
                   _("“%s”: “...” is on the left but not on the right"), r->pattern);
      return FALSE;
    }
  return TRUE;
}

/* The sizes given by name, each for an axis of the left side. */
static gboolean
add_given_sizes (Rearrange          *r,
                 guint               n_sizes,
                 const char *const  *size_names,
                 const gint64       *sizes,
                 GError            **error)
{
  for (guint i = 0; i < n_sizes; i++)
    {
      if (!side_has_name (r->left, size_names[i]))
        {
          g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_AXIS,
                       _("“%s” has no axis “%s” to give the size %" PRId64 " to"),
                       r->pattern, size_names[i], sizes[i]);
          return FALSE;
        }
      if (sizes[i] < 0)
        {
          g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_SHAPE,
                       _("the size of axis “%s” cannot be negative (%" PRId64 ")"),
                       size_names[i], sizes[i]);
          return FALSE;
        }
      g_hash_table_insert (r->known, g_strdup (size_names[i]), g_memdup2 (&sizes[i], sizeof sizes[i]));
    }
  return TRUE;
}

/* The product of an item's known sizes (saturating: sizes given by name may be
 * anything), and the index of its one unknown axis (-1 for none). */
static gboolean
known_product (const Rearrange *r,
               Item            *item,
               const char      *text,
               gint64          *product,
               int             *unknown,
               GError         **error)
{
  *product = 1;
  *unknown = -1;
  for (guint j = 0; j < item->names->len; j++)
    {
      gint64 *s = g_hash_table_lookup (r->known, g_ptr_array_index (item->names, j));
      guint64 p;

      if (s == NULL && *unknown >= 0)
        {
          g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_DIVISIBILITY,
                       _("“%s”: the group %s needs the size of all but one of its axes"),
                       r->pattern, text);
          return FALSE;
        }
      if (s == NULL)
        {
          *unknown = j;
          continue;
        }
      if (!g_uint64_checked_mul (&p, (guint64) *product, (guint64) *s) || p > G_MAXINT64 / 2)
        p = G_MAXINT64 / 2;
      *product = (gint64) p;
    }
  return TRUE;
}

/* One named item of the left side against dimension @dim of size @size: infers its
 * unknown axis, checks the rest, and appends its elementary axes. */
static gboolean
match_item (Rearrange  *r,
            Item       *item,
            int         dim,
            gint64      size,
            GError    **error)
{
  g_autofree char *text = item_to_string (item);
  gint64 product;
  int unknown;

  if (!known_product (r, item, text, &product, &unknown, error))
    return FALSE;
  if (unknown >= 0)
    {
      /* Known sizes with a 0 among them leave the unknown axis free when the
       * dimension is empty (any size times 0 is 0), and fit no other size:
       * never divide by their product. */
      if (product == 0 && size == 0)
        {
          g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_DIVISIBILITY,
                       _("“%s”: dimension %d has size 0 and the known sizes of %s "
                         "multiply to 0, so the size of “%s” could be anything"),
                       r->pattern, dim, text,
                       (const char *) g_ptr_array_index (item->names, unknown));
          return FALSE;
        }
      if (product == 0 || size % product != 0)
        {
          g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_DIVISIBILITY,
                       _("“%s”: dimension %d has size %" PRId64
                         ", which the known sizes of %s (product %" PRId64
                         ") do not divide"),
                       r->pattern, dim, size, text, product);
          return FALSE;
        }
      g_hash_table_insert (r->known, g_strdup (g_ptr_array_index (item->names, unknown)),
                           g_memdup2 (&(gint64) { size / product }, sizeof (gint64)));
    }
  else if (product != size)
    {
      if (item->group)
        g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_SHAPE,
                     _("“%s”: dimension %d has size %" PRId64
                       " but %s multiplies to %" PRId64),
                     r->pattern, dim, size, text, product);
      else
        g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_SHAPE,
                     _("“%s”: axis “%s” has size %" PRId64
                       " in the tensor but %" PRId64 " was given"),
                     r->pattern, text, size, product);
      return FALSE;
    }

  for (guint j = 0; j < item->names->len; j++)
    {
      const char *name = g_ptr_array_index (item->names, j);
      Axis axis = { g_strdup (name), *(gint64 *) g_hash_table_lookup (r->known, name) };

      g_array_append_val (r->axes, axis);
    }
  return TRUE;
}

/* The left side against @x's dims: fills r->axes (the "..." dims as "...0", …). */
static gboolean
match_left (Rearrange  *r,
            NkTensor   *x,
            const char *left_text,
            guint       n_named_items,
            GError    **error)
{
  gboolean left_ellipsis = side_has_ellipsis (r->left);
  int dim = 0;

  if (left_ellipsis ? (guint) x->ndim < n_named_items : (guint) x->ndim != n_named_items)
    {
      g_autofree char *stripped = g_strstrip (g_strdup (left_text));

      g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_SHAPE,
                   _("“%s”: the left side “%s” has %u dimensions%s but the tensor has %d"),
                   r->pattern, stripped, n_named_items,
                   left_ellipsis ? _(" and “...”") : "", x->ndim);
      return FALSE;
    }
  r->n_ellipsis = x->ndim - n_named_items;

  for (guint i = 0; i < r->left->len; i++)
    {
      Item *item = g_ptr_array_index (r->left, i);

      if (item->ellipsis)
        {
          for (int k = 0; k < r->n_ellipsis; k++)
            {
              Axis axis = { g_strdup_printf ("...%d", k), x->shape[dim++] };
              g_array_append_val (r->axes, axis);
            }
          continue;
        }
      if (!match_item (r, item, dim, x->shape[dim], error))
        return FALSE;
      dim++;
    }
  if (r->axes->len > NK_MAX_DIMS)
    {
      g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_SHAPE,
                   _("“%s” splits into %u axes; tensors have at most %d dimensions"),
                   r->pattern, r->axes->len, NK_MAX_DIMS);
      return FALSE;
    }
  return TRUE;
}

/* Reduces the elementary axes the right side drops; @remaining gets the index in
 * r->axes of each axis kept, in order. */
static NkTensor *
reduce_dropped (const Rearrange    *r,
                NkTensor           *y,
                NkEinopsReduction   reduction,
                GArray             *remaining,
                GError            **error)
{
  static const NkReduceOp ops[] = { NK_REDUCE_SUM, NK_REDUCE_MEAN, NK_REDUCE_MAX, NK_REDUCE_MIN };
  int reduce_dims[NK_MAX_DIMS];
  int n_reduce = 0;

  for (guint i = 0; i < r->axes->len; i++)
    {
      const char *name = g_array_index (r->axes, Axis, i).name;
      gboolean kept = g_str_has_prefix (name, ELLIPSIS_NAME)
                      ? side_has_ellipsis (r->right) : side_has_name (r->right, name);

      if (kept)
        g_array_append_val (remaining, i);
      else
        reduce_dims[n_reduce++] = i;
    }
  if (n_reduce == 0)
    return nk_tensor_ref (y);
  return nk_reduce (ops[reduction], y, n_reduce, reduce_dims, FALSE, error);
}

/* The position among @remaining of the elementary axis called @name, appended to @perm. */
static void
add_to_perm (const Rearrange *r,
             const GArray    *remaining,
             const char      *name,
             int             *perm,
             int             *n_perm)
{
  int a = find_axis (r->axes, name);

  for (guint i = 0; i < remaining->len; i++)
    if (g_array_index (remaining, guint, i) == (guint) a)
      perm[(*n_perm)++] = i;
}

/* Permutes the remaining axes into the right side's order. */
static NkTensor *
permute_to_right (const Rearrange  *r,
                  NkTensor         *y,
                  const GArray     *remaining,
                  GError          **error)
{
  int perm[NK_MAX_DIMS];
  int n_perm = 0;

  for (guint i = 0; i < r->right->len; i++)
    {
      Item *item = g_ptr_array_index (r->right, i);

      for (guint j = 0; j < item->names->len || (item->ellipsis && !item->group && j == 0); j++)
        {
          gboolean ell = item->ellipsis && (!item->group ||
                                            g_str_equal (g_ptr_array_index (item->names, j),
                                                         ELLIPSIS_NAME));

          if (ell)
            for (int k = 0; k < r->n_ellipsis; k++)
              {
                g_autofree char *name = g_strdup_printf ("...%d", k);

                add_to_perm (r, remaining, name, perm, &n_perm);
              }
          else
            add_to_perm (r, remaining, g_ptr_array_index (item->names, j), perm, &n_perm);
          if (!item->group)
            break;
        }
    }
  g_assert (n_perm == (int) remaining->len);
  if (n_perm == 0)
    return nk_tensor_ref (y);
  return nk_tensor_permute (y, n_perm, perm, error);
}

/* The size of elementary axis @name ("...k" for the k-th dim of "..."). */
static gint64
axis_size (const Rearrange *r,
           const char      *name)
{
  return g_array_index (r->axes, Axis, find_axis (r->axes, name)).size;
}

/* The right side's shape: one dim per item, a group's axes multiplied. */
static gboolean
right_shape (const Rearrange  *r,
             gint64           *out_shape,
             int              *n_out,
             GError          **error)
{
  *n_out = 0;
  for (guint i = 0; i < r->right->len; i++)
    {
      Item *item = g_ptr_array_index (r->right, i);
      gboolean bare_ellipsis = item->ellipsis && !item->group;
      gint64 product = 1;

      for (guint j = 0; j < (bare_ellipsis ? 1 : item->names->len); j++)
        {
          const char *name = bare_ellipsis ? ELLIPSIS_NAME : g_ptr_array_index (item->names, j);

          if (!g_str_equal (name, ELLIPSIS_NAME))
            product *= axis_size (r, name);
          else
            for (int k = 0; k < r->n_ellipsis; k++)
              {
                g_autofree char *en = g_strdup_printf ("...%d", k);

                if (bare_ellipsis)
                  {
                    if (*n_out >= NK_MAX_DIMS)
                      goto too_many;
                    out_shape[(*n_out)++] = axis_size (r, en);
                  }
                else
                  product *= axis_size (r, en);
              }
        }
      if (bare_ellipsis)
        continue;
      if (*n_out >= NK_MAX_DIMS)
        goto too_many;
      out_shape[(*n_out)++] = product;
    }
  return TRUE;

too_many:
  g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_SHAPE,
               _("“%s” gives more than %d dimensions"), r->pattern, NK_MAX_DIMS);
  return FALSE;
}

static NkTensor *
rearrange_or_reduce (NkTensor           *x,
                     const char         *pattern,
                     gboolean            reduce,
                     NkEinopsReduction   reduction,
                     guint               n_sizes,
                     const char *const  *size_names,
                     const gint64       *sizes,
                     GError            **error)
{
  g_autofree char *left_text = NULL, *right_text = NULL;
  g_autoptr(GPtrArray) left = NULL, right = NULL;
  g_autoptr(GHashTable) known = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GArray) axes = g_array_new (FALSE, TRUE, sizeof (Axis));
  g_autoptr(GArray) remaining = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr(NkTensor) elementary = NULL, reduced = NULL, permuted = NULL;
  gint64 elem_shape[NK_MAX_DIMS], out_shape[NK_MAX_DIMS];
  Rearrange r = { pattern, NULL, NULL, known, axes, 0 };
  guint n_named_items;
  int n_out;

  g_array_set_clear_func (axes, axis_clear);
  if (!split_arrow (pattern, &left_text, &right_text, error))
    return NULL;
  if (!(left = parse_side (pattern, left_text, TRUE, FALSE, error)) ||
      !(right = parse_side (pattern, right_text, TRUE, FALSE, error)))
    return NULL;
  r.left = left;
  r.right = right;
  if (!check_sides (&r, reduce, &n_named_items, error)
      || !add_given_sizes (&r, n_sizes, size_names, sizes, error)
      || !match_left (&r, x, left_text, n_named_items, error))
    return NULL;

  /* 1. reshape into the elementary axes (a view when the strides allow it);
   * 2. reduce the axes the right side drops; 3. permute the rest into the right
   * side's order; 4. reshape into the right side's groups */
  for (guint i = 0; i < axes->len; i++)
    elem_shape[i] = g_array_index (axes, Axis, i).size;
  if (!(elementary = nk_tensor_reshape (x, axes->len, elem_shape, error))
      || !(reduced = reduce_dropped (&r, elementary, reduction, remaining, error))
      || !(permuted = permute_to_right (&r, reduced, remaining, error))
      || !right_shape (&r, out_shape, &n_out, error))
    return NULL;
  return nk_tensor_reshape (permuted, n_out, out_shape, error);
}

/**
 * nk_einops_reduction_from_name:
 * @name: "sum", "mean", "max" or "min"
 * @out_reduction: (out): the reduction
 * @error: a sentence naming @name when it is none of them
 *
 * Reads the reduction argument of einops' reduce(), spelled as einops spells it.
 *
 * Returns: %TRUE when @name is a reduction
 */
gboolean
nk_einops_reduction_from_name (const char         *name,
                               NkEinopsReduction  *out_reduction,
                               GError            **error)
{
  static const char *const names[] = { "sum", "mean", "max", "min" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (name, names[i]) == 0)
      {
        *out_reduction = i;
        return TRUE;
      }
  g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
               _("“%s” is not a reduction (use sum, mean, max or min)"), name ? name : "");
  return FALSE;
}

/**
 * nk_einops_rearrange:
 * @x: a tensor
 * @pattern: e.g. "b s (heads hidden) -> b heads s hidden"
 * @n_sizes: number of named sizes
 * @size_names: (array length=n_sizes): axis names
 * @sizes: (array length=n_sizes): their sizes
 * @error: return location for a #GError
 *
 * Reorders, splits and merges dimensions. A view of @x when the strides allow it
 * (splitting any dim, permuting, merging dims that stay adjacent and in order),
 * else a copy — nk_tensor_reshape() decides, as PyTorch's reshape does.
 *
 * Returns: (transfer full) (nullable): the result
 */
NkTensor *
nk_einops_rearrange (NkTensor           *x,
                     const char         *pattern,
                     guint               n_sizes,
                     const char *const  *size_names,
                     const gint64       *sizes,
                     GError            **error)
{
  g_return_val_if_fail (x != NULL, NULL);
  g_return_val_if_fail (pattern != NULL, NULL);
  g_return_val_if_fail (n_sizes == 0 || (size_names != NULL && sizes != NULL), NULL);

  return rearrange_or_reduce (x, pattern, FALSE, NK_EINOPS_SUM, n_sizes, size_names, sizes,
                              error);
}

/**
 * nk_einops_reduce:
 * @x: a tensor
 * @pattern: e.g. "b s h -> b s" or "... h -> ..."
 * @reduction: what to do over the dropped axes
 * @n_sizes: number of named sizes
 * @size_names: (array length=n_sizes): axis names
 * @sizes: (array length=n_sizes): their sizes
 * @error: return location for a #GError
 *
 * Like rearrange, but axes missing on the right are reduced (also the dims of a
 * "..." that the right side drops).
 *
 * Returns: (transfer full) (nullable): the result
 */
NkTensor *
nk_einops_reduce (NkTensor           *x,
                  const char         *pattern,
                  NkEinopsReduction   reduction,
                  guint               n_sizes,
                  const char *const  *size_names,
                  const gint64       *sizes,
                  GError            **error)
{
  g_return_val_if_fail (x != NULL, NULL);
  g_return_val_if_fail (pattern != NULL, NULL);
  g_return_val_if_fail (reduction <= NK_EINOPS_MIN, NULL);
  g_return_val_if_fail (n_sizes == 0 || (size_names != NULL && sizes != NULL), NULL);

  return rearrange_or_reduce (x, pattern, TRUE, reduction, n_sizes, size_names, sizes, error);
}

/* ------------------------------------------------------------------------------
 * einsum
 * ------------------------------------------------------------------------------ */

/* An operand with a label per dim; labels are indices into the pattern's names. */
typedef struct {
  NkTensor *t;
  int       labels[NK_MAX_DIMS];
} Labeled;

static gboolean
has_label (const Labeled *l,
           int            label)
{
  for (int d = 0; d < l->t->ndim; d++)
    if (l->labels[d] == label)
      return TRUE;
  return FALSE;
}

static int
label_dim (const Labeled *l,
           int            label)
{
  for (int d = 0; d < l->t->ndim; d++)
    if (l->labels[d] == label)
      return d;
  return -1;
}

static gboolean
replace (Labeled   *l,
         NkTensor  *t)
{
  if (t == NULL)
    return FALSE;
  nk_tensor_unref (l->t);
  l->t = t;
  return TRUE;
}

static const char *
label_name (GPtrArray *names,
            int        label)
{
  return g_ptr_array_index (names, label);
}

/* Permutes @l so its axes are the labels of @groups[0], then [1], then [2], and
 * views that as a 3-d tensor of @sizes, one axis per group. */
static NkTensor *
group_to_3d (Labeled          *l,
             const int * const groups[3],
             const int         counts[3],
             const gint64      sizes[3],
             GError          **error)
{
  int perm[NK_MAX_DIMS];
  int n = 0;

  for (int g = 0; g < 3; g++)
    for (int i = 0; i < counts[g]; i++)
      perm[n++] = label_dim (l, groups[g][i]);
  if (!replace (l, nk_tensor_permute (l->t, n, perm, error)))
    return NULL;
  return nk_tensor_reshape (l->t, 3, sizes, error);
}

/* Contracts @a with @b over their shared labels that @keep does not hold, as one
 * batched matmul: a [batch, free_a, sum] @ b [batch, sum, free_b]. */
static gboolean
contract (Labeled     *a,
          Labeled     *b,
          const guint8 *keep,
          GPtrArray   *names,
          const char  *pattern,
          gint64       max_numel,
          Labeled     *out,
          GError     **error)
{
  int batch[NK_MAX_DIMS], free_a[NK_MAX_DIMS], free_b[NK_MAX_DIMS], summed[NK_MAX_DIMS];
  int nb = 0, nfa = 0, nfb = 0, ns = 0;
  gint64 out_shape[NK_MAX_DIMS];
  gint64 Nb = 1, Nfa = 1, Nfb = 1, Ns = 1;
  g_autoptr(NkTensor) a3 = NULL, b3 = NULL, c = NULL;
  int n = 0;

  /* Shared labels must agree in size; a size 1 stretches (broadcast). */
  for (int d = 0; d < a->t->ndim; d++)
    {
      int label = a->labels[d];
      int e = label_dim (b, label);

      if (e < 0)
        {
          free_a[nfa++] = label;
          continue;
        }
      if (a->t->shape[d] != b->t->shape[e])
        {
          gint64 shape[NK_MAX_DIMS];
          Labeled *small = a->t->shape[d] == 1 ? a : b->t->shape[e] == 1 ? b : NULL;
          Labeled *big = small == a ? b : a;

          if (small == NULL)
            {
              g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_SHAPE,
                           _("“%s”: axis “%s” has size %" PRId64 " in one input and %"
                             PRId64 " in another"),
                           pattern, label_name (names, label), a->t->shape[d], b->t->shape[e]);
              return FALSE;
            }
          memcpy (shape, small->t->shape, sizeof shape);
          shape[label_dim (small, label)] = big->t->shape[label_dim (big, label)];
          if (!replace (small, nk_tensor_expand (small->t, small->t->ndim, shape, error)))
            return FALSE;
        }
      if (keep[label])
        batch[nb++] = label;
      else
        summed[ns++] = label;
    }
  for (int d = 0; d < b->t->ndim; d++)
    if (!has_label (a, b->labels[d]))
      free_b[nfb++] = b->labels[d];

  if (nb + nfa + nfb > NK_MAX_DIMS)
    {
      g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_SHAPE,
                   _("“%s” needs more than %d dimensions in one step"), pattern, NK_MAX_DIMS);
      return FALSE;
    }

  {
    /* In doubles first: the sizes come from the operands, but their products may
     * not fit in 64 bits. */
    double db = 1, dfa = 1, dfb = 1, ds = 1, limit;

    for (int i = 0; i < nb; i++)
      db *= a->t->shape[label_dim (a, batch[i])];
    for (int i = 0; i < nfa; i++)
      dfa *= a->t->shape[label_dim (a, free_a[i])];
    for (int i = 0; i < nfb; i++)
      dfb *= b->t->shape[label_dim (b, free_b[i])];
    for (int i = 0; i < ns; i++)
      ds *= a->t->shape[label_dim (a, summed[i])];

    limit = max_numel > 0 ? (double) max_numel : (double) G_MAXINT32 * G_MAXINT32;
    if (db * dfa * dfb > limit || db * dfa * ds > limit || db * ds * dfb > limit ||
        db * dfa * dfb * ds > limit * 64)
      {
        g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_LIMIT,
                     _("“%s” would make a tensor of %.0f elements (%.3g multiply-adds); "
                       "the limit is %.0f elements and %.3g multiply-adds"),
                     pattern, db * dfa * dfb, db * dfa * dfb * ds, limit, limit * 64);
        return FALSE;
      }
    Nb = (gint64) db, Nfa = (gint64) dfa, Nfb = (gint64) dfb, Ns = (gint64) ds;
  }

  /* a → [batch, free_a, summed] → (Nb, Nfa, Ns) */
  a3 = group_to_3d (a, (const int *[]) { batch, free_a, summed }, (const int[]) { nb, nfa, ns },
                    (const gint64[]) { Nb, Nfa, Ns }, error);
  if (a3 == NULL)
    return FALSE;

  /* b → [batch, summed, free_b] → (Nb, Ns, Nfb) */
  b3 = group_to_3d (b, (const int *[]) { batch, summed, free_b }, (const int[]) { nb, ns, nfb },
                    (const gint64[]) { Nb, Ns, Nfb }, error);
  if (b3 == NULL)
    return FALSE;

  c = nk_matmul (a3, b3, error);
  if (c == NULL)
    return FALSE;

  /* (Nb, Nfa, Nfb) → [batch, free_a, free_b] */
  n = 0;
  for (int i = 0; i < nb; i++)
    {
      out->labels[n] = batch[i];
      out_shape[n++] = a->t->shape[i];
    }
  for (int i = 0; i < nfa; i++)
    {
      out->labels[n] = free_a[i];
      out_shape[n++] = a->t->shape[nb + i];
    }
  for (int i = 0; i < nfb; i++)
    {
      out->labels[n] = free_b[i];
      out_shape[n++] = b->t->shape[nb + ns + i];
    }
  out->t = nk_tensor_reshape (c, n, out_shape, error);
  return out->t != NULL;
}

/* Sums @l over the labels @keep does not hold. */
static gboolean
sum_out (Labeled      *l,
         const guint8 *keep,
         GError      **error)
{
  int dims[NK_MAX_DIMS];
  int n = 0, m = 0;

  for (int d = 0; d < l->t->ndim; d++)
    if (!keep[l->labels[d]])
      dims[n++] = d;
  if (n == 0)
    return TRUE;
  for (int d = 0; d < l->t->ndim; d++)
    if (keep[l->labels[d]])
      l->labels[m++] = l->labels[d];
  return replace (l, nk_sum (l->t, n, dims, FALSE, error));
}

/* Parses one operand's or the output's labels; "..." becomes the labels of the
 * ellipsis dims, aligned at the right (label ids 0 .. n_ellipsis-1 are those). */
static GPtrArray *
einsum_side (const char *pattern,
             const char *text,
             gboolean    input,
             GError    **error)
{
  return parse_side (pattern, text, FALSE, input, error);
}

/* The first two dims of @l with the same label, if any. */
static gboolean
find_repeat (const Labeled *l,
             int           *d1,
             int           *d2)
{
  for (*d1 = 0; *d1 < l->t->ndim; (*d1)++)
    for (*d2 = *d1 + 1; *d2 < l->t->ndim; (*d2)++)
      if (l->labels[*d1] == l->labels[*d2])
        return TRUE;
  return FALSE;
}

/* A name twice in one input ("i i") reads its diagonal, as torch.einsum("ii->i"):
 * each repeated pair becomes one dim, a view. */
static gboolean
take_diagonals (Labeled     *l,
                GPtrArray   *names,
                const char  *pattern,
                GError     **error)
{
  int d1, d2;

  while (find_repeat (l, &d1, &d2))
    {
      int label = l->labels[d1], m = 0;

      if (l->t->shape[d1] != l->t->shape[d2])
        {
          g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_SHAPE,
                       _("“%s”: axis “%s” appears twice in one input with sizes %" PRId64
                         " and %" PRId64 "; a diagonal needs equal sizes"),
                       pattern, label_name (names, label), l->t->shape[d1], l->t->shape[d2]);
          return FALSE;
        }
      /* diagonal() drops both dims and appends the diagonal last. */
      if (!replace (l, nk_tensor_diagonal (l->t, 0, d1, d2, error)))
        return FALSE;
      for (int d = 0; d < l->t->ndim + 1; d++)
        if (d != d1 && d != d2)
          l->labels[m++] = l->labels[d];
      l->labels[m] = label;
    }
  return TRUE;
}

/* Labels every dim of @t as @side names it (the "..." dims by their place among
 * the @n_ellipsis), adding new names to @names; then takes repeated names' diagonals. */
static gboolean
label_operand (Labeled     *op,
               NkTensor    *t,
               GPtrArray   *side,
               int          n_ellipsis,
               GPtrArray   *names,
               const char  *pattern,
               GError     **error)
{
  int d = 0;
  int n_ell_k = t->ndim - (int) (side->len - (side_has_ellipsis (side) ? 1 : 0));

  op->t = nk_tensor_ref (t);
  for (guint i = 0; i < side->len; i++)
    {
      Item *item = g_ptr_array_index (side, i);
      const char *name;
      guint index;

      if (item->ellipsis)
        {
          for (int e = 0; e < n_ell_k; e++)
            op->labels[d++] = n_ellipsis - n_ell_k + e;
          continue;
        }
      if (item->group)
        {
          g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
                       _("“%s”: einsum takes no groups and no 1"), pattern);
          return FALSE;
        }
      name = g_ptr_array_index (item->names, 0);
      if (!g_ptr_array_find_with_equal_func (names, name, g_str_equal, &index))
        {
          if (names->len >= 64)
            {
              g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
                           _("“%s” has too many names"), pattern);
              return FALSE;
            }
          g_ptr_array_add (names, g_strdup (name));
          index = names->len - 1;
        }
      op->labels[d++] = index;
    }
  return take_diagonals (op, names, pattern, error);
}

/* The output's labels, from the right side. */
static gboolean
output_labels (GPtrArray   *out_side,
               int          n_ellipsis,
               GPtrArray   *names,
               const char  *pattern,
               int         *out_labels,
               int         *n_out,
               GError     **error)
{
  *n_out = 0;
  for (guint i = 0; i < out_side->len; i++)
    {
      Item *item = g_ptr_array_index (out_side, i);
      const char *name;
      guint index;

      if (item->ellipsis)
        {
          for (int e = 0; e < n_ellipsis; e++)
            out_labels[(*n_out)++] = e;
          continue;
        }
      if (item->group)
        {
          g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
                       _("“%s”: einsum takes no groups and no 1"), pattern);
          return FALSE;
        }
      name = g_ptr_array_index (item->names, 0);
      if (!g_ptr_array_find_with_equal_func (names, name, g_str_equal, &index))
        {
          g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_AXIS,
                       _("“%s”: axis “%s” is on the right but in no input"), pattern, name);
          return FALSE;
        }
      if (*n_out >= NK_MAX_DIMS)
        {
          g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_SHAPE,
                       _("“%s” gives more than %d dimensions"), pattern, NK_MAX_DIMS);
          return FALSE;
        }
      out_labels[(*n_out)++] = index;
    }
  return TRUE;
}

/* Marks in @keep the output's labels and those of operands @from .. @n - 1 (but
 * not @skip). */
static void
mark_needed (guint8        *keep,
             const Labeled *ops,
             guint          from,
             guint          n,
             guint          skip,
             const int     *out_labels,
             int            n_out)
{
  memset (keep, 0, 64 + NK_MAX_DIMS);
  for (int i = 0; i < n_out; i++)
    keep[out_labels[i]] = 1;
  for (guint j = from; j < n; j++)
    if (j != skip)
      for (int d = 0; d < ops[j].t->ndim; d++)
        keep[ops[j].labels[d]] = 1;
}

/* Sums every operand over the labels nothing else needs, then contracts left to
 * right into @cur, keeping the labels the output or a later operand needs. */
static gboolean
contract_all (Labeled     *ops,
              guint        n_operands,
              const int   *out_labels,
              int          n_out,
              GPtrArray   *names,
              const char  *pattern,
              gint64       max_numel,
              Labeled     *cur,
              GError     **error)
{
  guint8 keep[64 + NK_MAX_DIMS];

  for (guint k = 0; k < n_operands; k++)
    {
      mark_needed (keep, ops, 0, n_operands, k, out_labels, n_out);
      if (!sum_out (&ops[k], keep, error))
        return FALSE;
    }
  *cur = ops[0];
  ops[0].t = NULL;
  for (guint k = 1; k < n_operands; k++)
    {
      Labeled next = { 0 };

      mark_needed (keep, ops, k + 1, n_operands, G_MAXUINT, out_labels, n_out);
      if (!contract (cur, &ops[k], keep, names, pattern, max_numel, &next, error))
        return FALSE;
      nk_tensor_unref (cur->t);
      *cur = next;
    }
  return TRUE;
}

/**
 * nk_einops_einsum:
 * @n_operands: number of operands (≥ 1)
 * @operands: (array length=n_operands): the tensors
 * @pattern: e.g. "b s h, b t h -> b s t"; "..." stands for the same leading dims in
 *   every operand (broadcast where a size is 1)
 * @max_numel: the largest tensor this may make (0: no limit); the multiply-adds of
 *   one contraction are limited to 64 × @max_numel
 * @error: return location for a #GError
 *
 * Generalised matrix multiplication with names: every name not on the right is
 * summed over. A name twice in one input takes that input's diagonal ("i i -> i"
 * is the diagonal, "i i ->" the trace). Operands are
 * contracted left to right; each contraction is one batched nk_matmul(), so the
 * work goes to BLAS.
 *
 * Returns: (transfer full) (nullable): the result
 */
NkTensor *
nk_einops_einsum (guint             n_operands,
                  NkTensor *const  *operands,
                  const char       *pattern,
                  gint64            max_numel,
                  GError          **error)
{
  g_autofree char *left_text = NULL, *right_text = NULL;
  g_auto(GStrv) inputs = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) out_side = NULL;
  GPtrArray **sides = NULL;
  Labeled *ops = NULL;
  Labeled cur = { 0 };
  int n_ellipsis = 0;
  int out_labels[NK_MAX_DIMS];
  int n_out = 0;
  NkTensor *result = NULL;
  guint n_inputs;

  g_return_val_if_fail (n_operands >= 1 && operands != NULL, NULL);
  g_return_val_if_fail (pattern != NULL, NULL);

  if (!split_arrow (pattern, &left_text, &right_text, error))
    return NULL;
  inputs = g_strsplit (left_text, ",", -1);
  n_inputs = g_strv_length (inputs);
  if (n_inputs != n_operands)
    {
      g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_PATTERN,
                   g_dngettext (GETTEXT_PACKAGE,
                                "“%s” describes %u input but %u tensors were given",
                                "“%s” describes %u inputs but %u tensors were given",
                                n_inputs),
                   pattern, n_inputs, n_operands);
      return NULL;
    }
  out_side = einsum_side (pattern, right_text, FALSE, error);
  if (out_side == NULL)
    return NULL;

  sides = g_new0 (GPtrArray *, n_operands);
  ops = g_new0 (Labeled, n_operands);

  /* How many dims "..." stands for: the most any operand gives it. */
  for (guint k = 0; k < n_operands; k++)
    {
      guint named;

      sides[k] = einsum_side (pattern, inputs[k], TRUE, error);
      if (sides[k] == NULL)
        goto out;
      named = sides[k]->len - (side_has_ellipsis (sides[k]) ? 1 : 0);
      if (side_has_ellipsis (sides[k]) ? (guint) operands[k]->ndim < named
                                       : (guint) operands[k]->ndim != named)
        {
          g_autofree char *side = g_strstrip (g_strdup (inputs[k]));

          g_set_error (error, NK_EINOPS_ERROR, NK_EINOPS_ERROR_SHAPE,
                       _("“%s”: input %u “%s” names %u dimensions but the tensor has %d"),
                       pattern, k + 1, side, named, operands[k]->ndim);
          goto out;
        }
      if (side_has_ellipsis (sides[k]))
        n_ellipsis = MAX (n_ellipsis, operands[k]->ndim - (int) named);
    }
  for (int e = 0; e < n_ellipsis; e++)
    g_ptr_array_add (names, g_strdup_printf ("...[%d]", e));

  for (guint k = 0; k < n_operands; k++)
    if (!label_operand (&ops[k], operands[k], sides[k], n_ellipsis, names, pattern, error))
      goto out;
  if (!output_labels (out_side, n_ellipsis, names, pattern, out_labels, &n_out, error)
      || !contract_all (ops, n_operands, out_labels, n_out, names, pattern, max_numel, &cur, error))
    goto out;

  /* Into the output's order */
  {
    int perm[NK_MAX_DIMS];

    g_assert (cur.t->ndim == n_out);
    for (int i = 0; i < n_out; i++)
      perm[i] = label_dim (&cur, out_labels[i]);
    result = n_out > 0 ? nk_tensor_permute (cur.t, n_out, perm, error) : nk_tensor_ref (cur.t);
  }

out:
  g_clear_pointer (&cur.t, nk_tensor_unref);
  for (guint k = 0; k < n_operands; k++)
    {
      g_clear_pointer (&sides[k], g_ptr_array_unref);
      g_clear_pointer (&ops[k].t, nk_tensor_unref);
    }
  g_free (sides);
  g_free (ops);
  return result;
}
