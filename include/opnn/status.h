/// @file status.h
/// Status codes returned by every opnn call that can fail.
#ifndef OPNN_STATUS_H
#define OPNN_STATUS_H

#include "opnn/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The status codes, written once: X(name, value, description).
#define OP_STATUS_MAP(X)                                                                           \
    X(OP_OK, 0, "ok")                                                                              \
    X(OP_ERR_INVALID_ARGUMENT, 1, "invalid argument")                                              \
    X(OP_ERR_NOT_FOUND, 2, "not found")                                                            \
    X(OP_ERR_ALREADY_EXISTS, 3, "already exists")                                                  \
    X(OP_ERR_UNSUPPORTED, 4, "unsupported")                                                        \
    X(OP_ERR_OUT_OF_MEMORY, 5, "out of memory")                                                    \
    X(OP_ERR_DEVICE, 6, "device error")                                                            \
    X(OP_ERR_PLUGIN, 7, "plugin error")                                                            \
    X(OP_ERR_INTERNAL, 8, "internal error")

/// Result of an opnn call. OP_OK is 0; every other value is a failure whose details are in the
/// context's message (op_context_error).
typedef enum op_status {
#define OP_STATUS_ENUM_(name, value, text) name = value,
    OP_STATUS_MAP(OP_STATUS_ENUM_)
#undef OP_STATUS_ENUM_
} op_status;

/// A static, human-readable name for a status ("invalid argument"); never NULL.
/// @param s any value, also ones outside the enum ("unknown status").
OPNN_API const char *op_status_str(op_status s);

#ifdef __cplusplus
}
#endif

#endif /* OPNN_STATUS_H */
