/* Built "for another ABI version": its entry reports version OP_ABI_VERSION + 41. */
#include "tp_common.h"

static op_status tp_abi_register(op_registrar *r)
{
    return tp_register_scale(r, "TestAbiNeverRegistered");
}

OPNN_API const op_plugin_info *opnn_plugin_entry(void);
OPNN_API const op_plugin_info *opnn_plugin_entry(void)
{
    static const op_plugin_info info = {OP_ABI_VERSION + 41u, "tp_abi", tp_abi_register};
    return &info;
}
