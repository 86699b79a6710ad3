/* SPDX-License-Identifier: MIT */
/*
 * session.c - the tracing session of `cudatrace record`, through
 * liblttng-ctl.
 *
 * The channels use per-user buffers: they belong to the session daemon's
 * consumer, not to the program, so what a program wrote before it was
 * killed is still there to be written out. A switch timer pushes full
 * sub-buffers to disk every second, so that little is lost if the session
 * daemon itself dies.
 *
 * Two data channels, alike but for their contexts: the GPU group's events
 * (CUPTI's activity records) are written by CUPTI's buffer-completion
 * thread, or by whichever thread flushes, so a vtid would say nothing of
 * the program; their channel has the vpid context only, 4 bytes less per
 * event (doc/events.md, "Size of the trace"). The tracer's own threads'
 * events (nvml_sample, host_memory, device_info, activity_dropped) stay in
 * the host channel: a few per second at most, and one rule, a group per
 * channel, says where every event goes.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lttng/lttng.h>

#include "diag.h"
#include "common/event.h"
#include "session.h"

/* lttng-ust's statedump of the loaded objects (enable_statedump). */
#define STATEDUMP_EVENTS "lttng_ust_statedump:*"

/* How often sub-buffers are pushed out to the trace even when not full. */
#define SWITCH_TIMER_US 1000000u
/*
 * How often the consumer daemon asks for new metadata and writes it out.
 * Without this timer LTTng-UST's consumer writes the metadata only when
 * the session stops: a consumer or session daemon that dies, or a disk
 * that fills, before then leaves an empty metadata file, and no event of
 * the trace can be read. Much shorter than the data's switch timer, so
 * that the metadata of an event is on disk before the packet that holds
 * it, and before a disk that fills fast is full: LTTng 2.13's consumer
 * spins forever, and its session daemon stops answering, when it fails to
 * write metadata while this timer runs (record keeps room for it, see
 * watch.h).
 */
#define METADATA_SWITCH_TIMER_US 100000u

/* The relay daemon of the session being set up, NULL for local sessions. */
static const char *relay_url;
/* Errors are not reported: a fault of LTTng was reported already. */
static bool errors_quiet;

void session_set_quiet(bool quiet)
{
	errors_quiet = quiet;
}

/*
 * liblttng-ctl prints its own error lines on stderr; ours say more, and
 * what to do. Its switch is not in the public headers: set it if it is
 * there.
 */
void session_quiet_library(void)
{
	int *quiet = dlsym(RTLD_DEFAULT, "lttng_opt_quiet");

	if (quiet)
		*quiet = 1;
}

void session_report_error(const char *what, int code)
{
	const char *advice;

	if (errors_quiet)
		return;
	if (code < 0)
		code = -code;
	/*
	 * A session daemon that cannot reach the relay daemon sometimes hangs
	 * up on its client instead of saying so.
	 */
	if (relay_url &&
	    (code == LTTNG_ERR_NO_SESSIOND || code == LTTNG_ERR_CONNECT_FAIL ||
	     code == LTTNG_ERR_FATAL) &&
	    lttng_session_daemon_alive() == 1)
		code = LTTNG_ERR_RELAYD_CONNECT_FAIL;
	switch (code) {
	case LTTNG_ERR_EXIST_SESS:
		advice = "the session name is taken: choose another with --name";
		break;
	case LTTNG_ERR_SESSION_INVALID_CHAR:
		advice = "the session name may hold letters, digits, '-' and '_' only: "
		         "choose another with --name";
		break;
	case LTTNG_ERR_NO_SESSIOND:
	case LTTNG_ERR_CONNECT_FAIL:
	case LTTNG_ERR_FATAL:
		advice = "the LTTng session daemon does not answer (was it stopped or killed?): "
		         "run the command again to start a new one";
		break;
	case LTTNG_ERR_CREATE_DIR_FAIL:
	case LTTNG_ERR_EPERM:
		advice = "the session daemon cannot write the trace directory: choose a "
		         "writable one with -o";
		break;
	case LTTNG_ERR_RELAYD_CONNECT_FAIL:
		diag_error("cannot %s: cannot reach the relay daemon at %s: check that "
		           "lttng-relayd runs there and that its control and data ports are open",
		           what, relay_url ? relay_url : "that address");
		return;
	case LTTNG_ERR_RELAYD_VERSION_FAIL:
		advice = "the relay daemon's version is not compatible with this session "
		         "daemon: use LTTng 2.13 or later on both ends";
		break;
	case LTTNG_ERR_SET_URL:
	case LTTNG_ERR_URL_DATA_MISS:
	case LTTNG_ERR_URL_CTRL_MISS:
		advice = "the relay daemon URL is not valid: write it as net://HOST[:CTRL[:DATA]]";
		break;
	case LTTNG_ERR_NO_UST:
	case LTTNG_ERR_NO_USTCONSUMERD:
	case LTTNG_ERR_UST_CONSUMER64_FAIL:
		advice = "the session daemon cannot trace userspace programs: install LTTng "
		         "tools built with LTTng-UST (Debian: lttng-tools, liblttng-ust1)";
		break;
	case LTTNG_ERR_SNAPSHOT_NODATA:
		advice = "nothing was recorded yet";
		break;
	default:
		advice = lttng_strerror(-code);
		break;
	}
	diag_error("cannot %s: %s", what, advice);
}

