/* dirs.h: the directions id's games send as one byte. */
#ifndef QD_DIRS_H
#define QD_DIRS_H

#define QD_NUM_DIRS 162
extern const float qd_bytedirs[QD_NUM_DIRS][3];

/* q_math.c ByteToDir: direction b (0..161) into dir and 1; anything else the zero vector
 * and 0. */
int qd_byte_to_dir(int b, float dir[3]);

/* q_math.c PerpendicularVector: a unit vector at right angles to unit vector n (n put onto
 * the world axis it leans on least, that axis less its part along n, normalised); 0 when n
 * is not a direction. */
int qd_perpendicular(const float n[3], float out[3]);

/* A Quake III shotgun blast's pellets (cg_weapons.c CG_ShotgunPattern, as g_weapon.c
 * ShotgunPattern shoots them): DEFAULT_SHOTGUN_COUNT 11, each from origin to 8192 x 16 units
 * along forward (a unit vector), moved r right and u up (right: qd_perpendicular(forward),
 * up: forward x right), r and u each Q_crandom(&seed) x DEFAULT_SHOTGUN_SPREAD 700 x 16 in
 * turn (q_math.c: seed = 69069 seed + 1, (seed & 0xffff) / 65536 scaled to -1..1); seed is
 * the event's eventParm. 0 when forward is not a direction. */
#define QD_Q3_PELLETS 11
#define QD_Q3_PELLET_RANGE (8192.0f * 16)
int qd_q3_pellet_ends(const float origin[3], const float forward[3], int seed,
                      float ends[QD_Q3_PELLETS][3]);

#endif
