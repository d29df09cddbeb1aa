/* main.c: runs every registered test (or those whose name contains argv[1]) and prints
 * "N passed, N failed, N skipped". */
#include "test.h"

#include <stb_image.h> /* (the decoder is compiled once, in tests/fid/stbi.c) */
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_TESTS 1024

typedef struct test_case {
    const char *file, *name;
    test_fn fn;
} test_case;
static test_case tests[MAX_TESTS];
static int num_tests;
static int cur_failed, cur_skipped;
static char skip_why[256];

void test_register(const char *file, const char *name, test_fn fn)
{
    if (num_tests < MAX_TESTS) {
        tests[num_tests].file = file;
        tests[num_tests].name = name;
        tests[num_tests].fn = fn;
        num_tests++;
    }
}

void test_fail_at(const char *file, int line, const char *what)
{
    cur_failed = 1;
    fprintf(stderr, "    %s:%d: check failed: %s\n", file, line, what);
}

void test_skip(const char *why)
{
    cur_skipped = 1;
    snprintf(skip_why, sizeof skip_why, "%s", why);
}

int test_failed(void) { return cur_failed; }

const char *test_realdata(void)
{
    const char *e = getenv("QDEMO_REALDATA");
    return e && *e ? e : "../shared/realdata";
}

const char *test_realfile(char *buf, size_t cap, const char *rel)
{
    snprintf(buf, cap, "%s/%s", test_realdata(), rel);
    return access(buf, R_OK) == 0 ? buf : NULL;
}

unsigned char *test_read_file(const char *path, size_t *len)
{
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *b = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        b = malloc(n > 0 ? (size_t)n : 1);
        if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
            free(b);
            b = NULL;
        }
    }
    fclose(f);
    if (b)
        *len = (size_t)n;
    return b;
}

int test_same_pixels(const char *a, const char *b)
{
    int wa, ha, na, wb, hb, nb;
    unsigned char *pa = stbi_load(a, &wa, &ha, &na, 3), *pb = stbi_load(b, &wb, &hb, &nb, 3);
    int r = !pa || !pb ? -1
            : wa == wb && ha == hb && memcmp(pa, pb, (size_t)wa * (size_t)ha * 3) == 0;
    stbi_image_free(pa);
    stbi_image_free(pb);
    return r;
}

const char *test_tmpdir(void)
{
    static char dir[256];
    if (!dir[0]) {
        const char *e = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/qdemo-test-%d", e && *e ? e : "/tmp", (int)getpid());
        mkdir(dir, 0777);
    }
    return dir;
}

static int cmp_test(const void *a, const void *b)
{
    const test_case *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c ? c : strcmp(x->name, y->name);
}

const char *test_scratch(const char *name)
{
    static char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s-%d", test_tmpdir(), name, (int)getpid());
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0 || mkdir(dir, 0755) != 0)
        return NULL;
    return dir;
}

int test_capture(char *out, size_t cap, const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int main(int argc, char **argv)
{
    const char *filter = argc > 1 ? argv[1] : NULL;
    int passed = 0, failed = 0, skipped = 0;
    /* The tests name the game data they use: no install found on this machine joins in
     * (qdemo run by a test inherits this too); test_gamedirs.c turns it off where it tests
     * the search itself. */
    setenv("QDEMO_NO_AUTODETECT", "1", 1);
    qsort(tests, (size_t)num_tests, sizeof tests[0], cmp_test);
    for (int i = 0; i < num_tests; i++) {
        if (filter && !strstr(tests[i].name, filter) && !strstr(tests[i].file, filter))
            continue;
        cur_failed = cur_skipped = 0;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        tests[i].fn();
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
        if (cur_failed) {
            failed++;
            printf("FAIL %s (%s)\n", tests[i].name, tests[i].file);
        } else if (cur_skipped) {
            skipped++;
            printf("skip %s: %s\n", tests[i].name, skip_why);
        } else {
            passed++;
            printf("ok   %s (%.0f ms)\n", tests[i].name, ms);
        }
        fflush(stdout);
    }
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
