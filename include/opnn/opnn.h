/// @file opnn.h
/// opnn: an operator-registry runtime with CUDA and CPU reduce kernels. Include this header.
#ifndef OPNN_OPNN_H
#define OPNN_OPNN_H

#include "opnn/context.h"
#include "opnn/export.h"
#include "opnn/op.h"
#include "opnn/plugin.h"
#include "opnn/reduce.h"
#include "opnn/status.h"

#define OPNN_VERSION_MAJOR 0
#define OPNN_VERSION_MINOR 1
#define OPNN_VERSION_PATCH 0

#endif /* OPNN_OPNN_H */
