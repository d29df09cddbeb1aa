/* test_rd.c: the bounded reader (src/common/rd.h) on bytes built here: what a string read
 * keeps, consumes and reports at its cap, at the end of the data and after an error. */
#include <string.h>

#include "../../src/common/rd.h"
#include "../test.h"

TEST(rd_str_keeps_what_fits_and_consumes_the_rest)
{
    static const uint8_t b[] = {'a', 'b', 'c', 'd', 'e', 0, 'x', 0};
    rd_t r = rd_make(b, sizeof b);
    char s[4];
    /* cap 4: three characters and the NUL kept; "de" and the NUL consumed */
    CHECK_EQ(rd_str(&r, s, sizeof s), 3);
    CHECK_STR(s, "abc");
    CHECK_EQ(r.pos, 6);
    CHECK_EQ(rd_str(&r, s, sizeof s), 1);
    CHECK_STR(s, "x");
    CHECK_EQ(r.pos, 8);
    CHECK(!r.err);
    /* nothing left: an empty string and the error */
    CHECK_EQ(rd_str(&r, s, sizeof s), 0);
    CHECK_STR(s, "");
    CHECK(r.err);
}

TEST(rd_str_without_its_nul_keeps_the_characters_and_sets_the_error)
{
    static const uint8_t b[] = {0, 'q', 'w'};
    rd_t r = rd_make(b, sizeof b);
    char s[8];
    CHECK_EQ(rd_str(&r, s, sizeof s), 0); /* the empty string at 0 */
    CHECK_EQ(r.pos, 1);
    CHECK_EQ(rd_str(&r, s, sizeof s), 2); /* "qw" runs off the end */
    CHECK_STR(s, "qw");
    CHECK(r.err);
    CHECK_EQ(r.pos, 3);
    /* a reader already in error reads nothing, though bytes remain before its end */
    rd_t e = rd_make(b + 1, 2);
    e.err = 1;
    CHECK_EQ(rd_str(&e, s, sizeof s), 0);
    CHECK_STR(s, "");
    CHECK_EQ(e.pos, 2);
    /* cap 1: only the NUL */
    rd_t c = rd_make("hi", 3);
    CHECK_EQ(rd_str(&c, s, 1), 0);
    CHECK_STR(s, "");
    CHECK_EQ(c.pos, 3);
    CHECK(!c.err);
}

/* rd_need answers for a reader in error by its length check alone, so an error must keep
 * the reader parked at its end: a seek back after it stays there and reads nothing, and a
 * read of nothing still fails. */
TEST(rd_error_stays_parked_at_the_end_through_a_seek)
{
    static const uint8_t b[4] = {1, 2, 3, 4};
    rd_t r = rd_make(b, sizeof b);
    CHECK_EQ(rd_u16(&r), 0x0201);
    CHECK_EQ(rd_u32(&r), 0); /* 2 bytes left: the error */
    CHECK(r.err);
    CHECK_EQ(r.pos, 4);
    rd_seek(&r, 0);
    CHECK(r.err);
    CHECK_EQ(r.pos, 4);
    CHECK_EQ(rd_u8(&r), 0); /* the byte at 0 is 1: not read */
    CHECK(rd_bytes(&r, 0) == NULL);
    /* a reader without error seeks and reads as before */
    rd_t s = rd_make(b, sizeof b);
    rd_seek(&s, 3);
    CHECK_EQ(rd_u8(&s), 4);
    CHECK(!s.err);
    rd_seek(&s, 5);
    CHECK(s.err);
    CHECK_EQ(s.pos, 4);
}
