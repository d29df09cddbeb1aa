/* text.h: the small text helpers every id format needs: info strings, tokens, numbers. */
#ifndef QD_TEXT_H
#define QD_TEXT_H

#include <stddef.h>

/* qd_info_get's answers (all but ABSENT are true, so `if (qd_info_get(...))` works). */
#define QD_INFO_ABSENT 0
#define QD_INFO_FOUND 1
#define QD_INFO_CUT 2   /* found, but longer than cap - 1 bytes: out holds its start */

/* The value of key in an info string "\key\value\key\value" (id's Info_ValueForKey; the
 * leading backslash is optional, a missing last value is empty). Keys compare exactly
 * (case matters, as in the engines). out (cap >= 1) always ends with a NUL: the value, or
 * "" when absent. Returns QD_INFO_ABSENT, QD_INFO_FOUND or QD_INFO_CUT. */
int qd_info_get(const char *info, const char *key, char *out, size_t cap);

/* A decimal number: leading white space, an optional sign, digits; stops at the first
 * other character ("  42x" is 42, "" is 0). Saturates at +-QD_ATOI_MAX instead of
 * overflowing, so any text gives a defined value. */
#define QD_ATOI_MAX 1000000000
int qd_atoi(const char *s);

/* a then b into out (cap >= 1, always NUL-terminated, cut to cap - 1 bytes): 1 when they
 * fit whole. snprintf(out, cap, "%s%s", a, b) without the format parsing (a fifth of
 * `info`'s instructions on a small demo went to snprintf joining names). */
int qd_concat(char *out, size_t cap, const char *a, const char *b);

/* qd_token flags (in) and *got bits (out). */
#define QD_TOK_BRACES 1u  /* in: '{' and '}' are tokens of their own (entity lumps) */
#define QD_TOK_QUOTED 1u  /* out: the token was a "quoted" string (may be empty) */
#define QD_TOK_CUT 2u     /* out: the token was longer than cap - 1 bytes and was cut */

/* The next token of the text at p into tok (cap >= 1, always NUL-terminated): white space
 * (bytes <= ' ') separates, "//" comments run to the end of the line, a "quoted" string is
 * one token without its quotes (an unclosed one runs to the end). Without QD_TOK_BRACES a
 * bare token runs to the next white space (Quake III's Cmd_TokenizeString); with it, also
 * to '{', '}' or '"' (entity lump text). Returns the position after the token, or NULL
 * when only white space and comments are left (tok ""). got (may be NULL) receives
 * QD_TOK_* bits. */
const char *qd_token(const char *p, char *tok, size_t cap, unsigned flags, unsigned *got);

#endif
