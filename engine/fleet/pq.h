/* SPDX-License-Identifier: MIT */
/*
 * engine/fleet/pq.h — libpq, loaded when it is first needed, not at program
 * start.  Private to the fleet room and to `cuzk bench fleet`.
 *
 * Why: linked, libpq and what it pulls in (Kerberos, LDAP, GnuTLS: some 20
 * libraries) cost every process that links libcuzk.a ~5 ms of start-up
 * (measured on a 2-core AMD EPYC VM: an empty program 0.8 ms, linked with
 * -lpq 5.8 ms), and a one-shot `cuzk prove` pays it for nothing.  So
 * nothing links it: cz_pq_load() dlopens libpq.so.5 (Debian's libpq5, the
 * ABI of every libpq since 8.x) once, at the first cz_fleet_open, and
 * resolves the functions this tree calls into cz_pq.  Including this header
 * after <libpq-fe.h> turns each PQ call into a call through that table (an
 * object-like macro per name), so the code reads as plain libpq.
 * A machine without libpq5 fails --fleet with the loader's message, naming
 * the file; everything else runs as before.
 */
#ifndef CZ_FLEET_PQ_H
#define CZ_FLEET_PQ_H

#include <libpq-fe.h>
#include <stddef.h>

#define CZ_PQ_SONAME "libpq.so.5"

#define CZ_PQ_FUNCS(X)                                                                    \
	X(PQbackendPID) X(PQcancel) X(PQclear) X(PQconnectPoll) X(PQconnectStartParams)    \
	X(PQconnectdb) X(PQconsumeInput) X(PQerrorMessage) X(PQexec) X(PQfformat)          \
	X(PQfinish) X(PQflush) X(PQfreeCancel) X(PQfreemem) X(PQgetCancel) X(PQgetResult)  \
	X(PQgetisnull) X(PQgetlength) X(PQgetvalue) X(PQisBusy) X(PQnotifies) X(PQntuples) \
	X(PQresultErrorField) X(PQresultErrorMessage) X(PQresultStatus) X(PQsendPrepare)   \
	X(PQsendQuery) X(PQsendQueryParams) X(PQsendQueryPrepared) X(PQsetNoticeProcessor) \
	X(PQsetnonblocking) X(PQsocket) X(PQstatus) X(PQtransactionStatus)

struct cz_pq_table {
#define CZ_PQ_MEMBER(f) __typeof__(f) *f;
	CZ_PQ_FUNCS(CZ_PQ_MEMBER)
#undef CZ_PQ_MEMBER
};

extern struct cz_pq_table cz_pq;        /* filled by cz_pq_load */

/* 0 once every function is resolved (the library is loaded at most once,
 * thread-safely; later calls only report the first outcome), or -1 with
 * err naming the library and the loader's reason. */
int cz_pq_load(char *err, size_t cap);

#ifndef CZ_PQ_NO_MACROS
#define PQbackendPID (cz_pq.PQbackendPID)
#define PQcancel (cz_pq.PQcancel)
#define PQclear (cz_pq.PQclear)
#define PQconnectPoll (cz_pq.PQconnectPoll)
#define PQconnectStartParams (cz_pq.PQconnectStartParams)
#define PQconnectdb (cz_pq.PQconnectdb)
#define PQconsumeInput (cz_pq.PQconsumeInput)
#define PQerrorMessage (cz_pq.PQerrorMessage)
#define PQexec (cz_pq.PQexec)
#define PQfformat (cz_pq.PQfformat)
#define PQfinish (cz_pq.PQfinish)
#define PQflush (cz_pq.PQflush)
#define PQfreeCancel (cz_pq.PQfreeCancel)
#define PQfreemem (cz_pq.PQfreemem)
#define PQgetCancel (cz_pq.PQgetCancel)
#define PQgetResult (cz_pq.PQgetResult)
#define PQgetisnull (cz_pq.PQgetisnull)
#define PQgetlength (cz_pq.PQgetlength)
#define PQgetvalue (cz_pq.PQgetvalue)
#define PQisBusy (cz_pq.PQisBusy)
#define PQnotifies (cz_pq.PQnotifies)
#define PQntuples (cz_pq.PQntuples)
#define PQresultErrorField (cz_pq.PQresultErrorField)
#define PQresultErrorMessage (cz_pq.PQresultErrorMessage)
#define PQresultStatus (cz_pq.PQresultStatus)
#define PQsendPrepare (cz_pq.PQsendPrepare)
#define PQsendQuery (cz_pq.PQsendQuery)
#define PQsendQueryParams (cz_pq.PQsendQueryParams)
#define PQsendQueryPrepared (cz_pq.PQsendQueryPrepared)
#define PQsetNoticeProcessor (cz_pq.PQsetNoticeProcessor)
#define PQsetnonblocking (cz_pq.PQsetnonblocking)
#define PQsocket (cz_pq.PQsocket)
#define PQstatus (cz_pq.PQstatus)
#define PQtransactionStatus (cz_pq.PQtransactionStatus)
#endif

#endif
