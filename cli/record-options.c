/* SPDX-License-Identifier: MIT */
/*
 * record-options.c - parsing and checking the command line of
 * `cudatrace record`, and its --help. Options stop at the first word that
 * is not one (or at "--"): everything after it is the command.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arg-check.h"
#include "contract/events.h"
#include "diag.h"
#include "record-options.h"

enum {
	OPT_TRACE_DIR = 256,
	OPT_NAME,
	OPT_RELAYD,
	OPT_LIVE,
	OPT_FLIGHT,
	OPT_NO_API,
	OPT_NO_NVTX,
	OPT_NO_PYTHON_PROBE,
	OPT_TENSOR_SITES,
	OPT_ACTIVITY,
	OPT_NO_ACTIVITY,
	OPT_NVML_PERIOD,
	OPT_FLUSH_PERIOD,
	OPT_ACTIVITY_BUFFER,
	OPT_SUBBUF_SIZE,
	OPT_NUM_SUBBUF,
	OPT_BLOCKING,
	OPT_LIBRARY,
	OPT_SESSIOND_TIMEOUT,
	OPT_NO_REPORT,
	OPT_ALL_PROCESSES,
	OPT_NO_STDERR,
};

static const struct option long_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "trace-dir", required_argument, NULL, OPT_TRACE_DIR },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "relayd", required_argument, NULL, OPT_RELAYD },
	{ "live", optional_argument, NULL, OPT_LIVE },
	{ "flight-recorder", optional_argument, NULL, OPT_FLIGHT },
	{ "no-api", no_argument, NULL, OPT_NO_API },
	{ "no-nvtx", no_argument, NULL, OPT_NO_NVTX },
	{ "no-python-probe", no_argument, NULL, OPT_NO_PYTHON_PROBE },
	{ "tensor-sites", no_argument, NULL, OPT_TENSOR_SITES },
	{ "activity", required_argument, NULL, OPT_ACTIVITY },
	{ "no-activity", no_argument, NULL, OPT_NO_ACTIVITY },
	{ "nvml-period", required_argument, NULL, OPT_NVML_PERIOD },
	{ "flush-period", required_argument, NULL, OPT_FLUSH_PERIOD },
	{ "activity-buffer", required_argument, NULL, OPT_ACTIVITY_BUFFER },
	{ "subbuf-size", required_argument, NULL, OPT_SUBBUF_SIZE },
	{ "num-subbuf", required_argument, NULL, OPT_NUM_SUBBUF },
	{ "blocking", optional_argument, NULL, OPT_BLOCKING },
	{ "library", required_argument, NULL, OPT_LIBRARY },
	{ "sessiond-timeout", required_argument, NULL, OPT_SESSIOND_TIMEOUT },
	{ "no-report", no_argument, NULL, OPT_NO_REPORT },
	{ "all-processes", no_argument, NULL, OPT_ALL_PROCESSES },
	{ "no-stderr", no_argument, NULL, OPT_NO_STDERR },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void print_help(void)
{
	fputs("Usage: cudatrace record [OPTION]... [--] COMMAND [ARG]...\n"
	      "Run COMMAND with every CUDA allocation, copy, launch and NVTX range traced\n"
	      "into an LTTng trace, then print a short report. Exits with COMMAND's status.\n"
	      "\n"
	      "Where the trace goes:\n"
	      "  -o, --output=DIR          write the trace to DIR (new or empty)\n"
	      "      --trace-dir=DIR       create the trace directory, named by date and\n"
	      "                            time, in DIR (default: the current directory)\n"
	      "      --name=NAME           name of the tracing session (cudatrace-NAME)\n"
	      "      --relayd=URL          stream the trace to an lttng-relayd at URL\n"
	      "                            (net://HOST[:CTRL_PORT[:DATA_PORT]])\n"
	      "      --live[=MS]           stream for live reading with `cudatrace report\n"
	      "                            --live`, every MS ms (default 1000); the relay\n"
	      "                            daemon defaults to net://127.0.0.1\n"
	      "      --flight-recorder[=SIZE]\n"
	      "                            keep only the newest SIZE of events in memory\n"
	      "                            (default 64M, over both channels); write them\n"
	      "                            when an allocation first fails and when COMMAND\n"
	      "                            ends (to the relay daemon with --relayd)\n"
	      "\n"
	      "What is traced:\n"
	      "      --no-api              leave out api_call/api_entry (calls without a\n"
	      "                            semantic event, failed ones); allocations,\n"
	      "                            copies and launches stay, with their calls' times\n"
	      "      --activity=KINDS      GPU activity: all (default), none, or a list of\n"
	      "                            kernel,memcpy,memset,memory,memory_pool,sync,\n"
	      "                            device,overhead\n"
	      "      --no-activity         no GPU activity (same as --activity=none)\n"
	      "      --no-nvtx             do not trace NVTX ranges and marks\n"
	      "      --no-python-probe     no probe in Python processes (their uncaught\n"
	      "                            exception, their framework's memory figures)\n"
	      "      --tensor-sites        PyTorch's allocation history, for the Python\n"
	      "                            lines its tensors were allocated at (at an\n"
	      "                            out-of-memory error, its peak, exit); slows\n"
	      "                            each allocation of a tensor\n"
	      "      --all-processes       record every process of the user that loads the\n"
	      "                            tracer (other records' programs too), not only\n"
	      "                            COMMAND and its descendants\n"
	      "      --nvml-period=MS      sample device memory with NVML every MS ms\n"
	      "      --flush-period=MS     hand GPU activity to the trace every MS ms\n"
	      "\n"
	      "Buffers (two channels, each of these sizes: cudatrace, the program's\n"
	      "events with vpid and vtid; cudatrace-gpu, GPU activity with vpid):\n"
	      "      --subbuf-size=SIZE    LTTng sub-buffer size, a power of 2 (default 1M)\n"
	      "      --num-subbuf=N        sub-buffers per CPU and channel, a power of 2\n"
	      "                            (default 8)\n"
	      "      --activity-buffer=SIZE  CUPTI activity buffer size\n"
	      "      --blocking[=MS]       COMMAND waits for room when the buffers are full,\n"
	      "                            up to MS ms per event (default 1000), rather\n"
	      "                            than have events discarded at once\n"
	      "\n"
	      "Other:\n"
	      "      --library=PATH        the tracing library (default: the installed\n"
	      "                            libcudatrace.so, or $CUDATRACE_LIB)\n"
	      "      --sessiond-timeout=S  how long a session daemon started by cudatrace\n"
	      "                            has to answer (default 10 s)\n"
	      "      --no-report           do not print the short report at the end\n"
	      "      --no-stderr           leave COMMAND's standard error alone: neither\n"
	      "                            passed through cudatrace nor kept in DIR/stderr.log\n"
	      "  -q, --quiet               print errors only\n"
	      "  -h, --help                show this help\n"
	      "\n"
	      "SIZE takes a K, M or G suffix. Exit status: COMMAND's, 128+N when it was\n"
	      "killed by signal N, 2 when the trace could not be set up (COMMAND not run).\n"
	      "See cudatrace-record(1).\n",
	      stdout);
}

/* A decimal number with an optional K, M or G suffix (powers of 1024). */
static int parse_size(const char *s, uint64_t *out)
{
	unsigned long long value;
	char *end;
	int shift = 0;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	value = strtoull(s, &end, 10);
	if (errno)
		return -1;
	if (*end == 'k' || *end == 'K')
		shift = 10;
	else if (*end == 'm' || *end == 'M')
		shift = 20;
	else if (*end == 'g' || *end == 'G')
		shift = 30;
	if (shift)
		end++;
	if (*end == 'i' && shift)
		end++;
	if (*end == 'B' && shift)
		end++;
	if (*end != '\0' || value > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)value << shift;
	return 0;
}

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
	unsigned long value;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	value = strtoul(s, &end, 10);
	if (errno || *end != '\0' || value > max)
		return -1;
	*out = (unsigned)value;
	return 0;
}

