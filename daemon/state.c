/*
 * state.c - the daemon's global state.
 *
 * `pvmd' (pvmd.h) holds what every module of the daemon reads: this
 * host's index and tid, its paths, the -d mask, whether it halts.  main.c
 * fills it at start-up.  It is the bottom leaf: it calls nothing.
 */
#include "pvmd.h"

struct pvmd_state pvmd;