static struct lttng_handle *make_handle(const char *name)
{
	struct lttng_domain domain;
	struct lttng_handle *handle;

	memset(&domain, 0, sizeof(domain));
	domain.type = LTTNG_DOMAIN_UST;
	domain.buf_type = LTTNG_BUFFER_PER_UID;
	handle = lttng_create_handle(name, &domain);
	if (!handle)
		diag_error("cannot talk to the LTTng session daemon about session %s: out of "
		           "memory",
		           name);
	return handle;
}

static struct lttng_session_descriptor *make_descriptor(const struct session_config *cfg)
{
	switch (cfg->mode) {
	case SESSION_LOCAL:
		return lttng_session_descriptor_local_create(cfg->name, cfg->output);
	case SESSION_SNAPSHOT:
		if (cfg->url)
			return lttng_session_descriptor_snapshot_network_create(cfg->name, cfg->url,
			                                                        NULL);
		return lttng_session_descriptor_snapshot_local_create(cfg->name, cfg->output);
	case SESSION_NETWORK:
		return lttng_session_descriptor_network_create(cfg->name, cfg->url, NULL);
	case SESSION_LIVE:
		return lttng_session_descriptor_live_network_create(cfg->name, cfg->url, NULL,
		                                                    cfg->live_timer_us);
	}
	return NULL;
}

static int create_session(const struct session_config *cfg)
{
	struct lttng_session_descriptor *desc = make_descriptor(cfg);
	enum lttng_error_code ret;

	if (!desc) {
		/* The descriptor constructors only fail on bad input. */
		if (cfg->mode == SESSION_NETWORK || cfg->mode == SESSION_LIVE)
			diag_error("the relay daemon URL '%s' is not valid: write it as "
			           "net://HOST[:CTRL_PORT[:DATA_PORT]] or tcp://HOST:CTRL_PORT",
			           cfg->url);
		else
			diag_error("cannot create the tracing session %s: invalid name or output "
			           "directory",
			           cfg->name);
		return -1;
	}
	ret = lttng_create_session_ext(desc);
	lttng_session_descriptor_destroy(desc);
	if (ret != LTTNG_OK) {
		session_report_error("create the tracing session", (int)ret);
		return -1;
	}
	return 0;
}

