/* A well-formed test plugin: TestScale and TestScaleB. */
#include "tp_common.h"

static op_status tp_good_register(op_registrar *r)
{
    op_status st = tp_register_scale(r, "TestScale");
    return st == OP_OK ? tp_register_scale(r, "TestScaleB") : st;
}

OP_PLUGIN_DEFINE("tp_good", tp_good_register)
