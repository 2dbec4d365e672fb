/* nk-cuda-kernels-emu.cpp: the CUDA kernels, compiled as C++ for the host emulation
 *
 * Copyright 2026 The Napkin developers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The very source nvcc compiles for the GPU module; only the headers differ (this
 * folder's include/ stands in for the CUDA toolkit's).
 */
#include "../nk-cuda-kernels.cu"
