/* napkin-run-compare.c: several runs on one x axis: their lines, styles and labels for the comparison plots
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <glib/gi18n.h>

#include "napkin-run-compare.h"

/* The run's series each quantity is drawn from. */
static const NapkinRunSeries quantity_series[NAPKIN_COMPARE_N_QUANTITIES] = {
  [NAPKIN_COMPARE_LOSS] = NAPKIN_RUN_SERIES_LOSS,
  [NAPKIN_COMPARE_FLUSHED] = NAPKIN_RUN_SERIES_QUANT_FLUSHED,
  [NAPKIN_COMPARE_CLIPPED] = NAPKIN_RUN_SERIES_QUANT_CLIPPED,
};

typedef struct {
  NapkinRunCompare *self;
  NapkinRun        *run;
  char             *key;          /* runs of one recipe share it */
  char             *label;
  char             *group_label;
  guint             group;
  guint             color;
  guint             dash;
  gboolean          pending;      /* its steps are being read from its folder */
  gboolean          quantizes;    /* an mxfp8 or nvfp4 run of Napkin's */
  /* On the step axis the run's own series; on another axis the run's (step, x)
   * map (NULL: the run lacks what the axis needs) and the series moved onto it. */
  NapkinSeries     *map;
  NapkinSeries     *shown[NAPKIN_COMPARE_N_QUANTITIES];
} Line;

struct _NapkinRunCompare
{
  GObject      parent_instance;

  GListModel  *runs;
  NapkinXAxis  x_axis;
  GPtrArray   *lines;   /* of Line */
  GHashTable  *styles;  /* NapkinRun → Style, of the runs compared */
};

