/*
 * Hotplug events: which connectors need an answer, and answering several at
 * once (a bare HOTPLUG=1, the streams of one MST link) in one atomic commit,
 * as the kernel sees a single modeset of the whole link.
 */
#include <stdlib.h>
#include <wlr/backend.h>
#include <wlr/types/wlr_output.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <core/backend.h>
#include <core/clock.h>
#include <core/driver.h>
#include <core/recovery.h>

/*
 * Whether the state machine must hear of a BAD. The link-status the backend
 * read on the event is the connector's until the next read: the commit
 * that answers it needs no other.
 */
static bool link_bad(struct lg_connector *conn, enum lg_link_status status) {
	if (!conn->connected || conn->output == NULL) {
		lg_conn_log(conn, LG_DEBUG, "hotplug ignored: no output");
		return false;
	}
	connector_trace(conn, "hotplug", NULL);
	connector_trace(conn, status == LG_LINK_STATUS_GOOD ?
		"link-status read: good" : "link-status read: bad", NULL);
	if (status != conn->link_status) {
		conn->link_status = status;
		connector_changed(conn);
	}
	if (status == LG_LINK_STATUS_GOOD) {
		// The link may have retrained: the sink is read once it settled.
		recovery_feed(conn, LG_MACHINE_HOTPLUG);
		return false;
	}
	lg_conn_log(conn, LG_INFO, "link-status BAD");
	if (!conn->options->recover) {
		lg_conn_log(conn, LG_INFO, "recovery disabled: left to the compositor");
	}
	return true;
}

/*
 * One wlr_backend_test/wlr_backend_commit for every deferred commit.
 * Returns false, having committed nothing, when the outputs are on
 * different backends or the backend refuses them together.
 */
static bool commit_together(struct lg_connector **conns, size_t n) {
	struct wlr_backend_output_state *states = calloc(n, sizeof(*states));
	if (states == NULL) {
		return false;
	}
	struct wlr_backend *backend = conns[0]->output->backend;
	size_t built = 0;
	for (; built < n; built++) {
		struct lg_connector *conn = conns[built];
		if (conn->output->backend != backend || !recovery_build_state(conn,
				&states[built].base, &recovery_driver(conn)->deferred)) {
			break;
		}
		states[built].output = conn->output;
	}
	bool ok = built == n && wlr_backend_test(backend, states, n);
	if (ok) {
		for (size_t i = 0; i < n; i++) {
			conns[i]->committing = true;
		}
		ok = wlr_backend_commit(backend, states, n);
		for (size_t i = 0; i < n; i++) {
			conns[i]->committing = false;
		}
	}
	for (size_t i = 0; i < built; i++) {
		wlr_output_state_finish(&states[i].base);
	}
	free(states);
	return ok;
}

/*
 * Each machine plans on its own; their commits are collected and made in
 * one, or one by one if the backend refuses them together.
 */
static void recover_together(struct lg_connector **conns, size_t n) {
	size_t deferred = 0;
	for (size_t i = 0; i < n; i++) {
		struct lg_driver *driver = recovery_driver(conns[i]);
		driver->defer_commit = true;
		recovery_feed(conns[i], LG_MACHINE_LINK_BAD);
		driver->defer_commit = false;
		if (driver->has_deferred) {
			conns[deferred++] = conns[i];
		}
	}
	bool together = deferred > 1 && commit_together(conns, deferred);
	if (together) {
		lg_log(LG_INFO, "%zu connectors recovered in one commit", deferred);
	} else if (deferred > 1) {
		lg_log(LG_INFO, "the connectors do not commit together: one by one");
	}
	for (size_t i = 0; i < deferred; i++) {
		struct lg_driver *driver = recovery_driver(conns[i]);
		bool ok = together ||
			recovery_commit_mode(conns[i], &driver->deferred);
		recovery_committed(conns[i], ok);
	}
}

void lg_connectors_hotplug(const struct lg_hotplug *hotplugs, size_t n) {
	struct lg_connector **bad = calloc(n + 1, sizeof(*bad));
	if (bad == NULL) {
		lg_log(LG_ERROR, "allocation failed: hotplug ignored");
		return;
	}
	size_t n_bad = 0;
	for (size_t i = 0; i < n; i++) {
		if (link_bad(hotplugs[i].conn, hotplugs[i].link_status)) {
			bad[n_bad++] = hotplugs[i].conn;
		}
	}
	// The compositor's commit hook takes one output at a time.
	if (n_bad > 1 && bad[0]->manager->options.commit == NULL) {
		recover_together(bad, n_bad);
	} else {
		for (size_t i = 0; i < n_bad; i++) {
			recovery_feed(bad[i], LG_MACHINE_LINK_BAD);
		}
	}
	free(bad);
}

void lg_connector_hotplug(struct lg_connector *conn,
		enum lg_link_status link_status) {
	const struct lg_hotplug hotplug = { .conn = conn, .link_status = link_status };
	lg_connectors_hotplug(&hotplug, 1);
}
