#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/types/wlr_output.h>
#include <linkguard/backend.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <core/config.h>
#include <core/recovery.h>

static void handle_display_destroy(struct wl_listener *listener, void *data) {
	struct lg_manager *manager =
		wl_container_of(listener, manager, display_destroy);
	lg_manager_destroy(manager);
}

struct lg_manager *lg_manager_create(struct wl_display *display,
		struct wlr_backend *backend, struct wlr_session *session,
		const struct lg_options *options) {
	struct lg_manager *manager = calloc(1, sizeof(*manager));
	if (manager == NULL) {
		lg_log(LG_ERROR, "allocation failed");
		return NULL;
	}
	manager->display = display;
	manager->event_loop = wl_display_get_event_loop(display);
	manager->backend = backend;
	manager->session = session;
	if (options != NULL) {
		manager->options = *options;
	} else {
		lg_options_init(&manager->options);
	}
	if (manager->options.state_dir != NULL) {
		manager->state_dir = strdup(manager->options.state_dir);
		manager->options.state_dir = manager->state_dir;
	}
	// Read now: the config keeps what it needs of these.
	manager->config = config_create(&manager->options);
	manager->options.config_path = NULL;
	manager->options.settings = NULL;
	if (manager->config == NULL) {
		lg_log(LG_ERROR, "allocation failed");
		free(manager->state_dir);
		free(manager);
		return NULL;
	}
	wl_list_init(&manager->connectors);
	wl_signal_init(&manager->events.new_connector);
	wl_signal_init(&manager->events.fallback);
	wl_signal_init(&manager->events.restored);
	wl_signal_init(&manager->events.failed);
	wl_signal_init(&manager->events.incident);
	wl_signal_init(&manager->events.destroy);

	manager->display_destroy.notify = handle_display_destroy;
	wl_display_add_destroy_listener(display, &manager->display_destroy);

	lg_log(LG_DEBUG, "watching links (%s policy, flap %" PRIu32 " in %" PRIu32
		" ms)", lg_policy_name(manager->options.policy),
		manager->options.flap_count, manager->options.flap_window_ms);
	return manager;
}

void lg_manager_destroy(struct lg_manager *manager) {
	if (manager == NULL) {
		return;
	}
	// Backends drop their connectors on this signal.
	wl_signal_emit_mutable(&manager->events.destroy, manager);
	struct lg_connector *conn, *tmp;
	wl_list_for_each_safe(conn, tmp, &manager->connectors, link) {
		lg_connector_destroy(conn);
	}
	wl_list_remove(&manager->display_destroy.link);
	config_destroy(manager->config);
	free(manager->state_dir);
	free(manager);
}

struct lg_connector *lg_manager_find_connector(struct lg_manager *manager,
		dev_t device, uint32_t id) {
	struct lg_connector *conn;
	wl_list_for_each(conn, &manager->connectors, link) {
		if (conn->device == device && conn->id == id) {
			return conn;
		}
	}
	return NULL;
}

struct lg_connector *lg_manager_connector_from_output(struct lg_manager *manager,
		struct wlr_output *output) {
	struct lg_connector *conn;
	wl_list_for_each(conn, &manager->connectors, link) {
		if (conn->output == output) {
			return conn;
		}
	}
	return NULL;
}

bool lg_manager_recommend_state(struct lg_manager *manager,
		struct wlr_output *output, struct wlr_output_state *state) {
	struct lg_connector *conn = lg_manager_connector_from_output(manager, output);
	struct lg_mode mode;
	if (conn == NULL || !recovery_recommend(conn, &mode)) {
		return false;
	}
	if (!conn->impl->set_mode(conn, state, &mode)) {
		return false;
	}
	if (conn->has_last_placement) {
		wlr_output_state_set_scale(state, conn->last_scale);
		wlr_output_state_set_transform(state, conn->last_transform);
	}
	char buf[64];
	lg_conn_log(conn, LG_INFO, "recommending %s",
		lg_mode_format(&mode, buf, sizeof(buf)));
	conn->recommended = mode;
	conn->has_recommended = true;
	return true;
}