G_DEFINE_FINAL_TYPE (NapkinRunCompare, napkin_run_compare, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_RUNS,
  PROP_X_AXIS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
emit_changed (NapkinRunCompare *self)
{
  g_signal_emit (self, signals[CHANGED], 0);
}

/* ------------------------------------------------------------ a line's points */

/* The map follows the run's steps: the points follow the map. */
static void
on_map_changed (NapkinSeries *map,
                Line         *line)
{
  for (guint q = 0; q < NAPKIN_COMPARE_N_QUANTITIES; q++)
    if (line->shown[q] != NULL)
      napkin_series_remap (line->shown[q], napkin_run_get_series (line->run, quantity_series[q]), map);
  emit_changed (line->self);
}

static void
line_unbind (Line *line)
{
  for (guint q = 0; q < NAPKIN_COMPARE_N_QUANTITIES; q++)
    {
      if (line->shown[q] != NULL)
        g_signal_handlers_disconnect_by_data (line->shown[q], line->self);
      g_clear_object (&line->shown[q]);
    }
  if (line->map != NULL)
    g_signal_handlers_disconnect_by_data (line->map, line);
  g_clear_object (&line->map);
}

/* Points @line at its run's series on the model's x axis (the run's steps are in). */
static void
line_bind (Line *line)
{
  NapkinXAxis axis = line->self->x_axis;

  line_unbind (line);
  if (axis != NAPKIN_X_AXIS_STEP)
    {
      line->map = napkin_run_dup_x_map (line->run, axis);
      if (line->map == NULL)
        return;
    }
  for (guint q = 0; q < NAPKIN_COMPARE_N_QUANTITIES; q++)
    {
      NapkinSeries *own;

      if (q != NAPKIN_COMPARE_LOSS && !line->quantizes)
        continue;
      own = napkin_run_get_series (line->run, quantity_series[q]);
      if (line->map == NULL)
        {
          line->shown[q] = g_object_ref (own);
          g_signal_connect_object (own, "changed", G_CALLBACK (emit_changed), line->self, G_CONNECT_SWAPPED);
        }
      else
        {
          line->shown[q] = napkin_series_new ();
          napkin_series_remap (line->shown[q], own, line->map);
        }
    }
  if (line->map != NULL)
    g_signal_connect (line->map, "changed", G_CALLBACK (on_map_changed), line);
}

static void
line_free (gpointer data)
{
  Line *line = data;

  line_unbind (line);
  g_clear_object (&line->run);
  g_free (line->key);
  g_free (line->label);
  g_free (line->group_label);
  g_free (line);
}

/* ------------------------------------------------------------ labels and styles */

/**
 * napkin_run_compare_dup_recipe:
 * @config: a run's config
 *
 * Returns: (transfer full): its precision in words, with the MX scale rule or
 *   NVFP4's gradient rounding ("MXFP8, scale floored (OCP)")
 */
char *
napkin_run_compare_dup_recipe (const NkTrainConfig *config)
{
  g_return_val_if_fail (config != NULL, NULL);

  switch (config->precision)
    {
    case NK_PRECISION_MXFP8:
      return g_strdup (config->mx_scale == NK_MX_SCALE_FLOOR ? _("MXFP8, scale floored (OCP)")
                                                             : _("MXFP8, scale rounded up"));
    case NK_PRECISION_NVFP4:
      return g_strdup (config->nvfp4_nearest ? _("NVFP4, nearest rounding")
                                             : _("NVFP4, stochastic rounding"));
    case NK_PRECISION_FP32:
    case NK_PRECISION_BF16_MIXED:
    case NK_PRECISION_FP16_MIXED:
    default:
      return g_strdup (nk_precision_to_string (config->precision));
    }
}

/* A run of Napkin's: its recipe and seed; a run of another engine: its name. */
static void
line_describe (Line *line)
{
  const NkTrainConfig *c = napkin_run_get_config (line->run);
  g_autofree char *recipe = NULL;
  g_autofree char *seed = NULL;
  g_autofree char *rest = NULL;

  if (napkin_run_get_import (line->run) != NULL)
    {
      line->key = g_strdup_printf ("import:%p", (gpointer) line->run);
      line->label = g_strdup (napkin_run_get_name (line->run));
      line->group_label = g_strdup (line->label);
      return;
    }
  recipe = napkin_run_compare_dup_recipe (c);
  seed = g_strdup_printf ("%" PRIu64, (uint64_t) c->seed);
  /* the config in a line leaves out the seed, and says the precision but not its rule */
  rest = napkin_run_describe_config (c);
  line->key = g_strdup_printf ("%s|%d|%d", rest, c->mx_scale, c->nvfp4_nearest);
  line->quantizes = nk_precision_is_block_scaled (c->precision);
  /* Translators: a run's entry in the comparison plots' legend: its recipe
   * ("NVFP4, stochastic rounding") and its seed */
  line->label = g_strdup_printf (_("%s · seed %s"), recipe, seed);
  line->group_label = g_steal_pointer (&recipe);
}

/* A run's style, kept while it stays among the compared runs. */
typedef struct {
  guint slot;     /* its recipe's: the colour, and past the palette a dash offset */
  guint member;   /* its own among its recipe's runs: the dash */
} Style;

/* Marks @member of @slot taken in @used (by slot, a GArray of gboolean by
 * member); %FALSE when another run holds it already. */
static gboolean
take_member (GPtrArray *used,
             guint      slot,
             guint      member)
{
  GArray *members;

  while (used->len <= slot)
    g_ptr_array_add (used, g_array_new (FALSE, TRUE, sizeof (gboolean)));
  members = g_ptr_array_index (used, slot);
  if (members->len <= member)
    g_array_set_size (members, member + 1);
  if (g_array_index (members, gboolean, member))
    return FALSE;
  g_array_index (members, gboolean, member) = TRUE;
  return TRUE;
}

static guint
free_member (GPtrArray *used,
             guint      slot)
{
  GArray *members = slot < used->len ? g_ptr_array_index (used, slot) : NULL;
  guint member = 0;

  while (members != NULL && member < members->len && g_array_index (members, gboolean, member))
    member++;
  return member;
}

/* Claims @slot for @key in @keys (by slot, the recipe's key or NULL); %FALSE
 * when another recipe holds it. */
static gboolean
take_slot (GPtrArray  *keys,
           guint       slot,
           const char *key)
{
  while (keys->len <= slot)
    g_ptr_array_add (keys, NULL);
  if (g_ptr_array_index (keys, slot) != NULL)
    return g_str_equal (g_ptr_array_index (keys, slot), key);
  g_ptr_array_index (keys, slot) = (gpointer) key;
  return TRUE;
}

/* The slot @key holds, G_MAXUINT when none. */
static guint
slot_held (GPtrArray  *keys,
           const char *key)
{
  for (guint s = 0; s < keys->len; s++)
    if (g_ptr_array_index (keys, s) != NULL && g_str_equal (g_ptr_array_index (keys, s), key))
      return s;
  return G_MAXUINT;
}

/* The slot @key holds, or the lowest no recipe holds. */
static guint
slot_for (GPtrArray  *keys,
          const char *key)
{
  guint held = slot_held (keys, key);

  if (held != G_MAXUINT)
    return held;
  for (guint s = 0; s < keys->len; s++)
    if (g_ptr_array_index (keys, s) == NULL)
      return s;
  return keys->len;
}

/* Colours by recipe, dashes by run within it, fixed by the runs rather than by
 * their places in the list: a sort of the table moves lines but changes no
 * line's colour or dash. A run keeps its style while it stays compared; a new
 * one (in the list's order) joins its recipe's slot, or takes the lowest slot
 * no recipe holds, and the lowest dash its recipe's runs leave free. */
static void
assign_styles (NapkinRunCompare *self)
{
  g_autoptr(GHashTable) styles = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_object_unref, g_free);
  g_autoptr(GPtrArray) keys = g_ptr_array_new ();
  g_autoptr(GPtrArray) used = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autofree gboolean *styled = g_new0 (gboolean, self->lines->len + 1);

  /* first the runs that had a style, as long as it is still theirs to have */
  for (guint i = 0; i < self->lines->len; i++)
    {
      Line *line = g_ptr_array_index (self->lines, i);
      Style *kept = g_hash_table_lookup (self->styles, line->run);
      guint held = slot_held (keys, line->key);

      if (kept != NULL && (held == G_MAXUINT || held == kept->slot) && take_slot (keys, kept->slot, line->key)
          && take_member (used, kept->slot, kept->member))
        {
          g_hash_table_insert (styles, g_object_ref (line->run), g_memdup2 (kept, sizeof *kept));
          styled[i] = TRUE;
        }
    }
  for (guint i = 0; i < self->lines->len; i++)
    {
      Line *line = g_ptr_array_index (self->lines, i);
      Style style;

      if (styled[i])
        continue;
      style.slot = slot_for (keys, line->key);
      take_slot (keys, style.slot, line->key);
      style.member = free_member (used, style.slot);
      take_member (used, style.slot, style.member);
      g_hash_table_insert (styles, g_object_ref (line->run), g_memdup2 (&style, sizeof style));
    }
  for (guint i = 0; i < self->lines->len; i++)
    {
      Line *line = g_ptr_array_index (self->lines, i);
      const Style *style = g_hash_table_lookup (styles, line->run);

      line->group = style->slot;
      line->color = style->slot % NAPKIN_RUN_COMPARE_N_COLORS;
      line->dash = (style->member + style->slot / NAPKIN_RUN_COMPARE_N_COLORS) % NAPKIN_RUN_COMPARE_N_DASHES;
    }
  g_clear_pointer (&self->styles, g_hash_table_unref);
  self->styles = g_steal_pointer (&styles);
}

