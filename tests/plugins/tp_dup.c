/* Registers TestScale too: loading it beside tp_good must fail with ALREADY_EXISTS. */
#include "tp_common.h"

static op_status tp_dup_register(op_registrar *r)
{
    return tp_register_scale(r, "TestScale");
}

OP_PLUGIN_DEFINE("tp_dup", tp_dup_register)
