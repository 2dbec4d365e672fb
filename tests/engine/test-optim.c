/* test-optim.c: the first steps of every optimizer against updates computed by hand
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>

#include "nk-optim.h"

#define N 4
#define STEPS 3

static const double p0[N] = { 1.0, -2.0, 0.5, 3.0 };
static const double grads[STEPS][N] = {
  { 0.5, -1.0, 2.0, 0.0 },
  { 0.25, 0.5, -1.5, 1.0 },
  { -0.75, 0.125, 1.0, -2.0 },
};

/* The update rules written out in double, as torch.optim documents them (and the
 * lecture's AdaGrad), independent of nk-kernels.h. */
static void
reference (NkOptimizer kind,
           double      lr,
           double      p[STEPS + 1][N])
{
  double s1[N] = { 0 }, s2[N] = { 0 };

  for (int i = 0; i < N; i++)
    p[0][i] = p0[i];
  for (int t = 1; t <= STEPS; t++)
    for (int i = 0; i < N; i++)
      {
        double g = grads[t - 1][i], x = p[t - 1][i];

        switch (kind)
          {
          case NK_OPTIMIZER_SGD:
            x -= lr * g;
            break;
          case NK_OPTIMIZER_MOMENTUM:
            s1[i] = t == 1 ? g : 0.9 * s1[i] + g;
            x -= lr * s1[i];
            break;
          case NK_OPTIMIZER_ADAGRAD:
            s1[i] += g * g;
            x -= lr * g / sqrt (s1[i] + 1e-5);
            break;
          case NK_OPTIMIZER_RMSPROP:
            s1[i] = 0.99 * s1[i] + 0.01 * g * g;
            x -= lr * g / (sqrt (s1[i]) + 1e-8);
            break;
          case NK_OPTIMIZER_ADAM:
          case NK_OPTIMIZER_ADAMW:
            if (kind == NK_OPTIMIZER_ADAMW)
              x *= 1.0 - lr * 0.01;
            s1[i] = 0.9 * s1[i] + 0.1 * g;
            s2[i] = 0.999 * s2[i] + 0.001 * g * g;
            {
              double mhat = s1[i] / (1.0 - pow (0.9, t));
              double vhat = s2[i] / (1.0 - pow (0.999, t));
              x -= lr * mhat / (sqrt (vhat) + 1e-8);
            }
            break;
          default:
            g_assert_not_reached ();
          }
        p[t][i] = x;
      }
}

static NkTensor *
make_param (void)
{
  g_autoptr(GError) error = NULL;
  NkTensor *p = nk_tensor_new_from_doubles (NK_DTYPE_F32, NK_SHAPE (N), p0, &error);
  g_autoptr(NkTensor) g = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (N), &error);

  g_assert_no_error (error);
  nk_tensor_set_requires_grad (p, TRUE);
  nk_tensor_set_grad (p, g);
  return p;
}

static void
set_grad (NkTensor *p,
          int       step)
{
  for (gint64 i = 0; i < N; i++)
    g_assert_true (nk_tensor_set_item (p->grad, &i, grads[step][i], NULL));
}

static void
test_first_steps (void)
{
  for (int kind = NK_OPTIMIZER_SGD; kind <= NK_OPTIMIZER_ADAMW; kind++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NkTensor) p = make_param ();
      const char *name = "w";
      g_autoptr(NkOptim) optim = nk_optim_new (kind, 0.1, &p, &name, 1, &error);
      double expected[STEPS + 1][N];

      g_assert_no_error (error);
      reference (kind, 0.1, expected);
      for (int t = 1; t <= STEPS; t++)
        {
          g_autofree double *got = NULL;

          set_grad (p, t - 1);
          g_assert_true (nk_optim_step (optim, &error));
          g_assert_no_error (error);
          got = nk_tensor_to_doubles (p, NULL);
          for (int i = 0; i < N; i++)
            {
              g_test_message ("%s step %d [%d]: %.9g vs %.9g", nk_optimizer_to_string (kind),
                              t, i, got[i], expected[t][i]);
              g_assert_cmpfloat_with_epsilon (got[i], expected[t][i],
                                              2e-6 * MAX (1.0, fabs (expected[t][i])));
            }
        }
      g_assert_cmpuint (nk_optim_get_step (optim), ==, STEPS);
    }
}