/* Labels that are still the same get the run's name. */
static void
name_alike_labels (NapkinRunCompare *self)
{
  for (guint i = 0; i < self->lines->len; i++)
    {
      Line *line = g_ptr_array_index (self->lines, i);

      for (guint j = 0; j < self->lines->len; j++)
        {
          Line *other = g_ptr_array_index (self->lines, j);

          if (j != i && g_strcmp0 (other->label, line->label) == 0
              && !g_str_has_suffix (line->label, napkin_run_get_name (line->run)))
            {
              char *named = g_strdup_printf ("%s · %s", line->label, napkin_run_get_name (line->run));

              g_free (line->label);
              line->label = named;
              break;
            }
        }
    }
}

/* ------------------------------------------------------------ following the runs */

static void
on_run_loaded (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(NapkinRunCompare) self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean changed = FALSE;

  if (!napkin_run_load_finish (NAPKIN_RUN (source), result, &error))
    g_debug ("Compare Runs: %s", error->message);
  for (guint i = 0; i < self->lines->len; i++)
    {
      Line *line = g_ptr_array_index (self->lines, i);

      if (line->run == NAPKIN_RUN (source) && line->pending)
        {
          line->pending = FALSE;
          line_bind (line);
          changed = TRUE;
        }
    }
  if (changed)
    emit_changed (self);
}

