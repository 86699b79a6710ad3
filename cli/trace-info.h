/* SPDX-License-Identifier: MIT */
/*
 * trace-info.h - the file `cudatrace record` keeps in each trace directory
 * it makes (cudatrace.info): what was run, when, how it ended, and the
 * numbers `cudatrace list` shows, so that listing traces does not mean
 * reading them all. A trace without it (made by hand, or by a record that
 * was killed) is read instead.
 *
 * The format is one key=value per line (documented in cudatrace-record(1));
 * unknown keys are ignored, so that it can grow.
 */
#ifndef CUDATRACE_CLI_TRACE_INFO_H
#define CUDATRACE_CLI_TRACE_INFO_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "findings/death.h"

#define TRACE_INFO_FILE "cudatrace.info"

enum trace_end {
	TRACE_RUNNING = 0, /* no end recorded: still running, or its recorder died */
	TRACE_EXITED,      /* the program exited, with end_code */
	TRACE_KILLED,      /* the program was killed by signal end_code */
	TRACE_ABANDONED,   /* its recorder died; the session was closed later */
};

/*
 * Why a trace lacks part of what its program did (cudatrace.info's
 * incomplete=...). Everything before the cut is in it and readable.
 */
enum trace_cut {
	TRACE_CUT_NONE = 0,
	TRACE_CUT_CONSUMER_DIED, /* LTTng's consumer daemon died while the program ran */
	TRACE_CUT_DAEMON_DIED,   /* the session daemon died while the program ran */
	TRACE_CUT_DISK_FULL,     /* the trace's file system filled up */
	TRACE_CUT_PARTIAL,       /* the trace ended in partial packets, for a reason unknown */
	TRACE_CUT_SESSION_LOST,  /* its recorder died, and then its session daemon: never closed */
	TRACE_CUT_DAEMON_STUCK,  /* the session daemon stopped answering before it closed it */
};

struct trace_info {
	char session[256];
	char mode[16]; /* local, snapshot */
	char host[256];
	char program[256];  /* the program's name, as run */
	char command[1024]; /* the command line, for people */
	long long start_ns; /* CLOCK_REALTIME; 0 if unknown */
	long long end_ns;
	int recorder_pid;
	int pid; /* the program's; 0 until started */
	enum trace_end end;
	int end_code;
	bool has_counts; /* events is known */
	uint64_t events;
	/* Events LTTng discarded and packets lost, as the trace's packet headers count them. */
	bool discarded_known;
	uint64_t discarded, lost_packets;
	bool has_summary;
	uint64_t peak_bytes; /* the highest peak of any process and device */
	uint64_t failures;   /* allocation failures */
	/* Written once the trace is known whole or cut (complete=true|false). */
	bool has_complete;
	bool complete;
	enum trace_cut cut; /* why not complete */
	long long cut_ns;   /* CLOCK_REALTIME when the cut was seen; 0 if unknown */
	uint64_t cut_bytes; /* bytes of partial packets removed from the trace's files */
	/*
	 * Why it ended (death=, as findings/death.h judges it: CT_DEATH_NOT_JUDGED
	 * when no judgement was written), and the facts the judgement rests on.
	 */
	enum ct_death death;
	char cgroup[PATH_MAX]; /* its memory cgroup's directory, "" if none was found */
	int cgroup_version;    /* 1 or 2; 0: none */
	int oom_kills; /* processes of that cgroup the OOM killer killed while it ran; -1 unknown */
	int oom_logged; /* the kernel log names it as killed: 1, not found 0, unreadable -1 */
	uint64_t host_rss_bytes; /* its last resident host memory seen; 0 unknown */
	uint64_t host_rss_peak_bytes;
	/* the most anonymous memory (RssAnon) seen: what its cgroup is charged; 0 unknown */
	uint64_t host_anon_peak_bytes;
	uint64_t host_limit_bytes; /* the cgroup's limit, else the machine's memory; 0 unknown */
	bool host_limit_cgroup;    /* host_limit_bytes is the cgroup's */
	char cuda_error[64];       /* the sticky error's name, "" if none */
	char cuda_error_api[128];  /* the call that returned it */
	uint64_t gpu_failed_bytes; /* the last failed GPU allocation's size, 0 if none */
	char gpu_verdict[32];      /* and its verdict */
	char exception[128];       /* the uncaught Python exception it died of, "" if none */
	char exception_site[256];  /* where: "train.py:12 in step" */
	char exception_message[256];
	/*
	 * The framework that said on its standard error that it ran out of
	 * GPU memory (stderr.log, common/last-words.h; its label, "" if
	 * none), and what it tried to allocate.
	 */
	char framework_oom[16];
	uint64_t framework_oom_bytes;
	/* The driver the program would load, as the recorder found it before
	 * starting the program (driver_cuda=, driver_path=): a program whose
	 * runtime refuses the driver leaves no trace that says it. */
	int driver_cuda;        /* cuDriverGetVersion's: 12020; 0 if unknown */
	char driver_path[1024]; /* libcuda.so.1 as the dynamic linker found it */
	/* Where the program's CUDA libraries are expected to come from
	 * (cuda-places.h), ':'-separated (library_places=). */
	char library_places[4096];
};

/*
 * Writes DIR/cudatrace.info in one step (a new file renamed over the
 * old), mode 0600. On a file system with no room left for a new file, the
 * old one is rewritten in place instead: each write reserves 4 KiB of
 * room for it, so that how a trace was cut by a full disk can still be
 * written beside it. 0 or -1 (errno set).
 */
int trace_info_write(const char *dir, const struct trace_info *info);

/* Reads DIR/cudatrace.info into INFO. 0, or -1 when there is none or it cannot be read. */
int trace_info_read(const char *dir, struct trace_info *info);

/* The word for CUT in cudatrace.info ("consumer-died", ...), "" for TRACE_CUT_NONE. */
const char *trace_info_cut_name(enum trace_cut cut);

/* What cut the trace, for people: "LTTng's consumer daemon died", ... */
const char *trace_info_cut_reason(enum trace_cut cut);

/*
 * Whether the `cudatrace record` that writes INFO's trace may still run:
 * its pid is alive on this host, or the trace is another host's (which
 * cannot be told, so taken as running).
 */
bool trace_info_recorder_running(const struct trace_info *info);

/* ARGV joined into a command line for people, shell-quoted where needed, into BUF. */
void trace_info_format_command(char *const argv[], char *buf, size_t len);

#endif
