#include <assert.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/types/wlr_output.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <core/backend.h>
#include <core/clock.h>
#include <core/config.h>
#include <core/configure.h>
#include <core/known_bad.h>
#include <core/recovery.h>
#include <core/sink.h>

/* A forced probe found the sink gone. */
static void unplug(struct lg_connector *conn) {
	lg_connector_set_connected(conn, false);
}

struct lg_connector *lg_connector_create(struct lg_manager *manager,
		const struct lg_connector_impl *impl, dev_t device, uint32_t id,
		const char *name) {
	assert(impl->get_link_status && impl->probe && impl->set_mode &&
		impl->check_mode);
	struct lg_connector *conn = calloc(1, sizeof(*conn));
	if (conn == NULL) {
		lg_log(LG_ERROR, "%s: allocation failed", name);
		return NULL;
	}
	conn->name = strdup(name);
	conn->impl = impl;
	conn->manager = manager;
	conn->options = calloc(1, sizeof(*conn->options));
	conn->device = device;
	// The backend has not set conn->data yet: no monitor to ask about.
	if (conn->name == NULL || conn->options == NULL ||
			!recovery_create(conn, unplug) ||
			!connector_configure(conn, NULL)) {
		lg_log(LG_ERROR, "%s: allocation failed", name);
		recovery_destroy(conn);
		free(conn->options);
		free(conn->name);
		free(conn);
		return NULL;
	}
	conn->id = id;
	conn->state = LG_LINK_GOOD;
	lg_mode_list_init(&conn->modes);
	lg_mode_list_init(&conn->known_bad);
	wl_signal_init(&conn->events.state_change);
	wl_signal_init(&conn->events.destroy);
	wl_list_init(&conn->output_commit.link);
	wl_list_init(&conn->output_destroy.link);
	wl_list_insert(manager->connectors.prev, &conn->link);

	lg_conn_log(conn, LG_DEBUG, "connector %" PRIu32 " registered", id);
	wl_signal_emit_mutable(&manager->events.new_connector, conn);
	return conn;
}

void lg_connector_destroy(struct lg_connector *conn) {
	if (conn == NULL) {
		return;
	}
	wl_signal_emit_mutable(&conn->events.destroy, conn);
	recovery_destroy(conn);
	wl_list_remove(&conn->output_commit.link);
	wl_list_remove(&conn->output_destroy.link);
	wl_list_remove(&conn->link);
	if (conn->impl->destroy != NULL) {
		conn->impl->destroy(conn);
	}
	lg_mode_list_finish(&conn->modes);
	lg_mode_list_finish(&conn->known_bad);
	settings_finish(conn->settings);
	free(conn->settings);
	free(conn->options);
	free(conn->description);
	free(conn->name);
	free(conn);
}

void lg_connector_set_description(struct lg_connector *conn, const char *desc) {
	if (conn->description != NULL && strcmp(conn->description, desc) == 0) {
		return;
	}
	char *copy = strdup(desc);
	if (copy == NULL) {
		return;
	}
	if (conn->description != NULL) {
		// Another monitor: what was asked of the last one does not apply.
		lg_conn_log(conn, LG_INFO, "new sink: %s", desc);
		conn->has_requested = false;
		conn->has_last_placement = false;
		lg_mode_list_clear(&conn->known_bad);
	}
	bool swapped = conn->description != NULL;
	free(conn->description);
	conn->description = copy;
	if (swapped) {
		connector_configure(conn, connector_identity(conn)); // its [monitor ID]
		recovery_feed(conn, LG_MACHINE_SINK_SWAP);
	}
	connector_changed(conn);
}

void lg_connector_set_connected(struct lg_connector *conn, bool connected) {
	if (conn->connected == connected) {
		return;
	}
	conn->connected = connected;
	lg_conn_log(conn, LG_INFO, "%s", connected ? "connected" : "disconnected");
	if (!connected) {
		lg_mode_list_clear(&conn->modes);
		known_bad_forget(conn);
		conn->has_link_params = false;
		sink_stop(conn);
	}
	// Whatever recovery was pending concerned the sink that left.
	recovery_feed(conn, connected ? LG_MACHINE_PLUG : LG_MACHINE_UNPLUG);
	connector_changed(conn);
}

