/* SPDX-License-Identifier: MIT */
/* tools/cuzkd/notify.h — sd_notify for cuzkd (notify.c). */
#ifndef CUZKD_NOTIFY_H
#define CUZKD_NOTIFY_H

#include "engine/engine.h"

/* READY=1 and STATUS=; starts the watchdog thread when systemd asks for one. */
void cuzkd_notify_ready(struct cz_engine *e);
/* STOPPING=1; stops the watchdog thread (before the engine goes). */
void cuzkd_notify_stopping(void);

#endif