static bool power_of_two(uint64_t v)
{
	return v && (v & (v - 1)) == 0;
}

/* The grammar of CUDATRACE_ACTIVITY, checked here so that a typo stops before the run. */
static bool valid_activity(const char *s)
{
	static const char *const words[] = { "all", "none", "on", "off",  "1",
		                             "0",   "yes",  "no", "true", "false" };
	char buf[256];
	char *save = NULL;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strcasecmp(s, words[i]) == 0)
			return true;
	}
	/* A list of known kinds, none of them empty ("kernel,,memcpy", ","). */
	if (!*s || strlen(s) >= sizeof(buf) || s[0] == ',' || s[strlen(s) - 1] == ',' ||
	    strstr(s, ",,"))
		return false;
	strcpy(buf, s);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!ct_activity_bit(tok))
			return false;
	}
	return true;
}

/*
 * --name: the session is named cudatrace-NAME, which is also a file name
 * (the stale-session notes) and part of the snapshot trigger's name.
 */
static bool valid_session_name(const char *name)
{
	size_t len = strlen(name);

	return len > 0 && len <= RECORD_NAME_MAX && strcmp(name, ".") != 0 &&
	       strcmp(name, "..") != 0 &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
	           len;
}

static enum record_parse_result usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static enum record_parse_result usage(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	diag_error("%s (see cudatrace record --help)", msg);
	return RECORD_PARSE_USAGE;
}

