/* SPDX-License-Identifier: MIT */
/* cuzkd — the cuzk proving daemon.  See docs/cuzkd.8.md. */
#include "ctl/ctl.h"
#include "tools/cuzkd/notify.h"
#include "engine/engine.h"
#include "engine/place/place.h"
#include "gpu/backend.h"

#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <sys/resource.h>
#include <json-c/json.h>
#include <math.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The defaults are the engine's (cz_engine_config_defaults), but for
 * --isolation: cuzkd runs each device's consumers in a child of its own
 * (engine/device/devproc.c), while the engine's default stays threads for the
 * programs that embed it and have no --device-child entry (the in-process
 * selftests).  Printed, not written down a second time. */
static void cuzkd_defaults(struct cz_engine_config *c)
{
	cz_engine_config_defaults(c);
	c->isolation = CZ_ISOLATION_PROCESS;
}

static void usage(FILE *f)
{
	struct cz_engine_config d;
	char sock[256];

	cuzkd_defaults(&d);
	fprintf(f,
		"usage: cuzkd [--socket PATH] --state-dir DIR [--backend NAME]\n"
		"             [--devices N] [--consumers-per-device N] [--synth-workers N] [--finalizers N]\n"
		"             [--device-threads N] [--mem-budget SIZE] [--null-delay-ms N]\n"
		"             [--null-synth-ms N] [--idle-timeout S] [--read-timeout S]\n"
		"             [--max-conns-per-uid N] [--isolation process|thread]\n"
		"             [--max-queued-partitions N] [--admin-group GROUP]\n"
		"             [--socket-group GROUP] [--socket-mode MODE]\n"
		"             [--retain DURATION] [--witness-timeout S]\n"
		"             [--watchdog-factor K] [--watchdog-floor-ms MS]\n"
		"             [--device-retry-ms MS] [--output-retry-max-ms MS]\n"
		"             [--fixed-tables auto|off|SIZE]\n"
		"             [--load NAME=ZKEY]... [--config FILE]\n"
		"             [--topology XML] [--device-nodes LIST] [--print-placement]\n"
		"             [--metrics-listen ADDR:PORT|/PATH] [--metrics-auth FILE] [--metrics-max-conns N]\n"
		"             [--fleet URL] [--fleet-lease-ms N] [--fleet-timeout-ms N] [--fleet-retain-s N]\n"
		"             [--fleet-notify auto|on|off]\n"
		"SIZE takes a K, M, G or T suffix (powers of 1024).  See docs/cuzkd.8.md.\n"
		"defaults:\n"
		"  --socket %s\n"
		"  --backend %s (this build has: %s)\n"
		"  --devices %u (0: all the backend has), at most %u\n"
		"  --consumers-per-device %u, 1 to %u\n"
		"  --synth-workers %u, 1 to %u\n"
		"  --finalizers %u (verifying threads), 1 to %u\n"
		"  --device-threads %u (0: all CPUs), at most %u\n"
		"  --mem-budget %llu (3/4 of RAM)\n"
		"  --null-delay-ms %u, --null-synth-ms %u\n"
		"  --idle-timeout 300, --read-timeout 10 (seconds, above 0, at most 86400)\n"
		"  --max-conns-per-uid: %d for each non-admin uid (0: no cap below the %d connections),\n"
		"    at most %d; %d of the connections are kept for admins whatever is given\n"
		"  --max-queued-partitions: derived from RLIMIT_NOFILE and RAM (logged at start)\n"
		"  --admin-group: none (admins: root and cuzkd's own uid)\n"
		"  --socket-group: cuzkd's group; --socket-mode 0660\n"
		"  --isolation %s (process: each device's consumers in a child, cz-dev<N>; thread:\n"
		"    threads of cuzkd, for debugging and sanitizer runs)\n"
		"  --retain %llus (7d; takes s, m, h, d suffixes): finished jobs answer await and hold\n"
		"    their id this long; at most %llus\n"
		"  --witness-timeout %.0f (seconds, above 0, at most 86400): one input's witness generation\n"
		"  --watchdog-factor %u (0: off), --watchdog-floor-ms %u: a device stage running over\n"
		"    max(K x its circuit's p99, MS) marks the device hung; its process is restarted\n"
		"  --device-retry-ms %u: a failed device is tried again this long after it failed,\n"
		"    doubling while it keeps failing, up to max(15 min, MS); 1 to 86400000\n"
		"  --output-retry-max-ms %u: proofs not written for want of space (or EIO) are tried\n"
		"    again after 1 s, doubling up to MS; 1 to 3600000\n"
		"  --fixed-tables off: auto builds fixed-base MSM tables for each loaded key (cpu backend)\n"
		"    within half the budget the key and two partitions leave; SIZE at most that per key\n"
		"  --topology: this machine%s; --device-nodes: a GPU's PCI locality, else round-robin\n"
		"  --metrics-listen off (HTTP: /metrics, /status, /healthz, /readyz, /)%s\n"
		"  --metrics-auth none: /status on TCP shows no job and no key path; with FILE (its first\n"
		"    line a token, mode 0600), a request with \"Authorization: Bearer TOKEN\" sees it all\n"
		"  --metrics-max-conns 1024: HTTP connections at most (64 from one address); a newcomer\n"
		"    past either closes the connection idle the longest (refused only when none is idle)\n"
		"  --fleet off (a PostgreSQL URL: this cuzkd joins the fleet on that job table);\n"
		"    --fleet-lease-ms 30000 (a claimed partition's lease), --fleet-timeout-ms 5000,\n"
		"    --fleet-retain-s 604800 (ended jobs and dead nodes kept in the database),\n"
		"    --fleet-notify auto (probe NOTIFY/LISTEN at connect; off where refused: poll instead)\n",
		cz_ctl_default_path(sock, sizeof(sock)), d.backend, cz_backend_names(), d.devices,
		CZ_ENGINE_MAX_DEVICES, d.consumers_per_device, CZ_ENGINE_MAX_CONSUMERS_PER_DEV,
		d.synth_workers, CZ_ENGINE_MAX_SYNTH_WORKERS, d.finalizers, CZ_ENGINE_MAX_FINALIZERS,
		d.device_threads,
		CZ_ENGINE_MAX_DEVICE_THREADS, (unsigned long long)d.mem_budget, d.null_delay_ms,
		d.null_synth_ms, CZ_CTL_UID_CONNS, CZ_CTL_MAX_CONN, CZ_CTL_MAX_CONN, CZ_CTL_ADMIN_SLOTS,
		d.isolation == CZ_ISOLATION_PROCESS ? "process" : "thread", (unsigned long long)d.retain_s,
		CZ_ENGINE_RETAIN_MAX_S, (double)d.witness_timeout_ms / 1e3,
		d.watchdog_factor, d.watchdog_floor_ms, d.device_retry_ms, d.output_retry_max_ms,
		cz_topo_have_hwloc() ? "" : " (this build has no hwloc: one node)",
#ifdef CZ_HAVE_MICROHTTPD
		""
#else
		"; this build has no libmicrohttpd"
#endif
		);
}