static Line *
line_new (NapkinRunCompare *self,
          NapkinRun        *run)
{
  Line *line = g_new0 (Line, 1);

  line->self = self;
  line->run = g_object_ref (run);
  line_describe (line);
  /* a run from disk is read on a thread first: a million steps take a while */
  if (!napkin_run_is_loaded (run))
    {
      line->pending = TRUE;
      napkin_run_load_async (run, on_run_loaded, g_object_ref (self));
    }
  else
    line_bind (line);
  return line;
}

static void
on_runs_changed (GListModel       *runs,
                 guint             position,
                 guint             removed,
                 guint             added,
                 NapkinRunCompare *self)
{
  g_autoptr(GPtrArray) fresh = g_ptr_array_new ();

  for (guint i = 0; i < added; i++)
    {
      g_autoptr(NapkinRun) run = g_list_model_get_item (runs, position + i);

      g_ptr_array_add (fresh, line_new (self, run));
    }
  g_ptr_array_remove_range (self->lines, position, removed);
  for (guint i = 0; i < added; i++)
    g_ptr_array_insert (self->lines, position + i, g_ptr_array_index (fresh, i));
  /* a run picked or dropped can change others' styles and labels */
  for (guint i = 0; i < self->lines->len; i++)
    {
      Line *line = g_ptr_array_index (self->lines, i);

      g_free (line->label);
      g_free (line->group_label);
      g_free (line->key);
      line_describe (line);
    }
  assign_styles (self);
  name_alike_labels (self);
  emit_changed (self);
}

/* ------------------------------------------------------------ GObject */

static void
napkin_run_compare_dispose (GObject *object)
{
  NapkinRunCompare *self = NAPKIN_RUN_COMPARE (object);

  napkin_run_compare_set_runs (self, NULL);
  G_OBJECT_CLASS (napkin_run_compare_parent_class)->dispose (object);
}

static void
napkin_run_compare_finalize (GObject *object)
{
  NapkinRunCompare *self = NAPKIN_RUN_COMPARE (object);

  g_ptr_array_unref (self->lines);
  g_clear_pointer (&self->styles, g_hash_table_unref);
  G_OBJECT_CLASS (napkin_run_compare_parent_class)->finalize (object);
}

