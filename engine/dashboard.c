/* SPDX-License-Identifier: MIT */
/*
 * engine/dashboard.c — engine/dashboard.html, built into the binary (the
 * assembler's .incbin, so the page is one file in the repository, served
 * with no file I/O and no path to install).  The Makefile makes this
 * object depend on the page.
 */
#ifdef CZ_HAVE_MICROHTTPD
__asm__(".section .rodata\n"
	".global cz_dashboard_html\n"
	".type cz_dashboard_html, @object\n"
	"cz_dashboard_html:\n"
	".incbin \"engine/dashboard.html\"\n"
	"cz_dashboard_html_end:\n"
	".byte 0\n"
	".size cz_dashboard_html, . - cz_dashboard_html\n"
	".global cz_dashboard_html_len\n"
	".type cz_dashboard_html_len, @object\n"
	".balign 4\n"
	"cz_dashboard_html_len:\n"
	".long cz_dashboard_html_end - cz_dashboard_html\n"
	".size cz_dashboard_html_len, 4\n"
	".previous\n");
#endif
