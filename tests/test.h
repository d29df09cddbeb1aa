/* test.h: qdemo's small test harness. A test is a function registered with TEST(name); it
 * checks with CHECK/CHECK_EQ and may call SKIP("why") when its real data is missing. */
#ifndef QD_TEST_H
#define QD_TEST_H

#include <stdio.h>
#include <string.h>

typedef void (*test_fn)(void);
void test_register(const char *file, const char *name, test_fn fn);
void test_fail_at(const char *file, int line, const char *what);
void test_skip(const char *why);
/* The real-data folder: $QDEMO_REALDATA or ../shared/realdata. */
const char *test_realdata(void);
/* Path of a real-data file into buf; returns NULL (and the test should SKIP) if absent. */
const char *test_realfile(char *buf, size_t cap, const char *rel);
/* A whole file in a malloc'd buffer (caller frees), or NULL; *len gets its size. */
unsigned char *test_read_file(const char *path, size_t *len);
/* Run the shell command made from fmt, its standard output into out (at most cap - 1
 * bytes, then a 0); returns its exit status (128 when it did not exit, -1 when it could
 * not start). */
int test_capture(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Compare the pictures of two image files by their decoded RGB pixels (not their bytes:
 * `render` notes its options in each PNG): 1 the same size and pixels, 0 not, -1 when
 * either cannot be decoded. */
int test_same_pixels(const char *a, const char *b);
/* A new, empty folder "<test_tmpdir>/<name>-<pid>" (emptied if it was there); its path in a
 * static buffer until the next call, or NULL when it cannot be made. */
const char *test_scratch(const char *name);
/* A scratch folder for this test run (created on demand). */
const char *test_tmpdir(void);
/* 1 once the running test has failed (tests may stop early). */
int test_failed(void);

#define TEST(name)                                                                         \
    static void name(void);                                                                \
    __attribute__((constructor)) static void reg_##name(void)                              \
    {                                                                                      \
        test_register(__FILE__, #name, name);                                              \
    }                                                                                      \
    static void name(void)

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            test_fail_at(__FILE__, __LINE__, #cond);                                       \
            return;                                                                        \
        }                                                                                  \
    } while (0)

#define CHECK_MSG(cond, ...)                                                               \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            char test_buf_[512];                                                           \
            snprintf(test_buf_, sizeof test_buf_, __VA_ARGS__);                            \
            test_fail_at(__FILE__, __LINE__, test_buf_);                                   \
            return;                                                                        \
        }                                                                                  \
    } while (0)

#define CHECK_EQ(a, b)                                                                     \
    CHECK_MSG((long long)(a) == (long long)(b), "%s == %s (%lld vs %lld)", #a, #b,         \
              (long long)(a), (long long)(b))

#define CHECK_STR(a, b)                                                                    \
    CHECK_MSG(strcmp((a), (b)) == 0, "%s == %s (\"%s\" vs \"%s\")", #a, #b, (a), (b))

#define SKIP(why)                                                                          \
    do {                                                                                   \
        test_skip(why);                                                                    \
        return;                                                                            \
    } while (0)

#endif
