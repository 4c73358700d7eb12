/*
 * The sink's own view of its link (core/dpcd.h), where the backend can read
 * it: the trained link for drivers that report none, lanes that lost lock
 * with link-status GOOD (a dark link no driver reported), and symbol errors.
 *
 * The sink is read once the link settled: settle_ms after every hotplug
 * event and every modeset (linkguard's or the compositor's: the kernel
 * trains the link inside that blocking commit), never between a BAD and
 * the commit that answers it, never from inside a commit or a probe. AUX
 * traffic while the source trains the link is what makes some docks fail
 * their training. Then every sink_poll_ms for the first minute after a
 * change, and every IDLE_POLLS x sink_poll_ms on a link that has been
 * quiet since. One read is three AUX transactions (six on kernels before
 * 6.17, which probe first): by default 36 (72) a minute after a change,
 * 6 (12) at rest. A read that fails doubles the wait before the next. A
 * backend whose reads may block (an AUX device that stopped answering
 * holds a read for the driver's timeouts) reads off the event loop and
 * answers at its deadline: backend/drm, in a thread, within a second.
 */
#include <stdlib.h>
#include <wlr/types/wlr_output.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <core/backend.h>
#include <core/clock.h>
#include <core/incident.h>
#include <core/recovery.h>
#include <core/sink.h>

#define ERRORS_WINDOW_MS 60000
/*
 * For WATCHFUL_POLLS x sink_poll_ms after a change (a minute by default),
 * the link is read every sink_poll_ms; then every IDLE_POLLS x. Failed
 * reads wait twice as long each time, up to MAX_POLLS x.
 */
#define WATCHFUL_POLLS 12
#define IDLE_POLLS 6
#define MAX_POLLS 60

struct lg_sink {
	struct lg_connector *conn;
	struct wl_event_source *timer;
	uint64_t unlocked_since_ms; // 0: the sink held the link at the last read
	bool discard_errors; // the first read after a modeset counts the training
	uint64_t window_start_ms; // 0: no window open
	uint32_t window_errors[4];
	bool verdict_sent;
	struct lg_mode verdict_mode; // the mode the last verdict was reached at
	uint32_t modesets; // counted, to see one happen during a read
	uint64_t changed_ms; // the last hotplug or modeset
	bool settled; // read since then
	uint32_t failed_reads; // in a row
	bool reading; // a read started and has not been answered
	uint32_t read_modesets; // modesets when it started
};

static bool same_params(const struct lg_link_params *a,
		const struct lg_link_params *b) {
	return a->lanes == b->lanes && a->rate_mbps == b->rate_mbps;
}

static bool same_status(const struct lg_sink_status *a,
		const struct lg_sink_status *b) {
	bool same = same_params(&a->link, &b->link) && a->uhbr == b->uhbr &&
		a->sink_count == b->sink_count && a->lanes_locked == b->lanes_locked &&
		a->aligned == b->aligned && a->in_sync == b->in_sync &&
		a->errors_valid == b->errors_valid;
	for (int lane = 0; same && lane < 4; lane++) {
		same = a->errors[lane] == b->errors[lane];
	}
	return same;
}

/*
 * Symbol errors per lane and minute above which the link is degraded.
 * DisplayPort asks 8b/10b links for a bit error rate of 10^-9 or better;
 * a bit error corrupts at least one 10-bit symbol, so at the compliance
 * limit a lane at R Mbit/s counts up to R x 10^6 x 10^-9 x 60 = 0.06 R
 * symbol errors a minute: 97 at RBR, 162 at HBR, 324 at HBR2, 486 at HBR3.
 * A cable above that is out of specification: sparkles, then lost lock.
 */
static uint32_t errors_threshold(const struct lg_connector *conn) {
	uint32_t configured = conn->options->link_errors_per_min;
	if (configured != 0) {
		return configured;
	}
	return conn->sink_status.link.rate_mbps * 6 / 100;
}

static void open_window(struct lg_sink *sink, uint64_t now) {
	sink->window_start_ms = now;
	for (int lane = 0; lane < 4; lane++) {
		sink->window_errors[lane] = 0;
	}
}

/*
 * The counters are cleared by every read: each read's counts add to a
 * minute's window. The verdict comes when the window is full, or as soon
 * as a lane passed the threshold within it.
 */