/* strtod takes "nan", "inf" and hex: only plain decimal numbers here. */
static int plain_number(const char *s)
{
	if (!*s)
		return 0;
	for (const char *p = s; *p; p++)
		if (!strchr("0123456789.eE+-", *p))
			return p != s && strchr("KkMmGgTtBb", *p);   /* a size suffix ends it */
	return 1;
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!plain_number(s))
		return -1;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	uint64_t mul = 1;
	switch (*end) {
	case 'T': case 't': mul <<= 10; /* fall through */
	case 'G': case 'g': mul <<= 10; /* fall through */
	case 'M': case 'm': mul <<= 10; /* fall through */
	case 'K': case 'k': mul <<= 10; end++; break;
	case 0: break;
	default: return -1;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	/* 0.1 (bytes) is no size: refused, not rounded down to 0. */
	if (*end || v * (double)mul >= 0x1p63 || (v > 0 && v * (double)mul < 1))
		return -1;
	*out = (uint64_t)(v * (double)mul);
	return 0;
}

/* Seconds: a plain decimal, finite, above 0, at most a day. */
static int parse_secs(const char *s, double *out)
{
	char *end;
	errno = 0;
	if (!plain_number(s))
		return -1;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 86400)
		return -1;
	*out = v;
	return 0;
}

/* Seconds as parse_secs takes them, in whole milliseconds (at least 1). */
static int parse_ms(const char *s, uint64_t *ms)
{
	double t;
	if (parse_secs(s, &t) || t < 1e-3)
		return -1;
	*ms = (uint64_t)(t * 1e3 + 0.5);
	return 0;
}

