/*
 * One DRM device's events: the session's hotplug uevents for it, the new
 * outputs of its backend and the session coming back from a VT switch.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <wlr/backend.h>
#include <wlr/backend/session.h>
#include <wlr/types/wlr_output.h>
#include <linkguard/backend.h>
#include <linkguard/log.h>
#include <kms/device.h>

struct drm_connector *drm_device_find_connector(struct drm_device *device,
		uint32_t id) {
	struct drm_connector *dc;
	wl_list_for_each(dc, &device->connectors, link) {
		if (dc->id == id) {
			return dc;
		}
	}
	return NULL;
}

static bool session_active(const struct drm_device *device) {
	return device->session == NULL || device->session->active;
}

/* Hands every connector with a link to check to the core, as one event. */
static void check_all(struct drm_device *device) {
	size_t n = (size_t)wl_list_length(&device->connectors);
	struct lg_hotplug *hotplugs = calloc(n + 1, sizeof(*hotplugs));
	if (hotplugs == NULL) {
		lg_log(LG_ERROR, "drm: out of memory: hotplug ignored");
		return;
	}
	size_t n_check = 0;
	struct drm_connector *dc;
	wl_list_for_each(dc, &device->connectors, link) {
		struct lg_hotplug *hotplug = &hotplugs[n_check];
		if (drm_connector_wants_check(dc, &hotplug->link_status)) {
			hotplug->conn = dc->conn;
			n_check++;
		}
	}
	lg_connectors_hotplug(hotplugs, n_check);
	free(hotplugs);
}

static void handle_change(struct wl_listener *listener, void *data) {
	struct drm_device *device = wl_container_of(listener, device, change);
	const struct wlr_device_change_event *event = data;
	if (event->type != WLR_DEVICE_HOTPLUG) {
		return;
	}
	if (!session_active(device)) {
		// The KMS state is not ours while away: every connector is
		// looked at again when the session comes back.
		return;
	}
	uint32_t id = event->hotplug.connector_id;
	if (id == 0) {
		// A bare HOTPLUG=1 (older kernels): any connector may be BAD.
		check_all(device);
		return;
	}
	struct drm_connector *dc = drm_device_find_connector(device, id);
	if (dc == NULL) {
		lg_log(LG_DEBUG, "drm: hotplug for connector %" PRIu32 ": not one of "
			"ours (yet)", id);
		return;
	}
	enum lg_link_status link_status;
	if (drm_connector_wants_check(dc, &link_status)) {
		lg_connector_hotplug(dc->conn, link_status);
	}
}

static void handle_new_output(struct wl_listener *listener, void *data) {
	struct drm_device *device = wl_container_of(listener, device, new_output);
	struct wlr_output *output = data;
	uint32_t id = device->kms->output_connector_id(device->kms_data, output);
	if (id == 0) {
		return;
	}
	struct drm_connector *dc = drm_device_find_connector(device, id);
	if (dc == NULL) {
		dc = drm_connector_create(device, id, output);
	}
	if (dc != NULL) {
		drm_connector_set_output(dc, output);
	}
}

static void handle_session_active(struct wl_listener *listener, void *data) {
	struct drm_device *device = wl_container_of(listener, device, session_active);
	if (!device->session->active) {
		return;
	}
	// wlroots restored its KMS state first (its listener is older); a link
	// may have failed meanwhile, uevent or not.
	check_all(device);
}

/*
 * A DPCD read is three AUX transactions of a millisecond or so (six on
 * kernels before 6.17): a sink that has not answered in a second has
 * stopped answering.
 */
#define AUX_TIMEOUT_MS 1000

struct drm_device *drm_device_create(struct lg_manager *manager,
		struct wlr_session *session, struct wlr_device *dev,
		struct wlr_backend *backend, const struct kms_impl *kms, void *kms_data,
		const struct aux_impl *aux, void *aux_data) {
	struct drm_device *device = calloc(1, sizeof(*device));
	if (device == NULL) {
		lg_log(LG_ERROR, "drm: out of memory");
		return NULL;
	}
	device->manager = manager;
	device->session = session;
	device->dev = dev;
	device->backend = backend;
	device->kms = kms;
	device->kms_data = kms_data;
	device->aux = aux;
	device->aux_data = aux_data;
	device->aux_timeout_ms = AUX_TIMEOUT_MS;
	wl_list_init(&device->connectors);
	drm_device_read_driver(device);

	/*
	 * At the head of both lists, ahead of wlroots' own listeners: the
	 * hotplug must be answered (same mode retrained, or a fallback
	 * committed with link-status GOOD) before wlroots' handler sees BAD
	 * and recreates the output; a new output must be bound to its
	 * connector before the compositor's new_output handler (reached
	 * through the multi backend) asks linkguard for a mode.
	 */
	device->change.notify = handle_change;
	wl_list_insert(&dev->events.change.listener_list, &device->change.link);
	device->new_output.notify = handle_new_output;
	wl_list_insert(&backend->events.new_output.listener_list,
		&device->new_output.link);
	wl_list_init(&device->session_active.link);
	if (session != NULL) {
		device->session_active.notify = handle_session_active;
		wl_signal_add(&session->events.active, &device->session_active);
	}
	return device;
}

void drm_device_destroy(struct drm_device *device) {
	if (device == NULL) {
		return;
	}
	wl_list_remove(&device->change.link);
	wl_list_remove(&device->new_output.link);
	wl_list_remove(&device->session_active.link);
	struct drm_connector *dc, *tmp;
	wl_list_for_each_safe(dc, tmp, &device->connectors, link) {
		lg_connector_destroy(dc->conn);
	}
	free(device);
}