static int enable_channel(struct lttng_handle *handle, const struct session_config *cfg,
                          const char *name)
{
	struct lttng_channel *chan = lttng_channel_create(
	    &(struct lttng_domain){ .type = LTTNG_DOMAIN_UST, .buf_type = LTTNG_BUFFER_PER_UID });
	int ret;

	if (!chan) {
		diag_error("cannot create the %s channel: out of memory", name);
		return -1;
	}
	snprintf(chan->name, sizeof(chan->name), "%s", name);
	chan->attr.subbuf_size = cfg->subbuf_size;
	chan->attr.num_subbuf = cfg->num_subbuf;
	if (cfg->mode == SESSION_SNAPSHOT) {
		/* A flight recorder keeps the newest events: overwrite, mmap output. */
		chan->attr.overwrite = 1;
		chan->attr.output = LTTNG_EVENT_MMAP;
	} else {
		chan->attr.overwrite = 0;
		/* Live sessions set their own timer; others flush every second. */
		if (cfg->mode != SESSION_LIVE)
			chan->attr.switch_timer_interval = SWITCH_TIMER_US;
	}
	/*
	 * Never "forever" (-1): a program whose events wait for a consumer
	 * daemon that died would wait for ever. LTTng-UST counts the wait in
	 * whole milliseconds: under 1 ms is no wait at all.
	 */
	if (cfg->blocking_timeout_us) {
		ret = lttng_channel_set_blocking_timeout(chan, (int64_t)cfg->blocking_timeout_us);
		if (ret < 0) {
			session_report_error("make the channel blocking", ret);
			lttng_channel_destroy(chan);
			return -1;
		}
	}
	ret = lttng_enable_channel(handle, chan);
	lttng_channel_destroy(chan);
	/* The daemon answers, but its consumer died: the caller may use another daemon. */
	if (ret == -LTTNG_ERR_NO_USTCONSUMERD || ret == -LTTNG_ERR_UST_CONSUMER64_FAIL)
		return SESSION_NO_CONSUMER;
	if (ret == -LTTNG_ERR_NOMEM) {
		diag_error("cannot create the %s channel: its buffers (%llu sub-buffers of "
		           "%llu KiB for each of %ld CPUs, in each of %d channels) do not fit in "
		           "memory: give a smaller --subbuf-size or --num-subbuf",
		           name, (unsigned long long)cfg->num_subbuf,
		           (unsigned long long)(cfg->subbuf_size >> 10),
		           sysconf(_SC_NPROCESSORS_CONF), SESSION_DATA_CHANNELS);
		return -1;
	}
	if (ret < 0) {
		char what[64 + LTTNG_SYMBOL_NAME_LEN];

		snprintf(what, sizeof(what), "create the %s channel", name);
		session_report_error(what, ret);
		return -1;
	}
	return 0;
}

/* Both data channels, alike; 0, SESSION_NO_CONSUMER or -1 as enable_channel(). */
static int enable_data_channels(struct lttng_handle *handle, const struct session_config *cfg)
{
	int ret = enable_channel(handle, cfg, SESSION_CHANNEL);

	if (ret == 0)
		ret = enable_channel(handle, cfg, SESSION_GPU_CHANNEL);
	return ret;
}

/*
 * The session's metadata channel ("metadata", a name LTTng reserves for
 * it): LTTng's sizes, and a switch timer so that the metadata is written
 * while the program runs (METADATA_SWITCH_TIMER_US). For local sessions,
 * which write as they go: a flight recorder writes its metadata with each
 * snapshot, a live session with each live timer tick, and a relay daemon
 * that fails to take it would make the consumer spin as a full disk does.
 */
static int enable_metadata_channel(struct lttng_handle *handle, const struct session_config *cfg)
{
	struct lttng_channel *chan;
	long page = sysconf(_SC_PAGESIZE);
	int ret;

	if (cfg->mode != SESSION_LOCAL)
		return 0;
	chan = lttng_channel_create(
	    &(struct lttng_domain){ .type = LTTNG_DOMAIN_UST, .buf_type = LTTNG_BUFFER_PER_UID });
	if (!chan) {
		diag_error("cannot create the metadata channel: out of memory");
		return -1;
	}
	snprintf(chan->name, sizeof(chan->name), "%s", "metadata");
	chan->attr.overwrite = 0;
	chan->attr.subbuf_size = (uint64_t)(page > 0 ? page : 4096);
	chan->attr.num_subbuf = 2;
	chan->attr.switch_timer_interval = METADATA_SWITCH_TIMER_US;
	chan->attr.output = LTTNG_EVENT_MMAP;
	ret = lttng_enable_channel(handle, chan);
	lttng_channel_destroy(chan);
	if (ret == -LTTNG_ERR_NO_USTCONSUMERD || ret == -LTTNG_ERR_UST_CONSUMER64_FAIL)
		return SESSION_NO_CONSUMER;
	if (ret < 0) {
		session_report_error("create the metadata channel", ret);
		return -1;
	}
	return 0;
}

