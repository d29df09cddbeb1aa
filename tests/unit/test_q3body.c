/* test_q3body.c: Quake III bodies turning as cgame swings them (q3_body.c; ioquake3
 * cg_players.c CG_SwingAngles and CG_PlayerAngles). Every expected angle is worked out here
 * from those rules: a swing starts past the tolerance, moves dt x speed x scale degrees
 * (scale 0.5 under half the tolerance, 1 under it, 2 over), stops at the destination, and
 * is clamped within the clamp tolerance. AngleMod keeps 1/65536 turns, hence 0.01. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/client/cl.h"
#include "../../src/demo/q3_local.h"
#include "../test.h"

/* equal as angles (AngleMod keeps 0..360: -40 is 320) */
static int near(float a, float b)
{
    float d = fmodf(a - b, 360.0f);
    d = d > 180 ? d - 360 : d < -180 ? d + 360 : d;
    return fabsf(d) < 0.01f;
}

TEST(q3body_swing_angle_rules)
{
    float a = 0;
    uint8_t sw = 0;
    /* 30 degrees away, tolerance 25: a swing starts, scale 2: 50 ms x 2 x 0.3 = 30, there */
    q3_swing_angle(30, 25, 90, 0.3f, &a, &sw, 50);
    CHECK(near(a, 30) && !sw);
    /* tolerance 40 (the legs): 30 away does not start one */
    a = 0;
    q3_swing_angle(30, 40, 90, 0.3f, &a, &sw, 50);
    CHECK(near(a, 0) && !sw);
    /* 100 away: 30 this step, still swinging, within the clamp (70 < 90) */
    q3_swing_angle(100, 40, 90, 0.3f, &a, &sw, 50);
    CHECK(near(a, 30) && sw);
    /* destination 200 from 0 is -160: -30 this step (330), then 200 - 330 = -130 is past
     * the clamp of 90: 200 + 89 = 289 */
    a = 0;
    sw = 0;
    q3_swing_angle(200, 40, 90, 0.3f, &a, &sw, 50);
    CHECK_MSG(near(a, 289), "%f", a);
    /* angles past any int's turns (the contract sets no bound; a demo's stay under 1e7, and
     * the conversion to int was undefined past about 1.18e7: a review): taken as 0 */
    a = 0;
    sw = 0;
    q3_swing_angle(1e30f, 25, 90, 0.3f, &a, &sw, 16);
    CHECK_MSG(near(a, 0) && isfinite(a), "%f", a);
    a = 1e30f;
    q3_swing_angle(30, 25, 90, 0.3f, &a, &sw, 50);
    CHECK_MSG(isfinite(a) && a >= 0 && a < 360, "%f", a);
}

TEST(q3body_legs_lag_standing_and_follow_running)
{
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl != NULL);
    cl_reset(cl);
    const int idle = 22, stand = 11, run = 15; /* LEGS_IDLE, TORSO_STAND, LEGS_RUN */
    cl->time = 1.0;
    q3_body_swing(cl, 3, 0, 0, idle, stand, 0, 0, 1, NULL); /* appears: aligned with its view */
    const cl_player *p = &cl->players[3];
    CHECK(p->body_ok && near(p->body[1][0], 0) && near(p->body[1][1], 0));
    cl->time = 1.05; /* it looks 30 degrees left, standing: the torso follows, the legs not */
    q3_body_swing(cl, 3, 30, 0, idle, stand, 0, 0, 0, NULL);
    CHECK_MSG(near(p->body[1][1], 30), "torso %f", p->body[1][1]);
    CHECK_MSG(near(p->body[1][0], 0), "legs %f", p->body[1][0]);
    CHECK(p->body_time[0] == 1.0 && p->body_time[1] == 1.05);
    cl->time = 1.10; /* running: the legs swing at once, 30 away (scale 1): 15 */
    q3_body_swing(cl, 3, 30, 0, run, stand, 0, 0, 0, NULL);
    CHECK_MSG(near(p->body[1][0], 15), "legs %f", p->body[1][0]);
    cl->time = 1.15; /* 15 away, under half of 40 (scale 0.5): 7.5 more */
    q3_body_swing(cl, 3, 30, 0, run, stand, 0, 0, 0, NULL);
    CHECK_MSG(near(p->body[1][0], 22.5f), "legs %f", p->body[1][0]);
    CHECK(near(p->body[0][0], 15)); /* the step before, for the renderer's interpolation */
    /* moving diagonally (direction 2, movementOffsets 45): the legs aim at 30 + 45 */
    cl->time = 1.20;
    q3_body_swing(cl, 3, 30, 0, run, stand, 2, 0, 0, NULL);
    float legs = p->body[1][0];
    CHECK_MSG(legs > 22.5f && legs < 75, "legs %f", legs);
    /* looking down 40 (pitch 320 in 0..360 form): the torso's pitch aims at 0.75 x -40 */
    cl->time = 5.0; /* more than a second later: a body seen afresh, aligned */
    q3_body_swing(cl, 3, 30, 320, run, stand, 0, 0, 0, NULL);
    CHECK_MSG(near(p->body[1][2], -40), "pitch %f", p->body[1][2]);
    cl->time = 5.05; /* 10 from -30, under the tolerance 15 (scale 1): 0.1 x 50 = 5 */
    q3_body_swing(cl, 3, 30, 320, run, stand, 0, 0, 0, NULL);
    CHECK_MSG(near(p->body[1][2], -35), "pitch %f", p->body[1][2]);
    free(cl);
}

/* Standing with the gauntlet (TORSO_STAND2 12) is standing too (CG_PlayerAngles): looking
 * 30 degrees left, the torso follows and the legs stay, as with TORSO_STAND. */
TEST(q3body_gauntlet_stand_is_standing)
{
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl != NULL);
    cl_reset(cl);
    cl->time = 1.0;
    q3_body_swing(cl, 3, 0, 0, 22, 12, 0, 0, 1, NULL);
    cl->time = 1.05;
    q3_body_swing(cl, 3, 30, 0, 22, 12, 0, 0, 0, NULL);
    const cl_player *p = &cl->players[3];
    CHECK_MSG(near(p->body[1][1], 30), "torso %f", p->body[1][1]);
    CHECK_MSG(near(p->body[1][0], 0), "legs %f", p->body[1][0]);
    free(cl);
}

/* Running at 320 units a second along the legs' facing pitches them forward 0.05 x 320 = 16
 * degrees; running to their left (strafing) rolls them 16 the other way (CG_PlayerAngles'
 * lean: legs roll -= 0.05 x the motion along their left axis). */
TEST(q3body_legs_lean_into_their_motion)
{
    cl_state *cl = calloc(1, sizeof *cl);
    CHECK(cl != NULL);
    cl_reset(cl);
    const int run = 15, stand = 11;
    const float ahead[3] = {0, 320, 0}, left[3] = {-320, 0, 0}; /* the legs face yaw 90 */
    cl->time = 2.0;
    q3_body_swing(cl, 0, 90, 0, run, stand, 0, 0, 1, ahead);
    const cl_player *p = &cl->players[0];
    CHECK_MSG(near(p->body[1][3], 16) && near(p->body[1][4], 0), "%f %f", p->body[1][3],
              p->body[1][4]);
    cl->time = 2.05;
    q3_body_swing(cl, 0, 90, 0, run, stand, 0, 0, 0, left);
    CHECK_MSG(near(p->body[1][3], 0) && near(p->body[1][4], -16), "%f %f", p->body[1][3],
              p->body[1][4]);
    free(cl);
}
