/*
 * The sink's own view of its link (core/dpcd.h), where the backend can read
 * it: the trained link for drivers that report none, lanes that lost lock
 * with link-status GOOD (a dark link no driver reported), and symbol errors:
 * each read goes to the state machine, whose unlock debounce and error
 * verdict judge them.
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
 * 6 (12) at rest. A read that fails (a sink that does not answer AUX costs
 * the kernel's timeout) doubles the wait before the next.
 */
#include <stdlib.h>
#include <wlr/types/wlr_output.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <core/backend.h>
#include <core/clock.h>
#include <core/recovery.h>
#include <core/sink.h>
#include <core/timer.h>

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
	struct lg_timer timer;
	uint32_t modesets; // counted, to see one happen during a read
	uint64_t changed_ms; // the last hotplug or modeset
	bool settled; // read since then
	uint32_t failed_reads; // in a row
	bool timer_failed; // said once
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
 * Whether a field a client sees changed; *errors: the symbol errors counted
 * since the read before, none of a 128b/132b link (not decoded).
 */
static bool sink_read(struct lg_connector *conn, struct lg_sink_errors *errors) {
	struct lg_sink *sink = conn->sink;
	struct lg_sink_status status;
	bool read = conn->connected && conn->impl->get_sink_status(conn, &status);
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
	*errors = (struct lg_sink_errors){0};
	if (read && !status.uhbr) {
		errors->valid = status.errors_valid;
		errors->rate_mbps = status.link.rate_mbps;
		for (int lane = 0; lane < 4; lane++) {
			errors->count[lane] = status.errors[lane];
		}
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

/*
 * What the read found goes to the machine (its unlock debounce and error
 * verdict); the wait before the next read: sooner while the machine waits
 * for a second unlocked read.
 */
static uint32_t report(struct lg_connector *conn, const struct lg_sink_errors *errors,
		uint64_t now) {
	recovery_sink_read(conn, dark(conn), conn->has_sink_status ? errors : NULL);
	uint32_t wait = recovery_unlock_wait(conn, now);
	return wait > 0 ? wait : poll_interval(conn, now);
}

static void arm(struct lg_connector *conn, uint32_t ms) {
	struct lg_sink *sink = conn->sink;
	if (conn->impl->get_sink_status == NULL || lg_timer_arm(&sink->timer, ms)) {
		return;
	}
	lg_conn_log(conn, sink->timer_failed ? LG_DEBUG : LG_ERROR,
		"failed to create a timer: the sink is read only when a recovery "
		"commit held");
	sink->timer_failed = true;
}

static void poll_sink(struct lg_connector *conn) {
	struct lg_sink *sink = conn->sink;
	// A verdict or an unlock may lead to a modeset: it arms the timer at
	// its settle time.
	uint32_t modesets = sink->modesets;
	struct lg_sink_errors errors;
	if (sink_read(conn, &errors)) {
		connector_changed(conn);
	}
	uint32_t next = report(conn, &errors, lg_now_ms());
	if (sink->modesets == modesets && output_enabled(conn)) {
		arm(conn, next);
	}
}

static void handle_timer(void *data) {
	struct lg_connector *conn = data;
	if (!output_enabled(conn) || conn->committing) {
		return;
	}
	/*
	 * A BAD is answered by a commit that trains the link: read once that
	 * settled. The kernel sets link-status BAD before it sends the uevent,
	 * so a property read (no AUX) also catches a BAD whose uevent is
	 * still on its way to us.
	 */
	if (recovery_answering(conn) ||
			conn->impl->get_link_status(conn) != LG_LINK_STATUS_GOOD) {
		arm(conn, poll_interval(conn, lg_now_ms()));
		return;
	}
	poll_sink(conn);
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
	sink_hotplug(conn);
}

void sink_settled(struct lg_connector *conn) {
	if (conn->impl->get_sink_status != NULL && !conn->sink->settled &&
			output_enabled(conn) && !conn->committing) {
		poll_sink(conn);
	}
}

void sink_stop(struct lg_connector *conn) {
	struct lg_sink *sink = conn->sink;
	arm(conn, 0);
	sink->failed_reads = 0;
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
	lg_timer_init(&sink->timer, conn->manager->event_loop, handle_timer, conn);
	conn->sink = sink;
	return true;
}

void sink_destroy(struct lg_connector *conn) {
	struct lg_sink *sink = conn->sink;
	if (sink == NULL) {
		return;
	}
	lg_timer_finish(&sink->timer);
	free(sink);
	conn->sink = NULL;
}