/* Optimizer state lives in the OPTIMIZER bucket: 0, 4 or 8 bytes per parameter. */
static void
test_state_bytes (void)
{
  static const struct { NkOptimizer kind; guint states; } cases[] = {
    { NK_OPTIMIZER_SGD, 0 }, { NK_OPTIMIZER_MOMENTUM, 1 }, { NK_OPTIMIZER_ADAGRAD, 1 },
    { NK_OPTIMIZER_RMSPROP, 1 }, { NK_OPTIMIZER_ADAM, 2 }, { NK_OPTIMIZER_ADAMW, 2 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(NkTensor) p = make_param ();
      const char *name = "w";
      guint64 before, after;
      NkOptim *optim;

      nk_device_get_bytes (nk_device_get_cpu (), NK_BUCKET_OPTIMIZER, &before, NULL);
      optim = nk_optim_new (cases[c].kind, 0.1, &p, &name, 1, NULL);
      nk_device_get_bytes (nk_device_get_cpu (), NK_BUCKET_OPTIMIZER, &after, NULL);
      g_assert_cmpuint (nk_optim_get_n_states (optim), ==, cases[c].states);
      g_assert_cmpuint (after - before, ==, 4 * N * cases[c].states);
      g_assert_cmpfloat (nk_optimizer_state_bytes (cases[c].kind), ==, 4.0 * cases[c].states);
      nk_optim_free (optim);
    }
}

/* Save after two steps, load into a fresh optimizer: the third step agrees bit for bit. */
static void
test_state_dict_round_trip (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("napkin-optim-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "ck.safetensors", NULL);
  g_autoptr(NkTensor) p = make_param ();
  g_autoptr(NkTensor) q = NULL;
  const char *name = "w";
  g_autoptr(NkOptim) a = nk_optim_new (NK_OPTIMIZER_ADAM, 0.1, &p, &name, 1, &error);
  g_autoptr(NkOptim) b = NULL;
  g_autoptr(NkCheckpoint) ck = nk_checkpoint_new ();
  g_autoptr(NkCheckpoint) loaded = NULL;
  g_autoptr(NkRng) rng = nk_rng_new (1);
  g_autofree double *pa = NULL, *pb = NULL;

  for (int t = 0; t < 2; t++)
    {
      set_grad (p, t);
      g_assert_true (nk_optim_step (a, &error));
    }
  nk_checkpoint_set_step (ck, 2);
  nk_checkpoint_set_rng (ck, rng);
  g_assert_true (nk_checkpoint_add_tensor (ck, "w", p, &error));
  g_assert_true (nk_optim_save_state (a, ck, &error));
  g_assert_nonnull (nk_checkpoint_lookup (ck, "optimizer.w.exp_avg"));
  g_assert_nonnull (nk_checkpoint_lookup (ck, "optimizer.w.exp_avg_sq"));
  g_assert_true (nk_checkpoint_save_to_file (ck, path, &error));
  g_assert_no_error (error);

  loaded = nk_checkpoint_load (path, &error);
  g_assert_no_error (error);
  q = nk_checkpoint_get_tensor (loaded, "w", NK_BUCKET_PARAMS, &error);
  g_assert_no_error (error);
  {
    g_autoptr(NkTensor) g = nk_tensor_zeros (NK_DTYPE_F32, NK_SHAPE (N), &error);
    nk_tensor_set_grad (q, g);
  }
  b = nk_optim_new (NK_OPTIMIZER_ADAM, 0.1, &q, &name, 1, &error);
  g_assert_true (nk_optim_load_state (b, loaded, nk_checkpoint_get_step (loaded), &error));
  g_assert_no_error (error);

  set_grad (p, 2);
  set_grad (q, 2);
  g_assert_true (nk_optim_step (a, &error));
  g_assert_true (nk_optim_step (b, &error));
  pa = nk_tensor_to_doubles (p, NULL);
  pb = nk_tensor_to_doubles (q, NULL);
  for (int i = 0; i < N; i++)
    g_assert_cmpfloat (pa[i], ==, pb[i]);

  g_unlink (path);
  g_rmdir (dir);
}

static void
test_bad_lr (void)
{
  static const double bad[] = { 0.0, -0.1, NAN, INFINITY };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(NkTensor) p = make_param ();
      const char *name = "w";
      g_autoptr(NkOptim) optim = nk_optim_new (NK_OPTIMIZER_SGD, bad[i], &p, &name, 1, &error);

      g_assert_null (optim);
      g_assert_error (error, NK_OPTIM_ERROR, NK_OPTIM_ERROR_INVALID);
      g_assert_true (g_str_has_prefix (error->message, "The learning rate must be a positive number, not "));
    }
}

/* The learning-rate rule itself (nk-optimizer.h): a positive finite number,
 * however small; the sentence with its flag and without, the value as %g. */
static void
test_lr_rule (void)
{
  static const struct { double lr; gboolean ok; const char *shown; } cases[] = {
    { 0.0, FALSE, "0" }, { -1.0, FALSE, "-1" }, { NAN, FALSE, "nan" },
    { INFINITY, FALSE, "inf" }, { -INFINITY, FALSE, "-inf" },
    { 1e-300, TRUE, NULL }, { 1.0, TRUE, NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GError) flag_error = NULL;
      g_autofree char *plain = NULL;
      g_autofree char *flagged = NULL;

      g_assert_cmpint (nk_optimizer_check_lr (cases[i].lr, NULL, &error), ==, cases[i].ok);
      g_assert_cmpint (nk_optimizer_check_lr (cases[i].lr, "--lr", &flag_error), ==, cases[i].ok);
      g_assert_cmpint (nk_optimizer_check_lr (cases[i].lr, NULL, NULL), ==, cases[i].ok);
      if (cases[i].ok)
        {
          g_assert_no_error (error);
          g_assert_no_error (flag_error);
          continue;
        }
      g_assert_error (error, NK_OPTIMIZER_ERROR, NK_OPTIMIZER_ERROR_LR);
      g_assert_error (flag_error, NK_OPTIMIZER_ERROR, NK_OPTIMIZER_ERROR_LR);
      plain = g_strdup_printf ("The learning rate must be a positive number, not %s.", cases[i].shown);
      flagged = g_strdup_printf ("The learning rate --lr must be a positive number, not %s.", cases[i].shown);
      g_assert_cmpstr (error->message, ==, plain);
      g_assert_cmpstr (flag_error->message, ==, flagged);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/engine/optim/first-steps", test_first_steps);
  g_test_add_func ("/engine/optim/state-bytes", test_state_bytes);
  g_test_add_func ("/engine/optim/state-dict-round-trip", test_state_dict_round_trip);
  g_test_add_func ("/engine/optim/bad-lr", test_bad_lr);
  g_test_add_func ("/engine/optim/lr-rule", test_lr_rule);

  return g_test_run ();
}