static enum record_parse_result parse_one(int c, const char *arg, struct record_options *o)
{
	unsigned ms;

	switch (c) {
	case 'o':
		o->output = arg;
		break;
	case OPT_TRACE_DIR:
		o->trace_dir = arg;
		break;
	case OPT_NAME:
		if (!valid_session_name(arg))
			return usage(
			    "--name=%s: a session name holds letters, digits, '.', '_' and "
			    "'-' only, %d at most",
			    arg, RECORD_NAME_MAX);
		o->name = arg;
		break;
	case OPT_RELAYD:
		o->relayd = arg;
		break;
	case OPT_LIVE:
		o->live = true;
		if (arg && (parse_uint(arg, 3600000, &ms) < 0 || ms == 0))
			return usage("--live=%s: give the period in ms, from 1 to 3600000", arg);
		if (arg)
			o->live_period_ms = ms;
		break;
	case OPT_FLIGHT:
		o->flight_recorder = true;
		if (arg && (parse_size(arg, &o->flight_size) < 0 || o->flight_size < (64u << 10)))
			return usage("--flight-recorder=%s: give a size of at least 64K", arg);
		break;
	case OPT_NO_API:
		o->no_api = true;
		break;
	case OPT_NO_NVTX:
		o->no_nvtx = true;
		break;
	case OPT_NO_PYTHON_PROBE:
		o->no_python_probe = true;
		break;
	case OPT_TENSOR_SITES:
		o->tensor_sites = true;
		break;
	case OPT_ACTIVITY:
		if (!valid_activity(arg))
			return usage("--activity=%s: give all, none, or a comma-separated list of "
			             "kernel, memcpy, memset, memory, memory_pool, sync, device, "
			             "overhead",
			             arg);
		o->activity = arg;
		break;
	case OPT_NO_ACTIVITY:
		o->activity = "none";
		break;
	case OPT_NVML_PERIOD:
		if (parse_uint(arg, 3600000, &ms) < 0)
			return usage("--nvml-period=%s: give a period in ms (0: off)", arg);
		o->nvml_period_ms = arg;
		break;
	case OPT_FLUSH_PERIOD:
		if (parse_uint(arg, 3600000, &ms) < 0)
			return usage("--flush-period=%s: give a period in ms (0: only at the end)",
			             arg);
		o->flush_period_ms = arg;
		break;
	case OPT_ACTIVITY_BUFFER: {
		uint64_t size;

		if (parse_size(arg, &size) < 0 || size < (64u << 10) || size > (256u << 20))
			return usage("--activity-buffer=%s: give a size from 64K to 256M", arg);
		o->activity_buffer = arg;
		break;
	}
	case OPT_SUBBUF_SIZE:
		if (parse_size(arg, &o->subbuf_size) < 0 || !power_of_two(o->subbuf_size) ||
		    o->subbuf_size < 4096 || o->subbuf_size > RECORD_SUBBUF_SIZE_MAX)
			return usage("--subbuf-size=%s: give a power of 2 from 4K to 1G", arg);
		break;
	case OPT_NUM_SUBBUF:
		if (parse_size(arg, &o->num_subbuf) < 0 || !power_of_two(o->num_subbuf) ||
		    o->num_subbuf < 2 || o->num_subbuf > RECORD_NUM_SUBBUF_MAX)
			return usage("--num-subbuf=%s: give a power of 2 from 2 to %u", arg,
			             RECORD_NUM_SUBBUF_MAX);
		break;
	case OPT_BLOCKING:
		o->blocking = true;
		if (arg && (parse_uint(arg, RECORD_BLOCKING_MAX_MS, &ms) < 0 || ms == 0))
			return usage(
			    "--blocking=%s: give the longest an event may wait for room, in "
			    "ms, from 1 to %u",
			    arg, RECORD_BLOCKING_MAX_MS);
		if (arg)
			o->blocking_ms = ms;
		break;
	case OPT_LIBRARY:
		o->library = arg;
		break;
	case OPT_SESSIOND_TIMEOUT:
		if (parse_uint(arg, 600, &o->sessiond_timeout_s) < 0 || o->sessiond_timeout_s == 0)
			return usage("--sessiond-timeout=%s: give seconds, from 1 to 600", arg);
		break;
	case OPT_NO_REPORT:
		o->no_report = true;
		break;
	case OPT_ALL_PROCESSES:
		o->all_processes = true;
		break;
	case OPT_NO_STDERR:
		o->no_stderr = true;
		break;
	case 'q':
		o->quiet = true;
		break;
	default:
		return RECORD_PARSE_USAGE;
	}
	return RECORD_PARSE_OK;
}

