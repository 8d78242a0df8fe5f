/* A shared library without the entry symbol. */
#include <opnn/opnn.h>

OPNN_API int tp_nosym_something(void);
OPNN_API int tp_nosym_something(void)
{
    return 42;
}
