/* test_text.c: the shared text helpers (src/common/text.h), against hand-worked answers. */
#include "../../src/common/text.h"
#include "../test.h"

TEST(text_atoi_bounds)
{
    /* the cases section 6 of the issue 10 plan pins */
    CHECK_EQ(qd_atoi("100001"), 100001);
    CHECK_EQ(qd_atoi("-7"), -7);
    CHECK_EQ(qd_atoi("  42x"), 42);
    CHECK_EQ(qd_atoi(""), 0);
    CHECK_EQ(qd_atoi("99999999999"), 1000000000);
    CHECK_EQ(qd_atoi("-99999999999"), -1000000000);
    /* more: signs, white space, stopping */
    CHECK_EQ(qd_atoi("+15"), 15);
    CHECK_EQ(qd_atoi("\t\n 8"), 8);
    CHECK_EQ(qd_atoi("-"), 0);
    CHECK_EQ(qd_atoi("x12"), 0);
    CHECK_EQ(qd_atoi("1 2"), 1);
    CHECK_EQ(qd_atoi("1000000000"), 1000000000);
    CHECK_EQ(qd_atoi("999999999"), 999999999);
    CHECK_EQ(qd_atoi("1000000001"), 1000000000);
    CHECK_EQ(qd_atoi("000000000000000000000000000000000000000042"), 42);
}

