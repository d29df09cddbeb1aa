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
    char v[16];
    /* QuakeWorld userinfo as svc_updateuserinfo sends it (leading backslash) */
    const char *qw = "\\bottomcolor\\4\\topcolor\\13\\team\\red\\name\\eQu";
    CHECK_EQ(qd_info_get(qw, "topcolor", v, sizeof v), QD_INFO_FOUND);
    CHECK_STR(v, "13");
    CHECK_EQ(qd_info_get(qw, "name", v, sizeof v), QD_INFO_FOUND);
    CHECK_STR(v, "eQu");
    CHECK_EQ(qd_info_get(qw, "bottomcolor", v, sizeof v), QD_INFO_FOUND);
    CHECK_STR(v, "4");
    /* a key that is only a prefix of another, or a value equal to the key, is no match */
    CHECK_EQ(qd_info_get(qw, "top", v, sizeof v), QD_INFO_ABSENT);
    CHECK_STR(v, "");
    CHECK_EQ(qd_info_get(qw, "red", v, sizeof v), QD_INFO_ABSENT);
    CHECK_EQ(qd_info_get(qw, "Name", v, sizeof v), QD_INFO_ABSENT);
    /* Quake III configstring style: no leading backslash */
    const char *q3 = "n\\sausage\\t\\0\\model\\razor/default";
    CHECK_EQ(qd_info_get(q3, "n", v, sizeof v), QD_INFO_FOUND);
    CHECK_STR(v, "sausage");
    CHECK_EQ(qd_info_get(q3, "t", v, sizeof v), QD_INFO_FOUND);
    CHECK_STR(v, "0");
    /* "razor/default" is 13 bytes: a 8-byte buffer holds the first 7 */
    char small[8];
    CHECK_EQ(qd_info_get(q3, "model", small, sizeof small), QD_INFO_CUT);
    CHECK_STR(small, "razor/d");
    /* empty values, a key without a value at the end, empty strings */
    CHECK_EQ(qd_info_get("\\a\\\\b\\2", "a", v, sizeof v), QD_INFO_FOUND);
    CHECK_STR(v, "");
    CHECK_EQ(qd_info_get("\\a\\\\b\\2", "b", v, sizeof v), QD_INFO_FOUND);
    CHECK_STR(v, "2");
    CHECK_EQ(qd_info_get("\\a\\1\\last", "last", v, sizeof v), QD_INFO_FOUND);
    CHECK_STR(v, "");
    CHECK_EQ(qd_info_get("", "a", v, sizeof v), QD_INFO_ABSENT);
    CHECK_EQ(qd_info_get("\\", "a", v, sizeof v), QD_INFO_ABSENT);
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
