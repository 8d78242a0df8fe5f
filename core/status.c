/* Status names, from the one list in opnn/status.h. */
#include "opnn/status.h"

const char *op_status_str(op_status s)
{
    switch (s) {
#define OPNN_STATUS_CASE_(name, value, text)                                                       \
    case name:                                                                                     \
        return text;
        OP_STATUS_MAP(OPNN_STATUS_CASE_)
#undef OPNN_STATUS_CASE_
    }
    return "unknown status";
}