/* Paths the system could not take: refused now, by the option that gave them. */
static enum record_parse_result check_paths(const struct record_options *o)
{
	if (o->output && arg_check_path("-o", o->output, RECORD_OUTPUT_RESERVE) < 0)
		return RECORD_PARSE_USAGE;
	if (o->trace_dir &&
	    arg_check_path("--trace-dir", o->trace_dir, RECORD_OUTPUT_RESERVE + 32) < 0)
		return RECORD_PARSE_USAGE;
	if (o->library && arg_check_path("--library", o->library, 0) < 0)
		return RECORD_PARSE_USAGE;
	return RECORD_PARSE_OK;
}

/* Combinations that cannot work. */
static enum record_parse_result check(struct record_options *o)
{
	if (check_paths(o) != RECORD_PARSE_OK)
		return RECORD_PARSE_USAGE;
	if (o->output && o->trace_dir)
		return usage("-o and --trace-dir exclude each other: -o names the trace "
		             "directory itself");
	if (o->live && !o->relayd)
		o->relayd = RECORD_DEFAULT_RELAYD_URL;
	if (o->relayd && (o->output || o->trace_dir))
		return usage("--relayd and --live send the trace to the relay daemon, which "
		             "chooses where it is written: leave out -o and --trace-dir");
	if (o->flight_recorder && o->live)
		return usage("--flight-recorder keeps the trace in memory: it cannot be read "
		             "live");
	if (o->tensor_sites && o->no_python_probe)
		return usage("--tensor-sites asks the Python probe for PyTorch's allocation "
		             "history: it cannot be --no-python-probe");
	if (o->flight_recorder && o->blocking)
		return usage("--flight-recorder overwrites the oldest events: it cannot be "
		             "--blocking");
	return RECORD_PARSE_OK;
}

enum record_parse_result record_options_parse(int argc, char **argv, struct record_options *o)
{
	enum record_parse_result r;
	int c;

	memset(o, 0, sizeof(*o));
	o->subbuf_size = RECORD_SUBBUF_SIZE;
	o->num_subbuf = RECORD_NUM_SUBBUF;
	o->flight_size = RECORD_FLIGHT_SIZE;
	o->live_period_ms = RECORD_LIVE_PERIOD_MS;
	o->sessiond_timeout_s = 10;
	o->blocking_ms = RECORD_BLOCKING_MS;
	/* getopt's own messages go out under the verb's name. */
	argv[0] = (char *)diag_prefix();
	optind = 0;
	while ((c = getopt_long(argc, argv, "+o:qh", long_options, NULL)) != -1) {
		if (c == 'h') {
			print_help();
			return RECORD_PARSE_HELP;
		}
		if (c == '?') {
			fputs("Try 'cudatrace record --help'.\n", stderr);
			return RECORD_PARSE_USAGE;
		}
		r = parse_one(c, optarg, o);
		if (r != RECORD_PARSE_OK)
			return r;
	}
	if (optind >= argc)
		return usage("no command to run: give it after the options, as in "
		             "`cudatrace record -- python3 train.py`");
	o->command_index = optind;
	return check(o);
}
