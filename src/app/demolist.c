/* demolist.c: the demos named on the command line, with folders expanded to their demos. */
#include "app.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "../common/file.h"
#include "../demo/demo_unpack.h"

#define DEMOLIST_MAX 100000 /* demos in one list: more is a mistake, not a playlist */

typedef struct list {
    char **v;
    int n, cap;
} list;

static int push(list *l, const char *s)
{
    if (l->n >= DEMOLIST_MAX)
        return 1; /* the rest are left out */
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 16;
        char **v = realloc(l->v, (size_t)cap * sizeof *v);
        if (!v)
            return 0;
        l->v = v;
        l->cap = cap;
    }
    return (l->v[l->n] = strdup(s)) ? (l->n++, 1) : 0;
}

/* A file a folder's listing offers as a demo: a demo's extension, or one with .gz after it,
 * or a .zip (which opens when it holds one demo). */
static int listed(const char *name)
{
    size_t n = strlen(name);
    if (n > 4 && strcasecmp(name + n - 4, ".zip") == 0)
        return 1;
    if (n > 3 && strcasecmp(name + n - 3, ".gz") == 0) {
        char base[1024];
        if (n - 3 >= sizeof base)
            return 0;
        memcpy(base, name, n - 3);
        base[n - 3] = 0;
        return demo_is_demo_name(base);
    }
    return demo_is_demo_name(name);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The demos directly in folder dir (not its subfolders), sorted by name, onto l. */
static int add_folder(list *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) { /* nothing from it, said with why (a review: only "no demo" was said) */
        int why = errno;
        fputs("qdemo: ", stderr);
        app_put_text(stderr, dir);
        fprintf(stderr, ": cannot read the folder: %s\n", strerror(why));
        return 1;
    }
    list found = {0};
    int ok = 1;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        if (e->d_name[0] == '.' || !listed(e->d_name))
            continue;
        char *path = qd_path_join(dir, e->d_name);
        struct stat st;
        if (!path)
            ok = 0;
        else if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            ok = push(&found, path);
        free(path);
    }
    closedir(d);
    if (found.n)
        qsort(found.v, (size_t)found.n, sizeof *found.v, by_name);
    for (int i = 0; ok && i < found.n; i++)
        ok = push(l, found.v[i]);
    app_free_demos(found.v, found.n);
    return ok;
}

int app_expand_demos(const char *const *args, int nargs, char ***out)
{
    list l = {0};
    int ok = 1;
    for (int i = 0; ok && i < nargs; i++) {
        struct stat st;
        if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode))
            ok = add_folder(&l, args[i]);
        else
            ok = push(&l, args[i]); /* a file, or a name demo_open will report on */
    }
    if (!ok) {
        app_free_demos(l.v, l.n);
        *out = NULL;
        return -1;
    }
    *out = l.v;
    return l.n;
}

void app_free_demos(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}