static void count_errors(struct lg_connector *conn, uint64_t now) {
	struct lg_sink *sink = conn->sink;
	const struct lg_sink_status *status = &conn->sink_status;
	if (sink->discard_errors || status->uhbr || status->errors_valid == 0) {
		sink->discard_errors = false;
		open_window(sink, now);
		return;
	}
	if (sink->window_start_ms == 0) {
		open_window(sink, now);
	}
	uint32_t threshold = errors_threshold(conn);
	bool over = false;
	for (uint32_t lane = 0; lane < 4; lane++) {
		if (status->errors_valid & (1u << lane)) {
			sink->window_errors[lane] += status->errors[lane];
			over = over || sink->window_errors[lane] > threshold;
		}
	}
	uint64_t elapsed = now - sink->window_start_ms;
	if (!over && elapsed < ERRORS_WINDOW_MS) {
		return;
	}
	for (uint32_t lane = 0; lane < 4; lane++) {
		// A window cut short by the threshold is scaled to a minute too:
		// its count alone already passed a minute's allowance.
		uint64_t per_min = (uint64_t)sink->window_errors[lane] *
			ERRORS_WINDOW_MS / (elapsed > 0 ? elapsed : 1);
		conn->error_rates[lane] = per_min > UINT32_MAX ? UINT32_MAX : (uint32_t)per_min;
	}
	conn->has_error_rates = true;
	open_window(sink, now);
	// A verdict when it changes, and again while the errors go on at
	// another mode (after a step down).
	bool moved = conn->has_current && !lg_mode_same_timing(&conn->current,
		&sink->verdict_mode);
	if (sink->verdict_sent && over == conn->link_errors && !(over && moved)) {
		return;
	}
	sink->verdict_sent = true;
	sink->verdict_mode = conn->current;
	conn->link_errors = over;
	lg_conn_log(conn, over ? LG_ERROR : LG_INFO, "symbol errors per minute "
		"%u %u %u %u (lanes 0-3), threshold %u: %s", conn->error_rates[0],
		conn->error_rates[1], conn->error_rates[2], conn->error_rates[3],
		threshold, over ? "link degraded (link-errors)" : "within it");
	recovery_feed(conn, LG_MACHINE_LINK_HEALTH);
}

/* Whether a field a client sees changed. */
static bool sink_read(struct lg_connector *conn,
		const struct lg_sink_status *read_status) {
	struct lg_sink *sink = conn->sink;
	bool read = conn->connected && read_status != NULL;
	struct lg_sink_status status = read ? *read_status : (struct lg_sink_status){0};
	sink->settled = true;
	sink->failed_reads = read ? 0 : sink->failed_reads + 1;
	bool changed = read != conn->has_sink_status ||
		(read && !same_status(&status, &conn->sink_status));
	conn->has_sink_status = read;
	if (read) {
		conn->sink_status = status;
	}
	// No uAPI reports the trained link; the sink's DPCD does.
	if (conn->impl->get_link_params == NULL) {
		bool has = read && status.link.lanes != 0 && status.link.rate_mbps != 0;
		changed = changed || has != conn->has_link_params;
		conn->has_link_params = has;
		if (has) {
			conn->link_params = status.link;
		}
	}
	if (read) {
		count_errors(conn, lg_now_ms());
	}
	return changed;
}

static bool output_enabled(const struct lg_connector *conn) {
	return conn->connected && conn->output != NULL && conn->output->enabled;
}

/*
 * A link the kernel reports GOOD and the sink does not hold (a 128b/132b
 * link's status is not decoded: never).
 */
static bool dark(const struct lg_connector *conn) {
	return output_enabled(conn) && conn->link_status == LG_LINK_STATUS_GOOD &&
		conn->has_sink_status && !conn->sink_status.uhbr &&
		!lg_sink_status_locked(&conn->sink_status);
}

/* The wait before the next poll: longer on a quiet link, or a failing read. */
static uint32_t poll_interval(const struct lg_connector *conn, uint64_t now) {
	const struct lg_sink *sink = conn->sink;
	uint64_t poll_ms = conn->options->sink_poll_ms;
	uint64_t polls = now - sink->changed_ms < WATCHFUL_POLLS * poll_ms ? 1 : IDLE_POLLS;
	if (sink->failed_reads > 0) {
		polls = IDLE_POLLS << (sink->failed_reads < 4 ? sink->failed_reads - 1 : 3);
		polls = polls < MAX_POLLS ? polls : MAX_POLLS;
	}
	uint64_t ms = polls * poll_ms;
	return ms < INT32_MAX ? (uint32_t)ms : INT32_MAX;
}

/* Lanes unlocked at two reads sink_settle_ms apart: the machine hears of it. */
static uint32_t watch_lock(struct lg_connector *conn, uint64_t now) {
	struct lg_sink *sink = conn->sink;
	const struct lg_options *options = conn->options;
	if (!dark(conn)) {
		sink->unlocked_since_ms = 0;
		return poll_interval(conn, now);
	}
	if (sink->unlocked_since_ms == 0) {
		sink->unlocked_since_ms = now;
		return options->sink_settle_ms;
	}
	uint64_t unlocked = now - sink->unlocked_since_ms;
	if (unlocked < options->sink_settle_ms) {
		return options->sink_settle_ms - (uint32_t)unlocked;
	}
	const struct lg_sink_status *status = &conn->sink_status;
	lg_conn_log(conn, LG_ERROR, "the sink has lost the link for %llu ms with "
		"link-status GOOD: lanes locked 0x%x of %u, %saligned",
		(unsigned long long)unlocked, status->lanes_locked, status->link.lanes,
		status->aligned ? "" : "not ");
	sink->unlocked_since_ms = 0;
	struct lg_incidents *incidents = recovery_incidents(conn);
	incidents->unlocked = true;
	recovery_feed(conn, LG_MACHINE_SINK_UNLOCKED);
	incidents->unlocked = false;
	return poll_interval(conn, now);
}

