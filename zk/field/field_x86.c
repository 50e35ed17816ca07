/* SPDX-License-Identifier: MIT */
/*
 * zk/field/field_x86.c — chooses the multiplication path once, at start-up: the
 * mulx/adcx/adox kernels of zk/field/field_x86.h when the CPU has BMI2 and ADX,
 * else the portable C loop.  Before the constructor runs the flag is false,
 * which is merely slower, never wrong.
 */
#include "zk/field/fp.h"
#include "zk/field/field_x86.h"

#include <stdatomic.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

bool cz_field_adx_on;
_Atomic unsigned long cz_field_inv_fallbacks;
static bool have_adx;

__attribute__((constructor)) static void field_detect(void)
{
#if defined(__x86_64__)
	/* CPUID leaf 7: EBX bit 8 = BMI2 (mulx), bit 19 = ADX (adcx/adox).  Read
	 * directly: not every compiler's __builtin_cpu_supports knows "adx". */
	unsigned a, b, c, d;
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d))
		have_adx = (b >> 8 & 1) && (b >> 19 & 1);
#endif
	cz_field_adx_on = have_adx;
}

bool cz_fp_have_adx(void)
{
	return have_adx;
}

/* Not thread safe against concurrent field arithmetic; tests and benches
 * flip it between phases. */
void cz_field_force_portable(bool on)
{
	cz_field_adx_on = have_adx && !on;
}

unsigned long cz_field_inv_fallback_count(void)
{
	return atomic_load_explicit(&cz_field_inv_fallbacks, memory_order_relaxed);
}