/* "cudatrace:NAME" of each event of the groups in GROUPS, into NAMES; their number. */
static int group_events(uint32_t groups, char names[][LTTNG_SYMBOL_NAME_LEN], char **pointers)
{
	int n = 0;

	for (unsigned t = 1; t < CT_EV_COUNT; t++) {
		if (!(groups & CT_GROUP_BIT(ct_event_type_group((enum ct_event_type)t))))
			continue;
		snprintf(names[n], LTTNG_SYMBOL_NAME_LEN, "%s%s", CT_PROVIDER_PREFIX,
		         ct_event_type_name((enum ct_event_type)t));
		pointers[n] = names[n];
		n++;
	}
	return n;
}

/*
 * lttng-ust's own statedump (lttng-ust(3)): the base address, size, path,
 * build id and debug link of every object loaded in a process when it
 * registers with the session, which the analyzers need to name the
 * addresses of call_stack events. It is enabled without the tree's
 * filter: lttng-ust emits it from its listener thread as soon as the
 * process registers, before the tracer is loaded and has registered the
 * context $app.cudatrace:session, so the filter would drop it. The
 * statedumps of other processes that register with the same daemon meanwhile
 * are recorded too (a few events each); the analyzers use only those of
 * processes that have cudatrace events.
 */
static int enable_statedump(struct lttng_handle *handle, struct lttng_event *ev)
{
	snprintf(ev->name, sizeof(ev->name), "%s", STATEDUMP_EVENTS);
	return lttng_enable_event_with_exclusions(handle, ev, (char *)SESSION_CHANNEL, NULL, 0,
	                                          NULL);
}

/*
 * The GPU channel's events, one by one, named from the contract's GPU
 * group: an event is enabled in one channel only, or it would be written
 * twice.
 */
static int enable_gpu_events(struct lttng_handle *handle, const struct session_config *cfg,
                             struct lttng_event *ev, char *filter)
{
	char names[CT_EV_COUNT][LTTNG_SYMBOL_NAME_LEN];
	char *pointers[CT_EV_COUNT];
	uint32_t gpu = CT_GROUP_BIT(CT_GROUP_GPU) & ~cfg->excluded_groups;
	int count = group_events(gpu, names, pointers);
	int ret = 0;

	for (int i = 0; i < count && ret >= 0; i++) {
		snprintf(ev->name, sizeof(ev->name), "%s", names[i]);
		ret = lttng_enable_event_with_exclusions(handle, ev, (char *)SESSION_GPU_CHANNEL,
		                                         filter, 0, NULL);
	}
	return ret;
}

static int enable_events(struct lttng_handle *handle, const struct session_config *cfg)
{
	struct lttng_event *ev = lttng_event_create();
	char names[CT_EV_COUNT][LTTNG_SYMBOL_NAME_LEN];
	char *pointers[CT_EV_COUNT];
	/* The host channel takes every event but the GPU group's. */
	int count =
	    group_events(cfg->excluded_groups | CT_GROUP_BIT(CT_GROUP_GPU), names, pointers);
	char filter[128 + LTTNG_NAME_MAX];
	int ret;

	if (!ev) {
		diag_error("cannot enable the cudatrace events: out of memory");
		return -1;
	}
	ev->type = LTTNG_EVENT_TRACEPOINT;
	ev->loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
	snprintf(ev->name, sizeof(ev->name), "%s*", CT_PROVIDER_PREFIX);
	/*
	 * The filter runs in each process before an event is written: a
	 * process of the tree is recorded from its very first event, with no
	 * race against a tracker that would have to learn of it first.
	 */
	if (cfg->only_tree)
		snprintf(filter, sizeof(filter), "%s == %lld", CT_APP_CONTEXT_SESSION_KEY,
		         (long long)ct_session_key(cfg->only_tree));
	ret = lttng_enable_event_with_exclusions(handle, ev, (char *)SESSION_CHANNEL,
	                                         cfg->only_tree ? filter : NULL, count,
	                                         count ? pointers : NULL);
	if (ret >= 0)
		ret = enable_gpu_events(handle, cfg, ev, cfg->only_tree ? filter : NULL);
	if (ret >= 0)
		ret = enable_statedump(handle, ev);
	lttng_event_destroy(ev);
	if (ret < 0) {
		session_report_error("enable the cudatrace events", ret);
		return -1;
	}
	return 0;
}

