/// @file export.h
/// Symbol visibility for the opnn shared library.
#ifndef OPNN_EXPORT_H
#define OPNN_EXPORT_H

#if defined(OPNN_STATIC)
#define OPNN_API
#elif defined(_WIN32)
#if defined(OPNN_BUILDING)
#define OPNN_API __declspec(dllexport)
#else
#define OPNN_API __declspec(dllimport)
#endif
#else
#define OPNN_API __attribute__((visibility("default")))
#endif

#endif /* OPNN_EXPORT_H */
