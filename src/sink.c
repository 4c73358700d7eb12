/*
 * The sink's own view of its link (core/dpcd.h), where the backend can read
 * it: the trained link for drivers that report none, lane lock, and symbol
 * errors.
 */
#include <linkguard/log.h>
#include <core/connector.h>

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

bool sink_read(struct lg_connector *conn) {
	if (conn->impl->get_sink_status == NULL) {
		return false;
	}
	struct lg_sink_status status;
	bool read = conn->connected && conn->impl->get_sink_status(conn, &status);
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
	return changed;
}