/*
 * The per-event contexts of CHANNEL: which process, and, with WITH_THREAD,
 * which thread. The process's name is not among them: tracer_info and
 * every statedump record it once per process, and the analyses name a
 * process from there, which saves 17 bytes on every event (a quarter of
 * the bytes of a small copy's events; doc/events.md, "Size of the trace").
 */
static int add_contexts(struct lttng_handle *handle, const char *channel, bool with_thread)
{
	static const struct {
		enum lttng_event_context_type type;
		const char *name;
	} contexts[] = {
		{ LTTNG_EVENT_CONTEXT_VPID, "vpid" },
		{ LTTNG_EVENT_CONTEXT_VTID, "vtid" }, /* last: left out without WITH_THREAD */
	};
	size_t count = with_thread ? sizeof(contexts) / sizeof(contexts[0]) : 1;

	for (size_t i = 0; i < count; i++) {
		struct lttng_event_context ctx;
		int ret;

		memset(&ctx, 0, sizeof(ctx));
		ctx.ctx = contexts[i].type;
		ret = lttng_add_context(handle, &ctx, NULL, (char *)channel);
		if (ret < 0) {
			char what[64 + LTTNG_SYMBOL_NAME_LEN];

			snprintf(what, sizeof(what), "add the %s context to the %s channel",
			         contexts[i].name, channel);
			session_report_error(what, ret);
			return -1;
		}
	}
	return 0;
}

void session_trigger_name(const char *session, char *buf, size_t len)
{
	snprintf(buf, len, "%s-on-alloc-failure", session);
}

/*
 * A trigger that snapshots the session the first time an allocation fails,
 * so that the moment of an out-of-memory error is on disk even if the
 * program and cudatrace are killed right after. Best effort: without it,
 * the snapshot taken at the end still holds the newest events.
 */
static void add_failure_trigger(const char *session)
{
	struct lttng_event_rule *rule = lttng_event_rule_user_tracepoint_create();
	struct lttng_condition *cond = NULL;
	struct lttng_action *action = lttng_action_snapshot_session_create();
	struct lttng_rate_policy *once = lttng_rate_policy_once_after_n_create(1);
	struct lttng_trigger *trigger = NULL;
	char name[256], failure_event[LTTNG_SYMBOL_NAME_LEN];
	enum lttng_error_code ret;

	snprintf(failure_event, sizeof(failure_event), "%s%s", CT_PROVIDER_PREFIX,
	         ct_event_type_name(CT_EV_MEM_ALLOC_FAILED));
	if (!rule || !action || !once ||
	    lttng_event_rule_user_tracepoint_set_name_pattern(rule, failure_event) !=
	        LTTNG_EVENT_RULE_STATUS_OK ||
	    lttng_action_snapshot_session_set_session_name(action, session) !=
	        LTTNG_ACTION_STATUS_OK ||
	    lttng_action_snapshot_session_set_rate_policy(action, once) != LTTNG_ACTION_STATUS_OK)
		goto fail;
	cond = lttng_condition_event_rule_matches_create(rule);
	if (!cond)
		goto fail;
	trigger = lttng_trigger_create(cond, action);
	if (!trigger)
		goto fail;
	session_trigger_name(session, name, sizeof(name));
	ret = lttng_register_trigger_with_name(trigger, name);
	if (ret != LTTNG_OK) {
		diag_warn("no snapshot will be taken at the first allocation failure (%s); one is "
		          "still taken when the program ends",
		          lttng_strerror(-(int)ret));
	}
	goto end;
fail:
	diag_warn("no snapshot will be taken at the first allocation failure (out of memory); "
	          "one is still taken when the program ends");
end:
	lttng_trigger_destroy(trigger);
	lttng_condition_destroy(cond);
	lttng_rate_policy_destroy(once);
	lttng_action_destroy(action);
	lttng_event_rule_destroy(rule);
}