static void
napkin_run_compare_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  NapkinRunCompare *self = NAPKIN_RUN_COMPARE (object);

  switch (prop_id)
    {
    case PROP_RUNS:
      g_value_set_object (value, self->runs);
      break;
    case PROP_X_AXIS:
      g_value_set_uint (value, self->x_axis);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_run_compare_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  NapkinRunCompare *self = NAPKIN_RUN_COMPARE (object);

  switch (prop_id)
    {
    case PROP_RUNS:
      napkin_run_compare_set_runs (self, g_value_get_object (value));
      break;
    case PROP_X_AXIS:
      napkin_run_compare_set_x_axis (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
napkin_run_compare_class_init (NapkinRunCompareClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags rw = G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = napkin_run_compare_dispose;
  object_class->finalize = napkin_run_compare_finalize;
  object_class->get_property = napkin_run_compare_get_property;
  object_class->set_property = napkin_run_compare_set_property;

  /**
   * NapkinRunCompare:runs:
   *
   * The runs compared: a list model of #NapkinRun, one line each, in its order.
   */
  properties[PROP_RUNS] = g_param_spec_object ("runs", NULL, NULL, G_TYPE_LIST_MODEL, rw);
  /**
   * NapkinRunCompare:x-axis:
   *
   * What the lines are drawn across, a #NapkinXAxis.
   */
  properties[PROP_X_AXIS] = g_param_spec_uint ("x-axis", NULL, NULL, 0, NAPKIN_N_X_AXES - 1,
                                               NAPKIN_X_AXIS_STEP, rw);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * NapkinRunCompare::changed:
   * @self: the comparison
   *
   * Lines came or went, changed style, or got points.
   */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
napkin_run_compare_init (NapkinRunCompare *self)
{
  self->lines = g_ptr_array_new_with_free_func (line_free);
  self->styles = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_object_unref, g_free);
}

/**
 * napkin_run_compare_new:
 * @runs: (nullable): a list model of #NapkinRun
 *
 * Returns: (transfer full): the comparison of @runs, across steps
 */
NapkinRunCompare *
napkin_run_compare_new (GListModel *runs)
{
  return g_object_new (NAPKIN_TYPE_RUN_COMPARE, "runs", runs, NULL);
}

/* Returns: (transfer none) (nullable): the runs compared */
GListModel *
napkin_run_compare_get_runs (NapkinRunCompare *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_COMPARE (self), NULL);
  return self->runs;
}

void
napkin_run_compare_set_runs (NapkinRunCompare *self,
                             GListModel       *runs)
{
  g_return_if_fail (NAPKIN_IS_RUN_COMPARE (self));
  g_return_if_fail (runs == NULL || G_IS_LIST_MODEL (runs));

  if (self->runs == runs)
    return;
  if (self->runs != NULL)
    g_signal_handlers_disconnect_by_func (self->runs, on_runs_changed, self);
  g_ptr_array_set_size (self->lines, 0);
  g_set_object (&self->runs, runs);
  if (runs != NULL)
    {
      g_signal_connect_object (runs, "items-changed", G_CALLBACK (on_runs_changed), self, 0);
      on_runs_changed (runs, 0, 0, g_list_model_get_n_items (runs), self);
    }
  else
    emit_changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNS]);
}

NapkinXAxis
napkin_run_compare_get_x_axis (NapkinRunCompare *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_COMPARE (self), NAPKIN_X_AXIS_STEP);
  return self->x_axis;
}

void
napkin_run_compare_set_x_axis (NapkinRunCompare *self,
                               NapkinXAxis       axis)
{
  g_return_if_fail (NAPKIN_IS_RUN_COMPARE (self));
  g_return_if_fail (axis < NAPKIN_N_X_AXES);

  if (self->x_axis == axis)
    return;
  self->x_axis = axis;
  for (guint i = 0; i < self->lines->len; i++)
    {
      Line *line = g_ptr_array_index (self->lines, i);

      if (!line->pending)
        line_bind (line);
    }
  emit_changed (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_X_AXIS]);
}

guint
napkin_run_compare_get_n_lines (NapkinRunCompare *self)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_COMPARE (self), 0);
  return self->lines->len;
}

static Line *
get_line (NapkinRunCompare *self,
          guint             line)
{
  g_return_val_if_fail (NAPKIN_IS_RUN_COMPARE (self), NULL);
  g_return_val_if_fail (line < self->lines->len, NULL);
  return g_ptr_array_index (self->lines, line);
}

/* Returns: (transfer none): the run of @line */
NapkinRun *
napkin_run_compare_get_run (NapkinRunCompare *self,
                            guint             line)
{
  Line *l = get_line (self, line);

  return l != NULL ? l->run : NULL;
}

/**
 * napkin_run_compare_get_series:
 * @self: a comparison
 * @line: a line
 * @what: the quantity
 *
 * Returns: (transfer none) (nullable): the line's points of @what as (x, value) on
 *   the x axis, or %NULL: its steps are still being read, the run lacks what the
 *   axis needs, or (flushed, clipped) it quantizes nothing
 */
NapkinSeries *
napkin_run_compare_get_series (NapkinRunCompare      *self,
                               guint                  line,
                               NapkinCompareQuantity  what)
{
  Line *l = get_line (self, line);

  g_return_val_if_fail (what < NAPKIN_COMPARE_N_QUANTITIES, NULL);
  return l != NULL ? l->shown[what] : NULL;
}

