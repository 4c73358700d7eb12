/*
 * What the core asks of a connector's backend (include/linkguard/backend.h)
 * and the signal that tells clients of a change: the calls every file below
 * connector.c makes on a connector, so that none of them calls back up.
 */
#include <linkguard/log.h>
#include <core/backend.h>

void connector_changed(struct lg_connector *conn) {
	wl_signal_emit_mutable(&conn->events.state_change, conn);
}

void connector_read_link(struct lg_connector *conn) {
	conn->link_status = conn->impl->get_link_status(conn);
	if (conn->impl->get_link_params != NULL) {
		conn->has_link_params =
			conn->impl->get_link_params(conn, &conn->link_params);
	}
}

enum lg_probe_result connector_probe(struct lg_connector *conn) {
	enum lg_probe_result result = conn->impl->probe(conn, &conn->modes);
	if (result == LG_PROBE_FAILED) {
		lg_conn_log(conn, LG_ERROR, "forced probe failed");
	}
	return result;
}

const char *connector_identity(struct lg_connector *conn) {
	return conn->impl->get_identity != NULL ? conn->impl->get_identity(conn) : NULL;
}
