/* q3_body.c: how cgame turns a Quake III body's legs and torso towards where it looks
 * (ioquake3 code/cgame/cg_players.c CG_PlayerAngles and CG_SwingAngles; facts only): the
 * legs lag behind the view until it is more than 40 degrees away, the torso 25, and then
 * swing after it; a body that moves or shoots swings at once. cgame steps the swing every
 * drawn frame; here it is stepped at every demo frame, which the renderer interpolates,
 * and kept in the client state, so a seek gives the same turn as playing. */
#include <math.h>

#include "q3_local.h"

/* q_math.c AngleMod (to 0..360 in 1/65536 turns) and AngleSubtract (-180..180). */
static float angle_mod(float a)
{
    if (!(fabsf(a) < 1e7f)) /* (not finite or past an int's turns: the callers' contract
                             * has no bound; what the demo gives is under 1e7; a review) */
        return 0;
    return (360.0f / 65536) * (float)((int)(a * (65536 / 360.0f)) & 65535);
}

static __attribute__((noinline)) float angle_sub_far(float d);

/* (inlined: the three swings' chains of steps then overlap; most differences need none of
 * angle_sub_far's steps) */
static inline __attribute__((always_inline)) float angle_sub(float a, float b)
{
    float d = a - b;
    if (d >= -180.0f && d <= 180.0f)
        return d; /* (most: what the steps below leave as it is) */
    return angle_sub_far(d);
}

static float angle_sub_far(float d)
{
    if (!isfinite(d))
        return 0;
    /* fmodf's result is exact: d itself within 360, and d -+ 360 within 720 (Sterbenz: the
     * difference of floats within a factor of two is exact), so the call only beyond and
     * at -360 (its result -0) */
    if (d >= 360.0f && d < 720.0f)
        d -= 360.0f;
    else if (d < -360.0f && d > -720.0f)
        d += 360.0f;
    else if (!(d > -360.0f && d < 360.0f))
        d = fmodf(d, 360.0f);
    if (d > 180)
        d -= 360;
    if (d < -180)
        d += 360;
    return d;
}

/* q3_swing_angle, inlined where q3_body_swing calls it with constant limits */
static inline __attribute__((always_inline)) void
swing_angle(float destination, float tolerance, float clamp, float speed, float *angle,
            uint8_t *swinging, double dt_ms)
{
    if (!*swinging) {
        float sw = angle_sub(*angle, destination);
        if (sw > tolerance || sw < -tolerance)
            *swinging = 1; /* see if a swing should be started */
    }
    if (!*swinging)
        return;
    float sw = angle_sub(destination, *angle);
    float scale = fabsf(sw) < tolerance * 0.5f ? 0.5f : fabsf(sw) < tolerance ? 1.0f : 2.0f;
    float move = (float)dt_ms * scale * speed;
    if (sw >= 0) {
        if (move >= sw) {
            move = sw;
            *swinging = 0;
        }
    } else {
        move = -move;
        if (move <= sw) {
            move = sw;
            *swinging = 0;
        }
    }
    *angle = angle_mod(*angle + move);
    sw = angle_sub(destination, *angle); /* clamp to no more than tolerance */
    if (sw > clamp)
        *angle = angle_mod(destination - (clamp - 1));
    else if (sw < -clamp)
        *angle = angle_mod(destination + (clamp - 1));
}

void q3_swing_angle(float destination, float tolerance, float clamp, float speed, float *angle,
                    uint8_t *swinging, double dt_ms)
{
    swing_angle(destination, tolerance, clamp, speed, angle, swinging, dt_ms);
}

/* bg_public.h animNumber_t: LEGS_IDLE and TORSO_STAND (TORSO_STAND2 with the gauntlet), the
 * animations of standing still */
#define LEGS_IDLE 22
#define TORSO_STAND 11
#define TORSO_STAND2 12
#define SWING_SPEED 0.3f /* cg_swingSpeed's default */

void q3_body_swing(cl_state *cl, int cn, float yaw, float pitch, int legs, int torso, int dir,
                   int dead, int reset, const float velocity[3])
{
    static const float offsets[8] = {0, 22, 45, -22, 0, 22, -45, -22}; /* movementOffsets */
    if (cn < 0 || cn >= CL_MAX_PLAYERS || !isfinite(yaw) || !isfinite(pitch))
        return;
    cl_player *p = &cl->players[cn];
    double t = cl->time;
    yaw = angle_mod(yaw);
    if (pitch > 180)
        pitch -= 360;
    /* CG_ResetPlayerEntity (a body new to the client, or teleported): all along the view */
    if (reset || !p->body_ok || t < p->body_time[1] || t - p->body_time[1] > 1.0) {
        for (int k = 0; k < 2; k++) {
            p->body[k][0] = p->body[k][1] = yaw;
            p->body[k][2] = pitch;
            p->body[k][3] = p->body[k][4] = 0;
            p->body_time[k] = t;
        }
        p->body_swing[0] = p->body_swing[1] = p->body_swing[2] = 0;
        p->body_ok = 1;
    }
    float b[3] = {p->body[1][0], p->body[1][1], p->body[1][2]};
    double dt = (t - p->body_time[1]) * 1000.0;
    int ts = torso & ~Q3_ANIM_TOGGLEBIT;
    if ((legs & ~Q3_ANIM_TOGGLEBIT) != LEGS_IDLE || (ts != TORSO_STAND && ts != TORSO_STAND2))
        p->body_swing[0] = p->body_swing[1] = p->body_swing[2] = 1; /* always centre */
    float off = dead || dir < 0 || dir > 7 ? 0 : offsets[dir];
    swing_angle(yaw + 0.25f * off, 25, 90, SWING_SPEED, &b[1], &p->body_swing[1], dt);
    swing_angle(yaw + off, 40, 90, SWING_SPEED, &b[0], &p->body_swing[0], dt);
    swing_angle(pitch * 0.75f, 15, 30, 0.1f, &b[2], &p->body_swing[2], dt);
    /* lean towards the direction of travel: 0.05 degrees a unit per second, rolled by the
     * motion across the legs (their left axis) and pitched by the motion along them */
    float lean[2] = {0, 0};
    float v2 = velocity ? velocity[0] * velocity[0] + velocity[1] * velocity[1] +
                              velocity[2] * velocity[2]
                        : 0;
    if (v2 > 0 && isfinite(v2) && v2 < 1e12f) {
        /* cgame: the unit velocity times 0.05 x speed, which is the velocity x 0.05 */
        float yr = b[0] * (float)(M_PI / 180), fwd[2] = {cosf(yr), sinf(yr)},
              left[2] = {-sinf(yr), cosf(yr)};
        lean[0] = 0.05f * (velocity[0] * fwd[0] + velocity[1] * fwd[1]);
        lean[1] = -0.05f * (velocity[0] * left[0] + velocity[1] * left[1]);
    }
    if (t > p->body_time[1]) {
        for (int k = 0; k < 5; k++)
            p->body[0][k] = p->body[1][k];
        p->body_time[0] = p->body_time[1];
    }
    for (int k = 0; k < 3; k++)
        p->body[1][k] = b[k];
    p->body[1][3] = lean[0];
    p->body[1][4] = lean[1];
    p->body_time[1] = t;
}
