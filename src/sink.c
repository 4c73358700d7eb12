/*
 * The sink's own view of its link (core/dpcd.h), where the backend can read
 * it: the trained link for drivers that report none, lanes that lost lock
 * with link-status GOOD (a dark link no driver reported), and symbol errors.
 *
 * This file only reads: when is the state machine's decision (its read
 * schedule, src/machine.c), which asks with LG_ACTION_READ_SINK on the
 * driver's one timer: once the link settled after every hotplug event and
 * every modeset, never between a BAD and the commit that answers it, never
 * from inside a commit or a probe, then polled. What a read found goes
 * back to the machine, whose unlock debounce and error verdict judge it.
 * One read is three AUX transactions (six on kernels before 6.17, which
 * probe first); backend/drm bounds it (kms/reader.h). Which sinks are read
 * at all, and which polled between events, is the backend's answer
 * (linkguard/backend.h, enum lg_sink_reads) narrowed by linkguard(5)'s
 * read-dpcd.
 */
#include <wlr/types/wlr_output.h>
#include <linkguard/manager.h>
#include <core/backend.h>
#include <core/sink.h>

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

/* Whether a field a client sees changed. */
static bool store(struct lg_connector *conn, bool read,
		const struct lg_sink_status *status) {
	bool changed = read != conn->has_sink_status ||
		(read && !same_status(status, &conn->sink_status));
	conn->has_sink_status = read;
	if (read) {
		conn->sink_status = *status;
	}
	// No uAPI reports the trained link; the sink's DPCD does.
	if (conn->impl->get_link_params == NULL) {
		bool has = read && status->link.lanes != 0 && status->link.rate_mbps != 0;
		changed = changed || has != conn->has_link_params;
		conn->has_link_params = has;
		if (has) {
			conn->link_params = status->link;
		}
	}
	return changed;
}

/*
 * A link the kernel reports GOOD and the sink does not hold (a 128b/132b
 * link's status is not decoded: never).
 */
static bool dark(const struct lg_connector *conn) {
	return conn->connected && conn->output != NULL && conn->output->enabled &&
		conn->link_status == LG_LINK_STATUS_GOOD && conn->has_sink_status &&
		!conn->sink_status.uhbr && !lg_sink_status_locked(&conn->sink_status);
}

uint32_t sink_reads(const struct lg_connector *conn) {
	if (conn->impl->get_sink_status == NULL ||
			conn->options->read_dpcd == LG_READ_DPCD_OFF) {
		return 0;
	}
	uint32_t reads = conn->impl->sink_reads != NULL ?
		conn->impl->sink_reads((struct lg_connector *)conn) :
		LG_SINK_READS_EVENTS | LG_SINK_READS_POLL;
	if ((reads & LG_SINK_READS_INTERNAL) &&
			conn->options->read_dpcd != LG_READ_DPCD_ON) {
		return 0;
	}
	return reads & LG_SINK_READS_EVENTS ? reads : 0;
}

bool sink_read(struct lg_connector *conn, bool *unlocked, struct lg_sink_errors *errors) {
	*unlocked = false;
	*errors = (struct lg_sink_errors){0};
	/*
	 * The kernel sets link-status BAD before it sends the uevent: a
	 * property read (no AUX) finds a BAD whose uevent is still on its way
	 * to us, and whose commit will train the link. Not read, as a failed
	 * read.
	 */
	if (!conn->connected || conn->impl->get_sink_status == NULL ||
			conn->impl->get_link_status(conn) != LG_LINK_STATUS_GOOD) {
		return false;
	}
	struct lg_sink_status status;
	bool read = conn->impl->get_sink_status(conn, &status);
	if (store(conn, read, &status)) {
		connector_changed(conn);
	}
	if (!read) {
		return false;
	}
	*unlocked = dark(conn);
	if (!status.uhbr) {
		errors->valid = status.errors_valid;
		errors->rate_mbps = status.link.rate_mbps;
		for (int lane = 0; lane < 4; lane++) {
			errors->count[lane] = status.errors[lane];
		}
	}
	return true;
}

void sink_stop(struct lg_connector *conn) {
	conn->has_sink_status = false;
	conn->has_error_rates = false;
	conn->link_errors = false;
}