/* A group by name or number; 0, or -1 when there is no such group. */
static int parse_group(const char *s, unsigned *out)
{
	struct group *g = getgrnam(s);
	if (g) {
		*out = (unsigned)g->gr_gid;
		return 0;
	}
	char *end;
	errno = 0;
	unsigned long v = *s >= '0' && *s <= '9' ? strtoul(s, &end, 10) : 0;
	if (*s < '0' || *s > '9' || errno || *end || v >= 0xffffffffUL)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* An octal mode with owner read and write (cuzkd itself never connects,
 * but a mode that locks out root's tools is surely a mistake). */
static int parse_mode(const char *s, unsigned *out)
{
	char *end;
	errno = 0;
	if (*s < '0' || *s > '7')
		return -1;
	unsigned long v = strtoul(s, &end, 8);
	if (errno || *end || v > 0777 || (v & 0600) != 0600)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* A duration: whole seconds, or with an s, m, h or d suffix ("7d"). */
static int parse_duration(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (*s < '0' || *s > '9')
		return -1;
	unsigned long long v = strtoull(s, &end, 10);
	uint64_t mul = !*end ? 1 : !strcmp(end, "s") ? 1 : !strcmp(end, "m") ? 60 : !strcmp(end, "h") ? 3600
		     : !strcmp(end, "d") ? 86400 : 0;
	if (errno || end == s || !mul || v == 0 || v > CZ_ENGINE_RETAIN_MAX_S / mul)
		return -1;
	*out = v * mul;
	return 0;
}

static int parse_uint(const char *s, unsigned *out)
{
	char *end;
	errno = 0;
	if (*s < '0' || *s > '9')   /* strtoul takes "-1" and " 5" */
		return -1;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > UINT_MAX)
		return -1;
	*out = (unsigned)v;
	return 0;
}

#define MAX_LOADS 32

struct opts {
	struct cz_engine_config cfg;
	struct cz_ctl_server_opts srv;
	const char *socket;
	const char *metrics_listen;
	const char *metrics_auth;       /* --metrics-auth FILE, or NULL */
	unsigned metrics_max_conns;     /* --metrics-max-conns N (0: the listener's 1024) */
	const char *loads[MAX_LOADS];
	int nloads;
	int print_placement;    /* --print-placement: print the plan, exit */
	struct cz_engine_fleet fleet;   /* --fleet URL, --fleet-lease-ms, --fleet-timeout-ms */
	char **owned;           /* strings copied from the config file, freed at exit */
	size_t nowned;
};

/* Config-file strings die with their JSON object: keep a copy (as many as
 * the file has).  NULL only when out of memory. */
static const char *keep(struct opts *o, const char *s, int copy)
{
	if (!copy)
		return s;
	char *dup = strdup(s), **more = dup ? realloc(o->owned, (o->nowned + 1) * sizeof(*more)) : NULL;
	if (!more) {
		free(dup);
		fprintf(stderr, "cuzkd: out of memory copying '%s'\n", s);
		return NULL;
	}
	o->owned = more;
	o->owned[o->nowned++] = dup;
	return dup;
}

/* --fleet URL, --fleet-lease-ms N, --fleet-timeout-ms N: 1 when bad. */
static int set_fleet_opt(struct opts *o, const char *name, const char *val, int copy)
{
	unsigned v = 0;
	if (!strcmp(name, "fleet"))
		return !(o->fleet.url = keep(o, val, copy)) || !*val;
	if (!strcmp(name, "fleet-lease-ms"))
		return parse_uint(val, &v) || v < 300 || v > 3600000 || !(o->fleet.lease_ms = (int)v);
	if (!strcmp(name, "fleet-timeout-ms"))
		return parse_uint(val, &v) || v < 100 || v > 600000 || !(o->fleet.timeout_ms = (int)v);
	if (!strcmp(name, "fleet-notify"))
		return !strcmp(val, "auto") ? (o->fleet.notify = 0, 0)
		       : !strcmp(val, "on") ? (o->fleet.notify = 1, 0)
		       : !strcmp(val, "off") ? (o->fleet.notify = 2, 0) : 1;
	if (!strcmp(name, "fleet-retain-s"))
		return parse_uint(val, &v) || v < 1 || v > 3650u * 86400 || !(o->fleet.retain_s = (int64_t)v);
	return 1;
}

/* One option, from the command line or the config file. */
/* What a bad value of --name should have been, for its message. */
static const char *opt_want(const char *name)
{
	return !strcmp(name, "mem-budget") ? "a size of at least 1 byte, such as 512M or 1.5G (a number "
					     "without a suffix is bytes)"
	       : !strcmp(name, "fixed-tables") ? "auto, off, or a size such as 512M (bytes of tables a key)"
	       : !strcmp(name, "fleet-timeout-ms") ? "milliseconds, 100 to 600000"
	       : !strcmp(name, "fleet-retain-s") ? "seconds, 1 to 315360000"
	       : !strcmp(name, "fleet-notify") ? "auto, on or off"
	       : strstr(name, "timeout") ? "seconds above 0, at most 86400 (fractions allowed)"
	       : !strcmp(name, "load") ? "NAME=ZKEY, at most 32 times"
	       : strstr(name, "group") ? "a group name or number that exists"
	       : !strcmp(name, "socket-mode") ? "an octal mode with owner read and write, such as 0660"
	       : !strcmp(name, "max-queued-partitions") ? "a whole number above 0"
	       : !strcmp(name, "metrics-max-conns") ? "connections, 1 to 65536"
	       : !strcmp(name, "fleet") ? "a PostgreSQL URL (postgresql://host/db) or conninfo"
	       : !strcmp(name, "fleet-lease-ms") ? "milliseconds, 300 to 3600000"
	       : !strcmp(name, "retain") ? "a duration above 0 such as 3600, 90m, 12h or 7d, at most 3650d"
	       : "a whole number in range (see cuzkd --help)";
}

/* The null backend's options (tests and benchmarks): 1 on a bad value, -1 unknown. */
static int set_null_opt(struct cz_engine_config *c, const char *name, const char *val)
{
	int bad = 0;
	if (!strcmp(name, "null-delay-ms"))
		bad = parse_uint(val, &c->null_delay_ms);
	else if (!strcmp(name, "null-synth-ms"))
		bad = parse_uint(val, &c->null_synth_ms);
	else if (!strcmp(name, "null-fault")) {  /* D:N, tests */
		char *colon = strchr(val, ':');
		char dv[16];
		bad = !colon || colon - val >= (long)sizeof(dv);
		if (!bad) {
			snprintf(dv, sizeof(dv), "%.*s", (int)(colon - val), val);
			bad = parse_uint(dv, &c->null_fault_dev) || parse_uint(colon + 1, &c->null_fault_nth);
		}
	} else if (!strcmp(name, "null-fault-part")) {
		bad = parse_uint(val, &c->null_fault_part);
		c->null_fault_part += !bad;     /* stored +1: 0 means none */
	} else
		return -1;
	return bad;
}

static int set_opt(struct opts *o, const char *name, const char *val, int copy)
{
	struct cz_engine_config *c = &o->cfg;
	int bad = 0;
	if (!val) {
		fprintf(stderr, "cuzkd: %s: no value\n", name);
		return -1;
	}
	/* Only the syntax here: the ranges are the engine's (cz_engine_config_check). */
	if (!strcmp(name, "socket"))
		bad = !(o->socket = keep(o, val, copy));
	else if (!strcmp(name, "metrics-listen"))
		bad = !(o->metrics_listen = keep(o, val, copy));
	else if (!strcmp(name, "metrics-auth"))
		bad = !(o->metrics_auth = keep(o, val, copy));
	else if (!strcmp(name, "metrics-max-conns"))
		bad = parse_uint(val, &o->metrics_max_conns) || o->metrics_max_conns < 1 || o->metrics_max_conns > 65536;
	else if (!strcmp(name, "state-dir"))
		bad = !(c->state_dir = keep(o, val, copy));
	else if (!strcmp(name, "backend"))
		bad = !(c->backend = keep(o, val, copy));
	else if (!strcmp(name, "devices"))
		bad = parse_uint(val, &c->devices);
	else if (!strcmp(name, "consumers-per-device"))
		bad = parse_uint(val, &c->consumers_per_device);
	else if (!strcmp(name, "synth-workers"))
		bad = parse_uint(val, &c->synth_workers);
	else if (!strcmp(name, "finalizers"))
		bad = parse_uint(val, &c->finalizers);
	else if (!strcmp(name, "device-threads"))
		bad = parse_uint(val, &c->device_threads);
	else if (!strncmp(name, "null-", 5))
		bad = set_null_opt(c, name, val);
	else if (!strcmp(name, "isolation")) {
		bad = strcmp(val, "process") && strcmp(val, "thread");
		c->isolation = !strcmp(val, "process") ? CZ_ISOLATION_PROCESS : CZ_ISOLATION_THREAD;
	} else if (!strcmp(name, "topology"))
		bad = !(c->topology = keep(o, val, copy));
	else if (!strcmp(name, "device-nodes"))
		bad = !(c->device_nodes = keep(o, val, copy));
	else if (!strcmp(name, "mem-budget"))
		bad = parse_size(val, &c->mem_budget);
	else if (!strcmp(name, "fixed-tables"))
		bad = cz_engine_parse_tables(val, &c->fixed_tables);
	else if (!strcmp(name, "idle-timeout"))
		bad = parse_secs(val, &o->srv.idle_timeout_s);
	else if (!strcmp(name, "read-timeout"))
		bad = parse_secs(val, &o->srv.read_timeout_s);
	else if (!strcmp(name, "max-queued-partitions")) {
		unsigned v = 0;
		bad = parse_uint(val, &v) || v == 0;
		c->max_queued = v;
	} else if (!strcmp(name, "admin-group")) {
		bad = parse_group(val, &o->srv.admin_gid);
		o->srv.admin_group = !bad;
	} else if (!strcmp(name, "socket-group")) {
		bad = parse_group(val, &o->srv.socket_gid);
		o->srv.socket_group = !bad;
	} else if (!strcmp(name, "socket-mode"))
		bad = parse_mode(val, &o->srv.socket_mode);
	else if (!strcmp(name, "watchdog-factor"))
		bad = parse_uint(val, &c->watchdog_factor);
	else if (!strcmp(name, "watchdog-floor-ms"))
		bad = parse_uint(val, &c->watchdog_floor_ms);
	else if (!strcmp(name, "device-retry-ms"))
		bad = parse_uint(val, &c->device_retry_ms);
	else if (!strcmp(name, "output-retry-max-ms"))
		bad = parse_uint(val, &c->output_retry_max_ms);
	else if (!strcmp(name, "retain"))
		bad = parse_duration(val, &c->retain_s);
	else if (!strcmp(name, "witness-timeout"))
		bad = parse_ms(val, &c->witness_timeout_ms);
	else if (!strcmp(name, "max-conns-per-uid")) {
		bad = parse_uint(val, &o->srv.max_conns_per_uid) || o->srv.max_conns_per_uid > CZ_CTL_MAX_CONN;
		o->srv.max_conns_per_uid_default = false;
	} else if (!strncmp(name, "fleet", 5))
		bad = set_fleet_opt(o, name, val, copy);
	else if (!strcmp(name, "load")) {
		if (o->nloads == MAX_LOADS) {
			fprintf(stderr, "cuzkd: --load %s: at most %d keys at start\n", val, MAX_LOADS);
			return -1;
		}
		bad = !strchr(val, '=') || !(o->loads[o->nloads++] = keep(o, val, 1));
	} else {
		fprintf(stderr, "cuzkd: unknown option '%s'\n", name);
		return -1;
	}
	if (bad) {
		const char *want = opt_want(name);
		fprintf(stderr, "cuzkd: bad value for --%s: '%s' (expected %s)\n", name, val, want);
	}
	return bad ? -1 : 0;
}

/* The config file is a JSON object of the same names: {"backend": "cpu", ...}. */
static int load_config(struct opts *o, const char *path)
{
	json_object *c = json_object_from_file(path);
	if (!c || !json_object_is_type(c, json_type_object)) {
		fprintf(stderr, "cuzkd: %s: %s\n", path, c ? "not a JSON object" : json_util_get_last_err());
		json_object_put(c);
		return -1;
	}
	int rc = 0;
	json_object_object_foreach(c, k, v) {
		if (json_object_is_type(v, json_type_array)) {
			for (size_t i = 0; i < json_object_array_length(v) && !rc; i++)
				rc = set_opt(o, k, json_object_get_string(json_object_array_get_idx(v, i)), 1);
		} else if (!rc) {
			rc = set_opt(o, k, json_object_get_string(v), 1);
		}
	}
	json_object_put(c);
	if (rc)
		fprintf(stderr, "cuzkd: in config file %s\n", path);
	return rc;
}

static int parse_args(struct opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "socket", 1, 0, 0 }, { "state-dir", 1, 0, 0 }, { "backend", 1, 0, 0 },
		{ "devices", 1, 0, 0 }, { "consumers-per-device", 1, 0, 0 },
		{ "synth-workers", 1, 0, 0 }, { "finalizers", 1, 0, 0 }, { "device-threads", 1, 0, 0 }, { "mem-budget", 1, 0, 0 },
		{ "fixed-tables", 1, 0, 0 },
		{ "null-delay-ms", 1, 0, 0 }, { "null-synth-ms", 1, 0, 0 }, { "load", 1, 0, 0 },
		{ "idle-timeout", 1, 0, 0 }, { "read-timeout", 1, 0, 0 }, { "max-conns-per-uid", 1, 0, 0 },
		{ "isolation", 1, 0, 0 }, { "retain", 1, 0, 0 }, { "witness-timeout", 1, 0, 0 }, { "null-fault", 1, 0, 0 }, { "null-fault-part", 1, 0, 0 },
		{ "config", 1, 0, 0 }, { "topology", 1, 0, 0 }, { "device-nodes", 1, 0, 0 },
		{ "max-queued-partitions", 1, 0, 0 }, { "admin-group", 1, 0, 0 }, { "socket-group", 1, 0, 0 },
		{ "socket-mode", 1, 0, 0 }, { "fleet", 1, 0, 0 }, { "fleet-lease-ms", 1, 0, 0 },
		{ "fleet-timeout-ms", 1, 0, 0 }, { "fleet-retain-s", 1, 0, 0 }, { "fleet-notify", 1, 0, 0 },
		{ "watchdog-factor", 1, 0, 0 }, { "watchdog-floor-ms", 1, 0, 0 },
		{ "device-retry-ms", 1, 0, 0 }, { "output-retry-max-ms", 1, 0, 0 },
		{ "print-placement", 0, 0, 'P' }, { "metrics-listen", 1, 0, 0 }, { "metrics-auth", 1, 0, 0 },
		{ "metrics-max-conns", 1, 0, 0 },
		{ "help", 0, 0, 'h' }, { 0, 0, 0, 0 },
	};
	int idx, ch;
	while ((ch = getopt_long(argc, argv, "h", lo, &idx)) != -1) {
		if (ch == 'h') {
			usage(stdout);
			exit(0);
		}
		if (ch == 'P') {
			o->print_placement = 1;
			continue;
		}
		if (ch != 0)
			return -1;
		int rc = !strcmp(lo[idx].name, "config") ? load_config(o, optarg) : set_opt(o, lo[idx].name, optarg, 0);
		if (rc)
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "cuzkd: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	char err[256];
	if (o->print_placement && !o->cfg.state_dir)
		o->cfg.state_dir = "-";         /* not used: nothing is started */
	if (cz_engine_config_check(&o->cfg, err, sizeof(err))) {
		fprintf(stderr, "cuzkd: %s\n", err);
		return -1;
	}
	return 0;
}

static json_object *handle(void *ctx, json_object *req, int *fds, int nfds, struct cz_ctl_peer *peer)
{
	return cz_engine_request(ctx, req, fds, nfds, peer);
}

static void hangup(void *ctx)
{
	cz_engine_wake(ctx);
}

static int preload(struct cz_engine *e, struct opts *o)
{
	for (int i = 0; i < o->nloads; i++) {
		char *eq = strchr(o->loads[i], '='), phase[128];
		*eq = 0;
		snprintf(phase, sizeof(phase), "loading keys given at start: %d of %d (%s)", i + 1, o->nloads,
			 o->loads[i]);
		cz_engine_set_phase(e, phase);
		json_object *req = json_object_new_object();
		json_object_object_add(req, "op", json_object_new_string("load"));
		json_object_object_add(req, "name", json_object_new_string(o->loads[i]));
		json_object_object_add(req, "zkey", json_object_new_string(eq + 1));
		json_object *r = cz_engine_request(e, req, NULL, 0, NULL);
		json_object *ok = json_object_object_get(r, "ok");
		int good = ok && json_object_get_boolean(ok);
		if (!good)
			fprintf(stderr, "cuzkd: --load %s: %s\n", o->loads[i],
				json_object_get_string(json_object_object_get(r, "error")));
		json_object_put(req);
		json_object_put(r);
		if (!good)
			return -1;
	}
	return 0;
}

/* --fleet: after the keys load, so the node registers the circuits it has. */
static int fleet_join(struct cz_engine *e, struct opts *o)
{
	char err[512];
	if (!o->fleet.url)
		return 0;
	cz_engine_set_phase(e, "joining the fleet");
	if (cz_engine_fleet_join(e, &o->fleet, err, sizeof(err))) {
		fprintf(stderr, "cuzkd: --fleet: %s\n", err);
		return -1;
	}
	return 0;
}

/* --print-placement: the plan only: no device opened, no memory reserved, no socket. */
static int print_plan(struct opts *o)
{
	char err[512] = "";
	struct cz_place *p = cz_engine_place_plan(&o->cfg, err, sizeof(err));
	if (!p) {
		fprintf(stderr, "cuzkd: %s\n", err);
		return 1;
	}
	json_object *j = cz_place_json(p);
	printf("%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
						      JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(j);
	cz_place_free(p);
	return 0;
}

/* The descriptors we are allowed: the soft limit up to the hard one. */
static void raise_nofile(void)
{
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	char path[256], err[512] = "";
	sigset_t sigs;

	/* A device child (engine/device/devproc.c): cuzkd re-executed by itself. */
	if (argc > 1 && !strcmp(argv[1], "--device-child"))
		return cz_devproc_child_main(argc, argv);
	cuzkd_defaults(&o.cfg);
	o.srv.hangup = hangup;
	o.srv.max_conns_per_uid_default = true;         /* fair unless --max-conns-per-uid says */
	if (parse_args(&o, argc, argv)) {
		usage(stderr);
		return 2;
	}
	if (!o.socket)
		o.socket = cz_ctl_default_path(path, sizeof(path));
	if (o.print_placement)
		return print_plan(&o);

	/* Signals go to this thread only, by sigwait; every other thread blocks them. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* Every accepted partition holds its witness descriptor until it is
	 * read: take the descriptors we are allowed (the soft limit up to the
	 * hard one; cuzkd uses poll, never select), before the engine derives
	 * --max-queued-partitions from them (engine/pipeline/admit.c). */
	raise_nofile();
	struct cz_engine *e = cz_engine_create(&o.cfg, err, sizeof(err));
	if (!e) {
		fprintf(stderr, "cuzkd: %s\n", err);
		return 1;
	}
	/* Before the keys load, so /readyz says what it waits for meanwhile. */
	struct cz_http *http = NULL;
	if (o.metrics_listen) {
		http = cz_http_start(e, o.metrics_listen, o.metrics_auth, o.metrics_max_conns, err, sizeof(err));
		if (!http) {
			fprintf(stderr, "cuzkd: %s\n", err);
			cz_engine_destroy(e);
			return 2;
		}
		fprintf(stderr, "cuzkd: metrics on %s (/metrics, /status, /healthz, /readyz, /)\n",
			o.metrics_listen);
	}
	if (o.fleet.url)
		cz_engine_fleet_drop_stale(e);  /* before the keys load: none of them queued */
	if (preload(e, &o) || fleet_join(e, &o)) {
		cz_http_stop(http);
		cz_engine_destroy(e);
		return 1;
	}
	cz_engine_set_phase(e, "starting the control socket");
	struct cz_ctl_server *s = cz_ctl_server_start(o.socket, handle, e, &o.srv, err, sizeof(err));
	if (!s) {
		fprintf(stderr, "cuzkd: %s\n", err);
		cz_http_stop(http);
		cz_engine_destroy(e);
		return 1;
	}
	cz_engine_set_phase(e, NULL);
	cuzkd_notify_ready(e);
	fprintf(stderr, "cuzkd: listening on %s (backend %s, budget %llu bytes, state %s)\n", o.socket,
		o.cfg.backend, (unsigned long long)o.cfg.mem_budget, o.cfg.state_dir);
	int sig = 0;
	sigwait(&sigs, &sig);
	fprintf(stderr, "cuzkd: %s: stopping\n", strsignal(sig));
	cz_engine_set_phase(e, "stopping");
	cuzkd_notify_stopping();
	cz_engine_stop(e);
	cz_ctl_server_stop(s);
	cz_http_stop(http);
	cz_engine_destroy(e);
	struct stat st;   /* ours to remove only while it is still a socket */
	if (lstat(o.socket, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(o.socket);
	fprintf(stderr, "cuzkd: stopped\n");
	for (size_t i = 0; i < o.nowned; i++)
		free(o.owned[i]);
	free(o.owned);
	return 0;
}