static void arm(struct lg_connector *conn, uint32_t ms) {
	struct lg_sink *sink = conn->sink;
	if (sink->timer != NULL) {
		wl_event_source_timer_update(sink->timer, ms == 0 ? 0 : (int)ms);
	}
}

/*
 * A backend that reads off the event loop answers later, through
 * lg_connector_sink_read_done(); the others at once.
 */
static void poll_sink(struct lg_connector *conn) {
	struct lg_sink *sink = conn->sink;
	sink->reading = true;
	sink->read_modesets = sink->modesets;
	if (conn->impl->read_sink_status != NULL) {
		if (!conn->impl->read_sink_status(conn)) {
			lg_connector_sink_read_done(conn, NULL);
		}
		return;
	}
	struct lg_sink_status status;
	bool read = conn->impl->get_sink_status(conn, &status);
	lg_connector_sink_read_done(conn, read ? &status : NULL);
}

void lg_connector_sink_read_done(struct lg_connector *conn,
		const struct lg_sink_status *status) {
	struct lg_sink *sink = conn->sink;
	if (sink == NULL || !sink->reading) {
		return; // stopped meanwhile: the answer concerns another sink
	}
	sink->reading = false;
	if (sink->modesets != sink->read_modesets) {
		// Read across a modeset, which armed the next read.
		return;
	}
	// A verdict or an unlock may lead to a modeset: it arms the timer at
	// its settle time, and what was read concerns the link before it.
	uint32_t modesets = sink->modesets;
	if (sink_read(conn, status)) {
		connector_changed(conn);
	}
	uint32_t next = 0;
	if (sink->modesets == modesets) {
		next = watch_lock(conn, lg_now_ms());
	}
	if (sink->modesets == modesets && output_enabled(conn)) {
		arm(conn, next);
	}
}

static bool can_read(const struct lg_connector *conn) {
	return conn->impl->get_sink_status != NULL ||
		conn->impl->read_sink_status != NULL;
}

static int handle_timer(void *data) {
	struct lg_connector *conn = data;
	if (!output_enabled(conn) || conn->committing) {
		return 0;
	}
	/*
	 * A BAD is answered by a commit that trains the link: read once that
	 * settled. The kernel sets link-status BAD before it sends the uevent,
	 * so a property read (no AUX) also catches a BAD whose uevent is
	 * still on its way to us. A read still under way is answered
	 * first (a hung AUX device: at the backend's deadline).
	 */
	if (conn->sink->reading || recovery_answering(conn) ||
			conn->impl->get_link_status(conn) != LG_LINK_STATUS_GOOD) {
		arm(conn, poll_interval(conn, lg_now_ms()));
		return 0;
	}
	poll_sink(conn);
	return 0;
}

void sink_hotplug(struct lg_connector *conn) {
	struct lg_sink *sink = conn->sink;
	sink->changed_ms = lg_now_ms();
	sink->settled = false;
	// The link is read again once the kernel had settle_ms to train it.
	arm(conn, output_enabled(conn) ? conn->options->settle_ms : 0);
}

void sink_modeset(struct lg_connector *conn) {
	struct lg_sink *sink = conn->sink;
	sink->modesets++;
	sink->discard_errors = true;
	sink->window_start_ms = 0;
	sink->unlocked_since_ms = 0;
	sink_hotplug(conn);
}

void sink_settled(struct lg_connector *conn) {
	if (can_read(conn) && !conn->sink->settled && !conn->sink->reading &&
			output_enabled(conn) && !conn->committing) {
		poll_sink(conn);
	}
}

void sink_stop(struct lg_connector *conn) {
	struct lg_sink *sink = conn->sink;
	arm(conn, 0);
	sink->unlocked_since_ms = 0;
	sink->window_start_ms = 0;
	sink->verdict_sent = false;
	sink->failed_reads = 0;
	sink->reading = false;
	conn->has_sink_status = false;
	conn->has_error_rates = false;
	conn->link_errors = false;
}

bool sink_create(struct lg_connector *conn) {
	struct lg_sink *sink = calloc(1, sizeof(*sink));
	if (sink == NULL) {
		return false;
	}
	sink->conn = conn;
	conn->sink = sink;
	if (!can_read(conn)) {
		return true; // nothing to read: no timer
	}
	sink->timer = wl_event_loop_add_timer(conn->manager->event_loop,
		handle_timer, conn);
	if (sink->timer == NULL) {
		lg_conn_log(conn, LG_ERROR, "failed to create a timer: the sink is "
			"read only when a recovery commit held");
	}
	return true;
}

void sink_destroy(struct lg_connector *conn) {
	struct lg_sink *sink = conn->sink;
	if (sink == NULL) {
		return;
	}
	if (sink->timer != NULL) {
		wl_event_source_remove(sink->timer);
	}
	free(sink);
	conn->sink = NULL;
}