/* Returns: whether @line's steps are still being read from its folder */
gboolean
napkin_run_compare_is_pending (NapkinRunCompare *self,
                               guint             line)
{
  Line *l = get_line (self, line);

  return l != NULL && l->pending;
}

/* Returns: whether @line's run lacks what the x axis needs (napkin_x_axis_get_missing()) */
gboolean
napkin_run_compare_is_missing (NapkinRunCompare *self,
                               guint             line)
{
  Line *l = get_line (self, line);

  return l != NULL && !l->pending && self->x_axis != NAPKIN_X_AXIS_STEP && l->map == NULL;
}

/* Returns: @line's legend entry: its recipe and seed, or another engine's run's name */
const char *
napkin_run_compare_get_label (NapkinRunCompare *self,
                              guint             line)
{
  Line *l = get_line (self, line);

  return l != NULL ? l->label : NULL;
}

/* Returns: what the runs of @line's colour share: the recipe, or a foreign run's name */
const char *
napkin_run_compare_get_group_label (NapkinRunCompare *self,
                                    guint             line)
{
  Line *l = get_line (self, line);

  return l != NULL ? l->group_label : NULL;
}

/* Returns: @line's recipe's slot: one number for the runs of one recipe, small
 *   (below the most recipes compared at once), kept while the recipe has a run
 *   compared */
guint
napkin_run_compare_get_group (NapkinRunCompare *self,
                              guint             line)
{
  Line *l = get_line (self, line);

  return l != NULL ? l->group : 0;
}

/* Returns: @line's colour, below %NAPKIN_RUN_COMPARE_N_COLORS (a NapkinPlotColor) */
guint
napkin_run_compare_get_color (NapkinRunCompare *self,
                              guint             line)
{
  Line *l = get_line (self, line);

  return l != NULL ? l->color : 0;
}

/* Returns: @line's dash pattern, below %NAPKIN_RUN_COMPARE_N_DASHES (0: solid) */
guint
napkin_run_compare_get_dash (NapkinRunCompare *self,
                             guint             line)
{
  Line *l = get_line (self, line);

  return l != NULL ? l->dash : 0;
}

/* The mean of a series' finite values (NAN: none). */
static double
series_mean (NapkinSeries *series)
{
  guint n = napkin_series_get_length (series), count = 0;
  double sum = 0;

  for (guint i = 0; i < n; i++)
    if (isfinite (napkin_series_get_y (series, i)))
      sum += napkin_series_get_y (series, i), count++;
  return count > 0 ? sum / count : NAN;
}

/**
 * napkin_run_compare_dup_description:
 * @self: a comparison
 * @what: the quantity a plot draws
 *
 * What a sighted person reads off the plot of @what, for its accessible
 * description: each line's label and last value (for the shares, their mean too).
 *
 * Returns: (transfer full): the text, "" when no line has points
 */
char *
napkin_run_compare_dup_description (NapkinRunCompare      *self,
                                    NapkinCompareQuantity  what)
{
  GString *text = g_string_new (NULL);

  g_return_val_if_fail (NAPKIN_IS_RUN_COMPARE (self), NULL);
  g_return_val_if_fail (what < NAPKIN_COMPARE_N_QUANTITIES, NULL);

  for (guint i = 0; i < self->lines->len; i++)
    {
      Line *line = g_ptr_array_index (self->lines, i);
      NapkinSeries *series = line->shown[what];
      double x, y;

      if (series == NULL || !napkin_series_get_last (series, &x, &y))
        continue;
      if (text->len > 0)
        g_string_append (text, "; ");
      if (what == NAPKIN_COMPARE_LOSS)
        /* Translators: one run in the loss comparison's description: its label,
         * its last loss, and the step of it */
        g_string_append_printf (text, _("%s: loss %.4g at step %" PRIu64), line->label, y,
                                (uint64_t) napkin_run_get_last_step (line->run));
      else
        /* Translators: one run in the comparison of flushed or clipped shares:
         * its label, its mean share over the run and its last, in per cent */
        g_string_append_printf (text, _("%s: %.3g %% on average, %.3g %% at the last step"), line->label,
                                100 * series_mean (series), 100 * y);
    }
  return g_string_free (text, FALSE);
}
