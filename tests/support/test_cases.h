/* cmocka helpers shared by the test programs: tables of cases run one test each, and message
 * checks. Include after <cmocka.h> and support/test_support.h. */
#ifndef OPNN_TEST_CASES_H
#define OPNN_TEST_CASES_H

#include <stdbool.h>
#include <stddef.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Adds one cmocka test per row of a static const case table, named "<function>/<row name>". */
#define ADD_CASES(tests, n, fn, table)                                                             \
    for (size_t i_ = 0; i_ < N_OF(table); i_++) {                                                  \
        struct CMUnitTest t_ = cmocka_unit_test_prestate(fn, (void *)&(table)[i_]);                \
        t_.name = ts_case_name(#fn, (table)[i_].name);                                             \
        (tests)[(n)++] = t_;                                                                       \
    }

#define ADD_TEST(tests, n, fn) ((tests)[(n)++] = (struct CMUnitTest)cmocka_unit_test(fn))

/* Fails the test unless msg contains one of the '|'-separated alternatives of want. */
#define ASSERT_MSG_HAS(msg, want)                                                                  \
    do {                                                                                           \
        if (!ts_msg_has((msg), (want)))                                                            \
            fail_msg("message \"%s\" does not contain %s", (msg), (want));                         \
    } while (0)

#endif /* OPNN_TEST_CASES_H */