/* Unregisters SESSION's snapshot trigger, if there is one. */
static void remove_failure_trigger(const char *session)
{
	struct lttng_triggers *triggers = NULL;
	unsigned int count = 0;
	char wanted[256];

	session_trigger_name(session, wanted, sizeof(wanted));
	if (lttng_list_triggers(&triggers) != LTTNG_OK)
		return;
	if (lttng_triggers_get_count(triggers, &count) != LTTNG_TRIGGER_STATUS_OK)
		count = 0;
	for (unsigned int i = 0; i < count; i++) {
		const struct lttng_trigger *t = lttng_triggers_get_at_index(triggers, i);
		const char *name = NULL;

		if (t && lttng_trigger_get_name(t, &name) == LTTNG_TRIGGER_STATUS_OK && name &&
		    strcmp(name, wanted) == 0)
			(void)lttng_unregister_trigger(t);
	}
	lttng_triggers_destroy(triggers);
}

int session_setup(const struct session_config *cfg)
{
	struct lttng_handle *handle;
	int ret, status = -1;

	relay_url = cfg->url;
	if (create_session(cfg) < 0)
		goto fail;
	handle = make_handle(cfg->name);
	if (!handle)
		goto error;
	ret = enable_metadata_channel(handle, cfg);
	if (ret == 0)
		ret = enable_data_channels(handle, cfg);
	if (ret == SESSION_NO_CONSUMER)
		status = SESSION_NO_CONSUMER;
	if (ret < 0 || enable_events(handle, cfg) < 0 ||
	    add_contexts(handle, SESSION_CHANNEL, true) < 0 ||
	    add_contexts(handle, SESSION_GPU_CHANNEL, false) < 0)
		goto error;
	if (cfg->mode == SESSION_SNAPSHOT && cfg->snapshot_on_failure)
		add_failure_trigger(cfg->name);
	ret = lttng_start_tracing(cfg->name);
	if (ret < 0) {
		session_report_error("start tracing", ret);
		goto error;
	}
	lttng_destroy_handle(handle);
	relay_url = NULL;
	return 0;
error:
	lttng_destroy_handle(handle);
	remove_failure_trigger(cfg->name);
	(void)lttng_destroy_session(cfg->name);
fail:
	relay_url = NULL;
	return status;
}

int session_stop(const char *name)
{
	int ret = lttng_stop_tracing(name);

	if (ret < 0 && -ret != LTTNG_ERR_TRACE_ALREADY_STOPPED) {
		session_report_error("stop tracing", ret);
		return -1;
	}
	return 0;
}

void session_stop_now(const char *name)
{
	(void)lttng_stop_tracing_no_wait(name);
}

int session_snapshot(const char *name)
{
	int ret = lttng_snapshot_record(name, NULL, 1);

	if (ret < 0) {
		session_report_error("write the flight recorder's snapshot", ret);
		return -1;
	}
	return 0;
}

int session_discarded(const char *name, uint64_t *discarded, uint64_t *lost)
{
	struct lttng_handle *handle = make_handle(name);
	struct lttng_channel *channels = NULL;
	int count, status = -1;

	*discarded = 0;
	*lost = 0;
	if (!handle)
		return -1;
	count = lttng_list_channels(handle, &channels);
	for (int i = 0; i < count; i++) {
		uint64_t d = 0, l = 0;

		if (strcmp(channels[i].name, SESSION_CHANNEL) != 0 &&
		    strcmp(channels[i].name, SESSION_GPU_CHANNEL) != 0)
			continue;
		if (lttng_channel_get_discarded_event_count(&channels[i], &d) == 0 &&
		    lttng_channel_get_lost_packet_count(&channels[i], &l) == 0) {
			*discarded += d;
			*lost += l;
			status = 0;
		}
	}
	free(channels);
	lttng_destroy_handle(handle);
	return status;
}

int session_destroy(const char *name)
{
	int ret;

	remove_failure_trigger(name);
	ret = lttng_destroy_session(name);
	if (ret < 0 && -ret != LTTNG_ERR_SESS_NOT_FOUND) {
		session_report_error("close the tracing session", ret);
		return -1;
	}
	return 0;
}
