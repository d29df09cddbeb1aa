/* test_fuzz_corpus.c: every fuzz target's replay program runs its kept corpus and crashers
 * (tests/fuzz/corpus/<name>/, tests/crashers/<name>/) without crashing. */
#include <dirent.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../test.h"

TEST(fuzz_corpora_replay_cleanly)
{
    const char *q = getenv("QDEMO");
    char bindir[512];
    snprintf(bindir, sizeof bindir, "%s", q && *q ? q : "build/qdemo");
    char *slash = strrchr(bindir, '/');
    if (slash)
        *slash = 0;
    DIR *d = opendir("tests/fuzz");
    if (!d)
        SKIP("run from the project root");
    int targets = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, "fuzz_", 5) != 0 || n < 8 || strcmp(e->d_name + n - 2, ".c"))
            continue;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(n - 7), e->d_name + 5);
        char bin[1024], cmd[4096];
        snprintf(bin, sizeof bin, "%s/fuzz/replay_%s", bindir, name);
        if (access(bin, X_OK) != 0) {
            closedir(d);
            CHECK_MSG(0, "%.400s is not built (make test builds it)", bin);
        }
        snprintf(cmd, sizeof cmd, "%s tests/fuzz/corpus/%s tests/crashers/%s > /dev/null", bin,
                 name, name);
        int st = system(cmd);
        if (!(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
            closedir(d);
            CHECK_MSG(0, "replay_%s failed on its corpus (status %d)", name, st);
        }
        targets++;
    }
    closedir(d);
    CHECK(targets >= 2);
}
