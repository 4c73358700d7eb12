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
#include <core/connector.h>

/* Reads link-status; whether this BAD needs a recovery now. */
static bool wants_recovery(struct lg_connector *conn) {
	if (!conn->connected || conn->output == NULL) {
		lg_conn_log(conn, LG_DEBUG, "hotplug ignored: no output");
		return false;
	}
	enum lg_link_status status = conn->impl->get_link_status(conn);
	if (status != conn->link_status) {
		conn->link_status = status;
		connector_changed(conn);
	}
	if (status == LG_LINK_STATUS_GOOD) {
		return false;
	}
	lg_conn_log(conn, LG_INFO, "link-status BAD");
	if (!conn->manager->options.recover) {
		lg_conn_log(conn, LG_INFO, "recovery disabled: left to the compositor");
		connector_handle_event(conn, LG_EVENT_LINK_BAD);
		return false;
	}
	if (conn->state == LG_LINK_FLAPPING) {
		lg_conn_log(conn, LG_INFO, "held while flapping: not answered yet");
		return false;
	}
	if (!conn->output->enabled) {
		lg_conn_log(conn, LG_INFO, "output disabled: nothing to retrain");
		return false;
	}
	if (conn->state == LG_LINK_GOOD || conn->state == LG_LINK_DEGRADED) {
		// A link that had held went BAD: a new incident.
		conn->incident_commits = 0;
		const struct lg_options *options = &conn->manager->options;
		if (lg_flap_record(&conn->flaps, lg_now_ms(), options->flap_count,
				options->flap_window_ms)) {
			recovery_hold(conn);
			return false;
		}
	}
	// A recovery still settling failed: the next rung of the ladder.
	recovery_cancel(conn);
	connector_handle_event(conn, LG_EVENT_LINK_BAD);
	return true;
}

/*
 * One wlr_backend_test/wlr_backend_commit for every planned connector.
 * Returns false, having committed nothing, when the outputs are on
 * different backends or the backend refuses them together.
 */
static bool commit_together(struct recovery_plan *plans, size_t n) {
	struct wlr_backend_output_state *states = calloc(n, sizeof(*states));
	if (states == NULL) {
		return false;
	}
	struct wlr_backend *backend = plans[0].conn->output->backend;
	size_t built = 0;
	for (; built < n; built++) {
		struct lg_connector *conn = plans[built].conn;
		if (conn->output->backend != backend || !recovery_build_state(conn,
				&states[built].base, &plans[built].mode)) {
			break;
		}
		states[built].output = conn->output;
	}
	bool ok = built == n && wlr_backend_test(backend, states, n);
	if (ok) {
		for (size_t i = 0; i < n; i++) {
			plans[i].conn->committing = true;
		}
		ok = wlr_backend_commit(backend, states, n);
		for (size_t i = 0; i < n; i++) {
			plans[i].conn->committing = false;
		}
	}
	for (size_t i = 0; i < built; i++) {
		wlr_output_state_finish(&states[i].base);
	}
	free(states);
	return ok;
}

static void recover_together(struct lg_connector **conns, size_t n) {
	struct recovery_plan *plans = calloc(n, sizeof(*plans));
	if (plans == NULL) {
		lg_log(LG_ERROR, "allocation failed: recovering one by one");
		for (size_t i = 0; i < n; i++) {
			recovery_run(conns[i]);
		}
		return;
	}
	size_t planned = 0;
	for (size_t i = 0; i < n; i++) {
		planned += recovery_plan(conns[i], &plans[planned]);
	}
	if (planned > 0 && commit_together(plans, planned)) {
		lg_log(LG_INFO, "%zu connectors recovered in one commit", planned);
		for (size_t i = 0; i < planned; i++) {
			recovery_committed(&plans[i]);
		}
	} else {
		if (planned > 1) {
			lg_log(LG_INFO, "the connectors do not commit together: "
				"one by one");
		}
		for (size_t i = 0; i < planned; i++) {
			recovery_run(plans[i].conn);
		}
	}
	free(plans);
}

void lg_connectors_hotplug(struct lg_connector *const *conns, size_t n) {
	struct lg_connector **bad = calloc(n + 1, sizeof(*bad));
	if (bad == NULL) {
		lg_log(LG_ERROR, "allocation failed: hotplug ignored");
		return;
	}
	size_t n_bad = 0;
	for (size_t i = 0; i < n; i++) {
		if (wants_recovery(conns[i])) {
			bad[n_bad++] = conns[i];
		}
	}
	// The compositor's commit hook takes one output at a time.
	if (n_bad > 1 && bad[0]->manager->options.commit == NULL) {
		recover_together(bad, n_bad);
	} else {
		for (size_t i = 0; i < n_bad; i++) {
			recovery_run(bad[i]);
		}
	}
	free(bad);
}

void lg_connector_hotplug(struct lg_connector *conn) {
	lg_connectors_hotplug(&conn, 1);
}
