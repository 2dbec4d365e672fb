/* test-run-sample.c: the Training page's "What the Model Writes" card during a GPT run
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The page is driven through its form inputs and its start action, as a person
 * would. Oracles: the steps the run form asks a sample at (every 50 and after the
 * last, counted here), and the trained model itself: continuing a newline with the
 * generator the card's step seeds (nanoGPT's sample.py settings, as nk-trainer.h
 * states them) must give the very text the card shows.
 */
#include "config.h"

#include <locale.h>
#include <string.h>

#include "nk-gpt.h"
#include "nk-rng.h"
#include "napkin-training-page-private.h"
#include "nk-test-ui-util.h"

/* Bounds the waits so a broken page fails instead of hanging; not a timing test. */
#define MAX_WAIT_ITERATIONS 600000

/* The run form's sample interval, written here rather than read from it. */
#define SAMPLE_EVERY 50
#define STEPS        60

#define TITLE_PREFIX "What the Model Writes"

static void
set_spin (NapkinTrainingPage *page,
          const char         *name,
          double              value)
{
  GtkWidget *spin = napkin_training_page_get_input (page, name);

  g_assert_true (GTK_IS_SPIN_BUTTON (spin));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), value);
}

/* The label under @widget whose text starts with @prefix, depth first. */
static GtkLabel *
find_label (GtkWidget  *widget,
            const char *prefix)
{
  if (GTK_IS_LABEL (widget) && g_str_has_prefix (gtk_label_get_label (GTK_LABEL (widget)), prefix))
    return GTK_LABEL (widget);
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkLabel *found = find_label (c, prefix);

      if (found != NULL)
        return found;
    }
  return NULL;
}

typedef struct {
  GtkWidget *card;    /* the card's box */
  GtkLabel  *title;   /* "What the Model Writes after Step N" */
  GtkLabel  *text;    /* the sample, the label after the title */
} SampleCard;

static void
find_card (NapkinTrainingPage *page,
           SampleCard         *out)
{
  GtkWidget *view = nk_test_find_descendant (GTK_WIDGET (page), NAPKIN_TYPE_RUN_VIEW);

  g_assert_nonnull (view);
  out->title = find_label (view, TITLE_PREFIX);
  g_assert_nonnull (out->title);
  out->card = gtk_widget_get_parent (GTK_WIDGET (out->title));
  out->text = GTK_LABEL (gtk_widget_get_next_sibling (GTK_WIDGET (out->title)));
  g_assert_true (GTK_IS_LABEL (out->text));
}

/* The step the card's title names, 0 while it names none. */
static guint64
titled_step (const SampleCard *card)
{
  const char *title = gtk_label_get_label (card->title);
  const char *digits = strrchr (title, ' ');
  guint64 step = 0;

  if (!g_str_has_prefix (title, TITLE_PREFIX " after Step ") || digits == NULL)
    return 0;
  g_assert_true (g_ascii_string_to_unsigned (digits + 1, 10, 1, G_MAXUINT64, &step, NULL));
  return step;
}

static gboolean
run_ended (NapkinTrainingPage *page,
           const SampleCard   *card)
{
  NkTrainer *trainer = napkin_training_page_get_trainer (page, 0);
  NkTrainerState state;

  if (trainer == NULL || napkin_training_page_is_running (page))
    return FALSE;
  state = nk_trainer_get_state (trainer);
  return state == NK_TRAINER_STATE_FINISHED || state == NK_TRAINER_STATE_STOPPED
         || state == NK_TRAINER_STATE_FAILED;
}

/* The card shows a sample (or the run is over: then the test says what it missed). */
static gboolean
sample_shown (NapkinTrainingPage *page,
              const SampleCard   *card)
{
  return (gtk_widget_get_visible (card->card) && titled_step (card) != 0) || run_ended (page, card);
}

/* The prediction card has its matmul rate: the measurement that the page started on a
 * thread (nk_train_gemm_rate_measure()) has left OpenBLAS. A process that exits while
 * a thread is inside an OpenBLAS call hangs in OpenBLAS's exit handler
 * (blas_thread_shutdown_ joins a worker that missed its wake-up), so the test does
 * not end before this holds. */
static gboolean
rate_measured (NapkinTrainingPage *page,
               const SampleCard   *card)
{
  const char *caption = napkin_training_page_get_label_text (page, "time-caption");

  return caption != NULL && !g_str_has_prefix (caption, "Measuring");
}

