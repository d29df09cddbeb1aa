/* window.c: the SDL2 window (SDL loaded at run time, sdl_local.h): a streaming texture scaled
 * to fit, and SDL events as in_event. */
#include "out.h"
#include "sdl_local.h"

#include <stdlib.h>
#include <string.h>

struct out_window {
    const out_sdl_api *sdl; /* SDL, loaded by out_window_open */
    SDL_Window *win;
    SDL_Renderer *ren;
    SDL_Texture *tex;
    int tw, th;    /* texture size */
    SDL_Rect dst;  /* where the last frame went, in drawable pixels */
    int fw, fh;    /* size of the last frame presented */
    char *dropped; /* the last IN_EV_DROP's path (SDL's copy), freed at the next poll */
};

out_window *out_window_open(const char *title, int w, int h, qd_error *err)
{
    if (w < 1 || h < 1 || w > 16384 || h > 16384) {
        qd_fail(err, QD_ERR_USAGE, 0, "window: bad size %dx%d", w, h);
        return NULL;
    }
    const out_sdl_api *sdl = out_sdl(err);
    if (!sdl)
        return NULL;
    if (sdl->InitSubSystem(SDL_INIT_VIDEO) != 0) {
        qd_fail(err, QD_ERR_OUTPUT, 0, "window: no display (SDL: %s)", sdl->GetError());
        return NULL;
    }
    /* SDL falls back to its "offscreen" or "dummy" driver when there is no display: that is
     * no window a person can see, so say so unless the user asked for it by name. */
    const char *drv = sdl->GetCurrentVideoDriver();
    const char *asked = getenv("SDL_VIDEODRIVER");
    if (drv && (!strcmp(drv, "offscreen") || !strcmp(drv, "dummy") || !strcmp(drv, "evdev")) &&
        !(asked && !strcmp(asked, drv))) {
        sdl->QuitSubSystem(SDL_INIT_VIDEO);
        qd_fail(err, QD_ERR_OUTPUT, 0, "window: no display (only SDL's %s driver)", drv);
        return NULL;
    }
    out_window *ow = calloc(1, sizeof *ow);
    if (!ow) {
        sdl->QuitSubSystem(SDL_INIT_VIDEO);
        qd_fail(err, QD_ERR_NOMEM, 0, "window: no memory");
        return NULL;
    }
    ow->sdl = sdl;
    /* no larger than the screen's usable part (a review: --size 16384x16384 made a window of
     * 2.3 GB; the frame drawn into it is capped anyway) */
    SDL_Rect screen;
    if (sdl->GetDisplayUsableBounds(0, &screen) == 0 && screen.w > 0 && screen.h > 0) {
        w = w < screen.w ? w : screen.w;
        h = h < screen.h ? h : screen.h;
    }
    ow->win = sdl->CreateWindow(title ? title : "qdemo", SDL_WINDOWPOS_CENTERED,
                                SDL_WINDOWPOS_CENTERED, w, h,
                                SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (ow->win) {
        ow->ren = sdl->CreateRenderer(ow->win, -1, SDL_RENDERER_PRESENTVSYNC);
        if (!ow->ren)
            ow->ren = sdl->CreateRenderer(ow->win, -1, 0);
    }
    if (!ow->ren) {
        qd_fail(err, QD_ERR_OUTPUT, 0, "window: cannot open a %dx%d window (SDL: %s)", w, h,
                sdl->GetError());
        out_window_close(ow);
        return NULL;
    }
    sdl->SetHint(SDL_HINT_RENDER_SCALE_QUALITY, "linear");
    return ow;
}

void out_window_close(out_window *ow)
{
    if (!ow)
        return;
    const out_sdl_api *sdl = ow->sdl;
    if (ow->tex)
        sdl->DestroyTexture(ow->tex);
    if (ow->ren)
        sdl->DestroyRenderer(ow->ren);
    if (ow->win)
        sdl->DestroyWindow(ow->win);
    sdl->free(ow->dropped);
    free(ow);
    sdl->QuitSubSystem(SDL_INIT_VIDEO);
}

void out_window_size(out_window *ow, int *w, int *h)
{
    int ww = 0, hh = 0;
    if (ow && ow->sdl->GetRendererOutputSize(ow->ren, &ww, &hh) != 0)
        ww = hh = 0;
    if (w)
        *w = ww;
    if (h)
        *h = hh;
}

qd_err out_window_present(out_window *ow, const rast_fb *fb, qd_error *err)
{
    if (!ow || !fb || !fb->color || fb->w < 1 || fb->h < 1)
        return qd_fail(err, QD_ERR_USAGE, 0, "window: nothing to present");
    if (!ow->tex || ow->tw != fb->w || ow->th != fb->h) {
        if (ow->tex)
            ow->sdl->DestroyTexture(ow->tex);
        /* RGBA32 is bytes R, G, B, A in memory on any machine: rast.h's layout. */
        ow->tex = ow->sdl->CreateTexture(ow->ren, SDL_PIXELFORMAT_RGBA32,
                                         SDL_TEXTUREACCESS_STREAMING, fb->w, fb->h);
        if (!ow->tex) {
            ow->tw = ow->th = 0;
            return qd_fail(err, QD_ERR_OUTPUT, 0, "window: no %dx%d texture (SDL: %s)", fb->w,
                           fb->h, ow->sdl->GetError());
        }
        ow->sdl->SetTextureBlendMode(ow->tex, SDL_BLENDMODE_NONE);
        ow->tw = fb->w;
        ow->th = fb->h;
    }
    if (ow->sdl->UpdateTexture(ow->tex, NULL, fb->color, fb->w * 4) != 0)
        return qd_fail(err, QD_ERR_OUTPUT, 0, "window: texture upload failed (SDL: %s)",
                       ow->sdl->GetError());
    int ow_w, ow_h;
    out_window_size(ow, &ow_w, &ow_h);
    /* Largest size of the frame's aspect that fits, centred. */
    SDL_Rect d = {0, 0, ow_w, ow_h};
    if ((int64_t)ow_w * fb->h > (int64_t)ow_h * fb->w)
        d.w = (int)((int64_t)ow_h * fb->w / fb->h);
    else
        d.h = (int)((int64_t)ow_w * fb->h / fb->w);
    d.x = (ow_w - d.w) / 2;
    d.y = (ow_h - d.h) / 2;
    ow->dst = d;
    ow->fw = fb->w;
    ow->fh = fb->h;
    ow->sdl->SetRenderDrawColor(ow->ren, 0, 0, 0, 255);
    ow->sdl->RenderClear(ow->ren);
    ow->sdl->RenderCopy(ow->ren, ow->tex, NULL, &d);
    ow->sdl->RenderPresent(ow->ren);
    return QD_OK;
}

int out_window_wait(out_window *ow, int ms)
{
    return ow && ow->sdl->WaitEventTimeout(NULL, ms > 0 ? ms : 0) == 1;
}

int out_window_hidden(out_window *ow)
{
    return ow && (ow->sdl->GetWindowFlags(ow->win) & (SDL_WINDOW_MINIMIZED | SDL_WINDOW_HIDDEN));
}

void out_window_set_title(out_window *ow, const char *title)
{
    if (ow && title)
        ow->sdl->SetWindowTitle(ow->win, title);
}

int out_window_is_fullscreen(out_window *ow)
{
    return ow && (ow->sdl->GetWindowFlags(ow->win) & SDL_WINDOW_FULLSCREEN_DESKTOP) ==
                     SDL_WINDOW_FULLSCREEN_DESKTOP;
}

void out_window_toggle_fullscreen(out_window *ow)
{
    if (!ow)
        return;
    int full = (ow->sdl->GetWindowFlags(ow->win) & SDL_WINDOW_FULLSCREEN_DESKTOP) != 0;
    ow->sdl->SetWindowFullscreen(ow->win, full ? 0 : SDL_WINDOW_FULLSCREEN_DESKTOP);
}

void out_window_relative_mouse(out_window *ow, int on)
{
    if (ow)
        ow->sdl->SetRelativeMouseMode(on ? SDL_TRUE : SDL_FALSE);
}

static in_key key_of(SDL_Keycode k)
{
    if (k >= SDLK_a && k <= SDLK_z)
        return (in_key)(IN_KEY_A + (k - SDLK_a));
    if (k >= SDLK_0 && k <= SDLK_9)
        return (in_key)(IN_KEY_0 + (k - SDLK_0));
    if (k >= SDLK_KP_1 && k <= SDLK_KP_9)
        return (in_key)(IN_KEY_0 + 1 + (k - SDLK_KP_1));
    switch (k) {
    case SDLK_KP_0: return IN_KEY_0;
    case SDLK_SPACE: return IN_KEY_SPACE;
    case SDLK_ESCAPE: return IN_KEY_ESCAPE;
    case SDLK_RETURN:
    case SDLK_KP_ENTER: return IN_KEY_ENTER;
    case SDLK_TAB: return IN_KEY_TAB;
    case SDLK_F1: return IN_KEY_F1;
    case SDLK_F11: return IN_KEY_F11;
    case SDLK_F12: return IN_KEY_F12;
    case SDLK_BACKSPACE: return IN_KEY_BACKSPACE;
    case SDLK_LEFT: return IN_KEY_LEFT;
    case SDLK_RIGHT: return IN_KEY_RIGHT;
    case SDLK_UP: return IN_KEY_UP;
    case SDLK_DOWN: return IN_KEY_DOWN;
    case SDLK_HOME: return IN_KEY_HOME;
    case SDLK_END: return IN_KEY_END;
    case SDLK_PAGEUP: return IN_KEY_PAGEUP;
    case SDLK_PAGEDOWN: return IN_KEY_PAGEDOWN;
    case SDLK_LEFTBRACKET: return IN_KEY_LBRACKET;
    case SDLK_RIGHTBRACKET: return IN_KEY_RBRACKET;
    case SDLK_PERIOD:
    case SDLK_KP_PERIOD: return IN_KEY_PERIOD;
    case SDLK_COMMA: return IN_KEY_COMMA;
    case SDLK_SLASH:
    case SDLK_QUESTION: return IN_KEY_SLASH;
    case SDLK_MINUS:
    case SDLK_KP_MINUS: return IN_KEY_MINUS;
    case SDLK_EQUALS:
    case SDLK_PLUS:
    case SDLK_KP_PLUS: return IN_KEY_EQUALS;
    default: return IN_KEY_NONE;
    }
}

/* The keys named by the character they type, taken from SDL_TEXTINPUT rather than from the
 * key's code (a review: on a German keyboard '?' is Shift+ß and ']' AltGr+9, which came as
 * "ß" and "9": nothing, and a seek to 90 %), as mpv reads them. IN_KEY_NONE for others. */
static in_key key_of_char(char c)
{
    switch (c) {
    case '?':
    case '/': return IN_KEY_SLASH;
    case '<': return IN_KEY_LESS;
    case '>': return IN_KEY_GREATER;
    case '[': return IN_KEY_LBRACKET;
    case ']': return IN_KEY_RBRACKET;
    case ',': return IN_KEY_COMMA;
    case '.': return IN_KEY_PERIOD;
    case '-': return IN_KEY_MINUS;
    case '=':
    case '+': return IN_KEY_EQUALS;
    default: return IN_KEY_NONE;
    }
}

static unsigned mods_of(SDL_Keymod m)
{
    return ((m & KMOD_SHIFT) ? IN_MOD_SHIFT : 0u) | ((m & KMOD_CTRL) ? IN_MOD_CTRL : 0u) |
           ((m & KMOD_ALT) ? IN_MOD_ALT : 0u);
}

/* A window position (in window points) to framebuffer pixels of the last frame. */
static void to_fb(out_window *ow, int wx, int wy, int *fx, int *fy)
{
    int ww, wh, dw, dh;
    ow->sdl->GetWindowSize(ow->win, &ww, &wh);
    out_window_size(ow, &dw, &dh);
    int64_t px = ww > 0 ? (int64_t)wx * dw / ww : wx, py = wh > 0 ? (int64_t)wy * dh / wh : wy;
    if (ow->dst.w > 0 && ow->dst.h > 0) {
        px = (px - ow->dst.x) * ow->fw / ow->dst.w;
        py = (py - ow->dst.y) * ow->fh / ow->dst.h;
    }
    *fx = (int)px;
    *fy = (int)py;
}

int out_window_poll(out_window *ow, in_event *ev)
{
    if (!ow || !ev)
        return 0;
    SDL_Event e;
    ow->sdl->free(ow->dropped);
    ow->dropped = NULL;
    while (ow->sdl->PollEvent(&e)) {
        memset(ev, 0, sizeof *ev);
        switch (e.type) {
        case SDL_DROPFILE:
            if (!e.drop.file)
                continue;
            ow->dropped = e.drop.file;
            ev->type = IN_EV_DROP;
            ev->path = ow->dropped;
            return 1;
        case SDL_DROPTEXT: /* (SDL's copy is ours to free, as a file's) */
            ow->sdl->free(e.drop.file);
            continue;
        case SDL_QUIT:
            ev->type = IN_EV_QUIT;
            return 1;
        case SDL_TEXTINPUT: /* the character keys (key_of_char): pressed */
            ev->key = key_of_char(e.text.text[0]);
            if (ev->key == IN_KEY_NONE || e.text.text[1])
                continue;
            ev->type = IN_EV_KEY_DOWN;
            ev->mods = mods_of(ow->sdl->GetModState());
            return 1;
        case SDL_KEYDOWN:
        case SDL_KEYUP:
            ev->key = key_of(e.key.keysym.sym);
            if (ev->key == IN_KEY_NONE)
                continue;
            /* (the character keys come as the text they type; a digit typed with AltGr is
             * another character, not a seek) */
            if (key_of_char((char)(e.key.keysym.sym < 128 ? e.key.keysym.sym : 0)) != IN_KEY_NONE ||
                e.key.keysym.sym == SDLK_QUESTION || e.key.keysym.sym == SDLK_KP_PERIOD ||
                e.key.keysym.sym == SDLK_KP_MINUS || e.key.keysym.sym == SDLK_KP_PLUS ||
                (ev->key >= IN_KEY_0 && ev->key <= IN_KEY_9 &&
                 (e.key.keysym.mod & (KMOD_RALT | KMOD_MODE))))
                continue;
            ev->type = e.type == SDL_KEYDOWN ? IN_EV_KEY_DOWN : IN_EV_KEY_UP;
            ev->mods = mods_of((SDL_Keymod)e.key.keysym.mod);
            ev->repeat = e.key.repeat != 0;
            return 1;
        case SDL_MOUSEMOTION:
            ev->type = IN_EV_MOTION;
            to_fb(ow, e.motion.x, e.motion.y, &ev->x, &ev->y);
            ev->dx = e.motion.xrel;
            ev->dy = e.motion.yrel;
            ev->mods = mods_of(ow->sdl->GetModState());
            return 1;
        case SDL_MOUSEBUTTONDOWN:
        case SDL_MOUSEBUTTONUP:
            ev->type = e.type == SDL_MOUSEBUTTONDOWN ? IN_EV_BUTTON_DOWN : IN_EV_BUTTON_UP;
            ev->button = e.button.button;
            ev->clicks = e.button.clicks;
            to_fb(ow, e.button.x, e.button.y, &ev->x, &ev->y);
            ev->mods = mods_of(ow->sdl->GetModState());
            return 1;
        case SDL_MOUSEWHEEL: {
            int x, y;
            ev->type = IN_EV_WHEEL;
            ev->dx = e.wheel.x;
            ev->dy = e.wheel.y;
            if (e.wheel.direction == SDL_MOUSEWHEEL_FLIPPED) {
                ev->dx = -ev->dx;
                ev->dy = -ev->dy;
            }
            ow->sdl->GetMouseState(&x, &y);
            to_fb(ow, x, y, &ev->x, &ev->y);
            ev->mods = mods_of(ow->sdl->GetModState());
            return 1;
        }
        case SDL_WINDOWEVENT:
            if (e.window.event != SDL_WINDOWEVENT_SIZE_CHANGED)
                continue;
            ev->type = IN_EV_RESIZE;
            out_window_size(ow, &ev->w, &ev->h);
            return 1;
        default:
            continue;
        }
    }
    return 0;
}