/* The mode a commit left on the output, with the kernel's clock if listed. */
static void read_output_mode(struct lg_connector *conn, struct lg_mode *mode) {
	struct wlr_output *output = conn->output;
	*mode = (struct lg_mode){
		.width = output->width,
		.height = output->height,
		.refresh_mhz = output->refresh,
	};
	/*
	 * A custom mode without a refresh (a headless output a compositor
	 * enabled as it came) runs at the backend's default rate: the sink's
	 * mode of that size stands for it, the preferred one first.
	 */
	const struct lg_mode *sized = NULL;
	for (size_t i = 0; i < conn->modes.len; i++) {
		const struct lg_mode *listed = &conn->modes.modes[i];
		if (lg_mode_same_timing(listed, mode)) {
			*mode = *listed;
			return;
		}
		if (mode->refresh_mhz == 0 && listed->width == mode->width &&
				listed->height == mode->height &&
				(sized == NULL || (listed->preferred && !sized->preferred))) {
			sized = listed;
		}
	}
	if (sized != NULL) {
		*mode = *sized;
	}
}

static void handle_output_commit(struct wl_listener *listener, void *data) {
	struct lg_connector *conn = wl_container_of(listener, conn, output_commit);
	const struct wlr_output_event_commit *event = data;
	/*
	 * wlroots drops an unchanged mode from the committed fields, but a
	 * state that set one still allows reconfiguration: on DRM that commit
	 * is a modeset carrying link-status GOOD, which retrains the link.
	 */
	uint32_t modeset = WLR_OUTPUT_STATE_MODE | WLR_OUTPUT_STATE_ENABLED;
	if (!(event->state->committed & modeset) &&
			!event->state->allow_reconfiguration) {
		return;
	}

	if (!conn->output->enabled) {
		conn->has_current = false;
		if (conn->impl->mode_committed != NULL) {
			conn->impl->mode_committed(conn, NULL);
		}
		if (!conn->committing) {
			recovery_feed(conn, LG_MACHINE_OUTPUT_DISABLED);
		}
		if (!conn->relighting) {
			connector_changed(conn);
		}
		return;
	}

	const struct lg_mode previous = conn->current;
	bool had_current = conn->has_current;
	read_output_mode(conn, &conn->current);
	conn->has_current = true;
	bool ours = conn->committing;
	if (conn->impl->mode_committed != NULL) {
		conn->impl->mode_committed(conn, &conn->current);
	}
	connector_read_link(conn);
	if (!ours) {
		recovery_mode_set(conn, had_current ? &previous : NULL);
		conn->has_recommended = false;
	}
	connector_changed(conn);
}

static void handle_output_destroy(struct wl_listener *listener, void *data) {
	struct lg_connector *conn = wl_container_of(listener, conn, output_destroy);
	// Offered back to this connector's next output (a recreate, a replug).
	conn->has_last_placement = true;
	conn->last_scale = conn->output->scale;
	conn->last_transform = conn->output->transform;
	lg_connector_set_output(conn, NULL);
}

void lg_connector_set_output(struct lg_connector *conn, struct wlr_output *output) {
	if (conn->output == output) {
		return;
	}
	wl_list_remove(&conn->output_commit.link);
	wl_list_remove(&conn->output_destroy.link);
	wl_list_init(&conn->output_commit.link);
	wl_list_init(&conn->output_destroy.link);
	conn->output = output;
	conn->has_current = false;
	conn->has_recommended = false;
	if (output == NULL) {
		sink_stop(conn);
		lg_conn_log(conn, LG_DEBUG, "output gone");
		recovery_feed(conn, LG_MACHINE_OUTPUT_GONE);
		connector_changed(conn);
		return;
	}

	// Where a compositor's own modeset of a new output begins (the frame
	// it allocates and draws for it): beside linkguard's own steps.
	connector_trace(conn, "output new", NULL);
	conn->output_commit.notify = handle_output_commit;
	wl_signal_add(&output->events.commit, &conn->output_commit);
	conn->output_destroy.notify = handle_output_destroy;
	wl_signal_add(&output->events.destroy, &conn->output_destroy);
	enum lg_probe_result probed = connector_probe(conn);
	if (probed == LG_PROBE_OK) {
		connector_read_link(conn);
	} else if (probed == LG_PROBE_GONE) {
		unplug(conn);
	}
	connector_configure(conn, connector_identity(conn)); // the monitor is known now
	known_bad_load(conn);
	recovery_feed(conn, LG_MACHINE_OUTPUT_NEW);
	lg_conn_log(conn, LG_DEBUG, "driving output %s", output->name);
	connector_changed(conn);
}
