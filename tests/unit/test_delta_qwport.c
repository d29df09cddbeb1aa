/* test_delta_qwport.c: the delta engine's ladder in QuakeWorld's shape (qw.c): a seed from
 * the 16-bit word, U_MOREBITS's byte ORed into its low bits, FTE bytes above 16. */
#include <string.h>

#include "../../src/demo/delta.h"
#include "../test.h"

/* QuakeWorld's numbers [ezQuake protocol.h]: U_MOREBITS 1<<15 (in the word), U_EVENMORE
 * 1<<7 (in the MOREBITS byte), U_YETMORE 1<<7 of the EVENMORE byte (bit 23 once shifted
 * by 16). */
static const dd_ladder qw_ladder = {
    0, 3, {{1u << 15, 0, 0}, {1u << 7, 16, DD_OPT_FTE}, {1u << 23, 24, 0}}};

TEST(delta_qw_ladder)
{
    static const uint8_t bytes[] = {0x84, 0x88, 0x04};
    rd_t r = rd_make(bytes, sizeof bytes);
    dd_reader rd = {&r, NULL, DD_OPT_FTE};
    /* seed 0xa000 (U_MOREBITS, U_FRAME); 0x84 in bits 0..7 (EVENMORE, U_MODEL); 0x88 in
     * 16..23 (YETMORE, MODELDBL); 0x04 in 24..31: 0x0488a084 */
    CHECK_EQ(dd_read_mask(&rd, &qw_ladder, 0xa000u), 0x0488a084u);
    CHECK_EQ(r.pos, 3);
    CHECK(!r.err);

    /* without an FTE extension U_EVENMORE announces nothing: one byte read */
    r = rd_make(bytes, sizeof bytes);
    rd.opts = 0;
    CHECK_EQ(dd_read_mask(&rd, &qw_ladder, 0xa000u), 0xa084u);
    CHECK_EQ(r.pos, 1);

    /* no U_MOREBITS in the word: nothing read, the seed as it is */
    r = rd_make(bytes, sizeof bytes);
    rd.opts = DD_OPT_FTE;
    CHECK_EQ(dd_read_mask(&rd, &qw_ladder, 0x2000u), 0x2000u);
    CHECK_EQ(r.pos, 0);

    /* cut after the MOREBITS byte: the missing bytes are 0, the error is left set */
    r = rd_make(bytes, 2);
    CHECK_EQ(dd_read_mask(&rd, &qw_ladder, 0xa000u), 0x0088a084u);
    CHECK(r.err);
}
