/* SPDX-License-Identifier: MIT */
/* tools/cuzkctl/top.h — `cuzkctl top` (top.c). */
#ifndef CUZKCTL_TOP_H
#define CUZKCTL_TOP_H

/* argv[0] is "top"; 0, or 2 on a bad option or a lost daemon. */
int cuzkctl_top(int sock, int argc, char **argv);

#endif