/* Runs the main loop until @pred holds; the worker publishes through idles. */
static void
wait_until (gboolean          (*pred) (NapkinTrainingPage *page, const SampleCard *card),
            NapkinTrainingPage *page,
            const SampleCard   *card)
{
  for (guint i = 0; i < MAX_WAIT_ITERATIONS && !pred (page, card); i++)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (500);
  g_assert_true (pred (page, card));
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* The text the run's model writes after @step: nk-trainer.h's recipe (a newline, 200
 * tokens, temperature 0.8, top-k 200, a generator seeded with seed ^ step), each
 * token a byte, made valid UTF-8. */
static char *
expected_sample (NkTrainer *trainer,
                 guint64    step)
{
  const guint32 newline = '\n';
  g_autoptr(NkRng) rng = nk_rng_new (nk_trainer_get_config (trainer)->seed ^ step);
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) tokens = nk_gpt_generate (nk_trainer_get_model (trainer), &newline, 1, 200,
                                              0.8, 200, rng, &error);
  g_autoptr(GString) bytes = g_string_new (NULL);

  g_assert_no_error (error);
  g_assert_cmpuint (tokens->len, ==, 200);
  for (guint i = 0; i < tokens->len; i++)
    {
      g_assert_cmpuint (g_array_index (tokens, guint32, i), <, 256);
      g_string_append_c (bytes, (char) g_array_index (tokens, guint32, i));
    }
  return g_utf8_make_valid (bytes->str, bytes->len);
}

static void
test_sample_card (void)
{
  NapkinTrainingPage *page = NAPKIN_TRAINING_PAGE (napkin_training_page_new ());
  g_autofree char *expected = NULL;
  SampleCard card;
  NkTrainer *trainer;
  const char *text;
  guint64 first, step;

  g_object_ref_sink (page);
  find_card (page, &card);
  /* No run shown: no card. */
  g_assert_false (gtk_widget_get_visible (card.card));

  /* A small GPT on the bundled text (bytes), long enough for a sample in between. */
  adw_combo_row_set_selected (ADW_COMBO_ROW (napkin_training_page_get_input (page, "model")), 2);
  set_spin (page, "dim", 16);
  set_spin (page, "layers", 1);
  set_spin (page, "heads", 2);
  set_spin (page, "context", 16);
  set_spin (page, "batch", 2);
  set_spin (page, "steps", STEPS);
  set_spin (page, "seed", 5);
  g_assert_null (napkin_training_page_get_form_error (page));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.start", NULL));

  /* The card shows the first sample it gets while the run goes on. */
  wait_until (sample_shown, page, &card);
  first = titled_step (&card);
  g_test_message ("first sample shown after step %" G_GUINT64_FORMAT, first);
  /* Samples come after step 50 and after the last, 60, and nowhere else. */
  g_assert_true (first == SAMPLE_EVERY || first == STEPS);

  wait_until (run_ended, page, &card);
  trainer = napkin_training_page_get_trainer (page, 0);
  g_assert_cmpint (nk_trainer_get_state (trainer), ==, NK_TRAINER_STATE_FINISHED);

  /* After the run: the last step's sample, shown in full and as the model writes it. */
  g_assert_true (gtk_widget_get_visible (card.card));
  step = titled_step (&card);
  g_assert_cmpuint (step, ==, STEPS);
  text = gtk_label_get_label (card.text);
  g_assert_cmpuint (strlen (text), >, 0);
  g_assert_true (g_utf8_validate (text, -1, NULL));
  expected = expected_sample (trainer, step);
  g_assert_cmpstr (text, ==, expected);

  /* A second run shows no sample of the first's before it has its own. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (page), "training.start", NULL));
  g_assert_true (napkin_training_page_get_shown_trainer (page) != trainer);
  g_assert_cmpstr (gtk_label_get_label (card.title), ==, TITLE_PREFIX);
  g_assert_cmpstr (gtk_label_get_label (card.text), !=, expected);
  wait_until (run_ended, page, &card);

  wait_until (rate_measured, page, &card);
  g_assert_finalize_object (page);
}

int
main (int   argc,
      char *argv[])
{
  /* Each test gets its own empty $XDG_DATA_HOME, so the page lists only its own runs. */
  g_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  gtk_disable_setlocale ();
  setlocale (LC_ALL, "en_US.UTF-8");
  gtk_init ();
  adw_init ();

  g_test_add_func ("/ui/training/sample-card", test_sample_card);
  return g_test_run ();
}
