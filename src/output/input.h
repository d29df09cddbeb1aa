/* input.h: the neutral input events a window produces; the app's input layer reads only these. */
#ifndef QD_INPUT_H
#define QD_INPUT_H

/* Keys qdemo reacts to. Letters and digits are contiguous: IN_KEY_A + (c - 'a'),
 * IN_KEY_0 + (c - '0'). Keys are named by the symbol they type (the layout's), not by
 * their place on the keyboard. */
typedef enum in_key {
    IN_KEY_NONE = 0,
    IN_KEY_SPACE,
    IN_KEY_ESCAPE,
    IN_KEY_ENTER,
    IN_KEY_TAB,
    IN_KEY_BACKSPACE,
    IN_KEY_LEFT,
    IN_KEY_RIGHT,
    IN_KEY_UP,
    IN_KEY_DOWN,
    IN_KEY_HOME,
    IN_KEY_END,
    IN_KEY_PAGEUP,
    IN_KEY_PAGEDOWN,
    IN_KEY_LBRACKET, /* [ */
    IN_KEY_RBRACKET, /* ] */
    IN_KEY_PERIOD,   /* . */
    IN_KEY_COMMA,    /* , */
    IN_KEY_MINUS,    /* - */
    IN_KEY_EQUALS,   /* = */
    IN_KEY_SLASH,    /* / and ? (Shift) */
    IN_KEY_LESS,     /* < */
    IN_KEY_GREATER,  /* > */
    IN_KEY_F1,
    IN_KEY_F11,
    IN_KEY_F12,
    IN_KEY_0,
    IN_KEY_9 = IN_KEY_0 + 9,
    IN_KEY_A,
    IN_KEY_Z = IN_KEY_A + 25,
    IN_KEY_COUNT
} in_key;

/* Modifier bits held when an event happened. */
#define IN_MOD_SHIFT 0x1u
#define IN_MOD_CTRL 0x2u
#define IN_MOD_ALT 0x4u

typedef enum in_type {
    IN_EV_NONE = 0,
    IN_EV_KEY_DOWN,    /* key, mods, repeat */
    IN_EV_KEY_UP,      /* key, mods */
    IN_EV_MOTION,      /* x, y, dx, dy */
    IN_EV_BUTTON_DOWN, /* button, x, y */
    IN_EV_BUTTON_UP,   /* button, x, y */
    IN_EV_WHEEL,       /* dx, dy in notches (dy > 0: away from the user), x, y */
    IN_EV_RESIZE,      /* w, h: the new drawable size in pixels */
    IN_EV_DROP,        /* path: a file dropped on the window */
    IN_EV_QUIT         /* the window was closed */
} in_type;

/* Mouse buttons. */
#define IN_BUTTON_LEFT 1
#define IN_BUTTON_MIDDLE 2
#define IN_BUTTON_RIGHT 3

/* One event; fields not listed for its type are 0. Mouse positions x, y are in pixels of
 * the framebuffer last presented (they may lie outside it, over the borders); dx, dy of a
 * motion are relative movement in window pixels, also valid in relative mouse mode. */
typedef struct in_event {
    in_type type;
    in_key key;
    unsigned mods;
    int repeat;
    int button;
    int clicks;        /* IN_EV_BUTTON_DOWN: 2 for a double click */
    int x, y;
    int dx, dy;
    int w, h;
    const char *path;  /* IN_EV_DROP: valid until the next poll */
} in_event;

#endif