TEST(text_info_get)
{
    /* QuakeWorld userinfo as svc_updateuserinfo sends it (leading backslash), a Quake III
     * configstring (none), and edge cases; answers worked out by reading the strings */
    static const char qw[] = "\\bottomcolor\\4\\topcolor\\13\\team\\red\\name\\eQu";
    static const char q3[] = "n\\sausage\\t\\0\\model\\razor/default";
    static const struct {
        const char *info, *key;
        size_t cap;
        int ret;
        const char *value;
    } cases[] = {
        {qw, "topcolor", 16, QD_INFO_FOUND, "13"},
        {qw, "name", 16, QD_INFO_FOUND, "eQu"},
        {qw, "bottomcolor", 16, QD_INFO_FOUND, "4"},
        {qw, "top", 16, QD_INFO_ABSENT, ""},  /* a prefix of a key is no match */
        {qw, "red", 16, QD_INFO_ABSENT, ""},  /* nor is a value */
        {qw, "Name", 16, QD_INFO_ABSENT, ""}, /* keys compare exactly */
        {q3, "n", 16, QD_INFO_FOUND, "sausage"},
        {q3, "t", 16, QD_INFO_FOUND, "0"},
        {q3, "model", 8, QD_INFO_CUT, "razor/d"}, /* 13 bytes into 8: the first 7 */
        {q3, "model", 14, QD_INFO_FOUND, "razor/default"},
        {"\\a\\\\b\\2", "a", 16, QD_INFO_FOUND, ""}, /* an empty value */
        {"\\a\\\\b\\2", "b", 16, QD_INFO_FOUND, "2"},
        {"\\a\\1\\last", "last", 16, QD_INFO_FOUND, ""}, /* a key without a value */
        {"", "a", 16, QD_INFO_ABSENT, ""},
        {"\\", "a", 16, QD_INFO_ABSENT, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char v[16];
        memset(v, 'z', sizeof v);
        int r = qd_info_get(cases[i].info, cases[i].key, v, cases[i].cap);
        CHECK_MSG(r == cases[i].ret && strcmp(v, cases[i].value) == 0,
                  "case %zu (%s): %d \"%s\", want %d \"%s\"", i, cases[i].key, r, v,
                  cases[i].ret, cases[i].value);
    }
}

TEST(text_token_commands)
{
    /* a Quake III server command: cs 544 "n\sausage" // comment */
    const char *p = "cs 544 \"n\\sausage\\t\\0\" // the rest\n  next";
    char tok[32];
    unsigned got = 9;
    p = qd_token(p, tok, sizeof tok, 0, &got);
    CHECK(p != NULL);
    CHECK_STR(tok, "cs");
    CHECK_EQ(got, 0);
    p = qd_token(p, tok, sizeof tok, 0, &got);
    CHECK_STR(tok, "544");
    p = qd_token(p, tok, sizeof tok, 0, &got);
    CHECK_STR(tok, "n\\sausage\\t\\0");
    CHECK_EQ(got, QD_TOK_QUOTED);
    /* the comment runs to the end of its line only */
    p = qd_token(p, tok, sizeof tok, 0, &got);
    CHECK_STR(tok, "next");
    CHECK(qd_token(p, tok, sizeof tok, 0, &got) == NULL);
    CHECK_STR(tok, "");
    /* an empty quoted string is a token; an unclosed one runs to the end */
    p = qd_token("\"\" \"open end", tok, sizeof tok, 0, &got);
    CHECK(p != NULL);
    CHECK_STR(tok, "");
    CHECK_EQ(got, QD_TOK_QUOTED);
    p = qd_token(p, tok, sizeof tok, 0, &got);
    CHECK_STR(tok, "open end");
    CHECK_EQ(*p, 0);
    /* without QD_TOK_BRACES, braces and quotes inside a bare word belong to it */
    p = qd_token("a{b}c\"d e", tok, sizeof tok, 0, NULL);
    CHECK_STR(tok, "a{b}c\"d");
    /* nothing but white space and comments */
    CHECK(qd_token("   // only\n\t// comments", tok, sizeof tok, 0, NULL) == NULL);
    CHECK(qd_token("", tok, sizeof tok, 0, NULL) == NULL);
}

TEST(text_token_entities)
{
    /* entity lump text: braces are tokens and end bare words */
    const char *p = "{\n\"classname\" \"worldspawn\"\nwad x{y}\"z\"\n}";
    static const char *const want[] = {"{", "classname", "worldspawn", "wad", "x", "{", "y",
                                       "}", "z", "}"};
    static const unsigned quoted[] = {0, 1, 1, 0, 0, 0, 0, 0, 1, 0};
    char tok[32];
    unsigned got;
    for (int i = 0; i < 10; i++) {
        p = qd_token(p, tok, sizeof tok, QD_TOK_BRACES, &got);
        CHECK_MSG(p != NULL, "token %d missing", i);
        CHECK_MSG(strcmp(tok, want[i]) == 0, "token %d: \"%s\", want \"%s\"", i, tok, want[i]);
        CHECK_EQ(got & QD_TOK_QUOTED, quoted[i]);
    }
    CHECK(qd_token(p, tok, sizeof tok, QD_TOK_BRACES, &got) == NULL);
}

TEST(text_token_cut)
{
    /* "abcdefgh" into 4 bytes: "abc", flagged, and the rest of the word is skipped */
    char tok[4];
    unsigned got = 0;
    const char *p = qd_token("abcdefgh next", tok, sizeof tok, 0, &got);
    CHECK_STR(tok, "abc");
    CHECK_EQ(got, QD_TOK_CUT);
    p = qd_token(p, tok, sizeof tok, 0, &got);
    CHECK_STR(tok, "nex");
    p = qd_token("\"quoted long\"", tok, sizeof tok, 0, &got);
    CHECK_STR(tok, "quo");
    CHECK_EQ(got, QD_TOK_QUOTED | QD_TOK_CUT);
    CHECK_EQ(*p, 0);
    /* exactly cap - 1 bytes is not a cut */
    qd_token("abc", tok, sizeof tok, 0, &got);
    CHECK_STR(tok, "abc");
    CHECK_EQ(got, 0);
}

TEST(text_concat)
{
    char out[8];
    CHECK_EQ(qd_concat(out, sizeof out, "sound/", "a"), 1); /* 7 bytes: fits with its NUL */
    CHECK_STR(out, "sound/a");
    CHECK_EQ(qd_concat(out, sizeof out, "sound/", "ab"), 0); /* 8 bytes: cut to 7 */
    CHECK_STR(out, "sound/a");
    CHECK_EQ(qd_concat(out, sizeof out, "longer than eight", "x"), 0); /* a alone too long */
    CHECK_STR(out, "longer ");
    CHECK_EQ(qd_concat(out, sizeof out, "", ""), 1);
    CHECK_STR(out, "");
    CHECK_EQ(qd_concat(out, 1, "a", "b"), 0); /* room for the NUL only */
    CHECK_STR(out, "");
}
