/* SPDX-License-Identifier: MIT */
/*
 * zk/field_x86.h — the x86-64 Montgomery kernels (mulx/adcx/adox) and the
 * switch that picks them.  Private to the field code.
 *
 * cz_field_adx_on is set once at start-up (a constructor in zk/field_x86.c)
 * when the CPU has BMI2 and ADX, and cleared by cz_field_force_portable().
 * Callers test it with a well-predicted branch rather than an indirect call.
 */
#ifndef CZ_FIELD_X86_H
#define CZ_FIELD_X86_H

#include <stdbool.h>
#include <stdint.h>

extern bool cz_field_adx_on;

#endif
