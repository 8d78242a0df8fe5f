/* Its first op is new, its second clashes with a built-in: the load must fail and leave the
 * first op unregistered too. */
#include "tp_common.h"

static op_status tp_clash_register(op_registrar *r)
{
    op_status st = tp_register_scale(r, "TestClashFirst");
    return st == OP_OK ? tp_register_scale(r, "ReduceSum") : st;
}

OP_PLUGIN_DEFINE("tp_clash", tp_clash_register)
