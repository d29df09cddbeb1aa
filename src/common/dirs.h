/* dirs.h: the directions id's games send as one byte. */
#ifndef QD_DIRS_H
#define QD_DIRS_H

#define QD_NUM_DIRS 162
extern const float qd_bytedirs[QD_NUM_DIRS][3];

/* q_math.c ByteToDir: direction b (0..161) into dir and 1; anything else the zero vector
 * and 0. */
int qd_byte_to_dir(int b, float dir[3]);

#endif
