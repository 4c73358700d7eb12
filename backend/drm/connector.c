/*
 * One DRM connector behind an lg_connector: link-status and mode lists read
 * through the kms seam, the kernel's exact timings committed through
 * wlroots, and the classification of every output destroy.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/backend/session.h>
#include <wlr/types/wlr_output.h>
#include <linkguard/backend.h>
#include <linkguard/log.h>
#include <kms/device.h>
#include <kms/identity.h>

static struct drm_connector *drm_connector_from_conn(struct lg_connector *conn) {
	return conn->data;
}

/* The kernel timings behind mode, from the last list the kernel gave. */
static const drmModeModeInfo *find_info(const struct drm_connector *dc,
		const struct lg_mode *mode) {
	for (size_t i = 0; i < dc->kms_modes.len; i++) {
		struct lg_mode m = kms_mode_to_lg(&dc->kms_modes.modes[i]);
		if (lg_mode_equal(&m, mode)) {
			return &dc->kms_modes.modes[i];
		}
	}
	return NULL;
}

static bool read_state(struct drm_connector *dc, struct kms_connector_state *state) {
	const struct drm_device *device = dc->device;
	if (!device->kms->read(device->kms_data, dc->id, state)) {
		drm_log(dc, LG_ERROR, "cannot read connector %" PRIu32, dc->id);
		return false;
	}
	drm_link_state_read(dc, state);
	return true;
}

static enum lg_link_status drm_get_link_status(struct lg_connector *conn) {
	struct drm_connector *dc = drm_connector_from_conn(conn);
	struct kms_connector_state state;
	if (!read_state(dc, &state)) {
		return LG_LINK_STATUS_GOOD;
	}
	// Asked before every DPCD read: what decides the next ones is fresh.
	drm_connector_update_reads(dc, &state);
	return state.has_link_status ? state.link_status : LG_LINK_STATUS_GOOD;
}

static enum lg_probe_result drm_probe(struct lg_connector *conn,
		struct lg_mode_list *modes) {
	struct drm_connector *dc = drm_connector_from_conn(conn);
	const struct drm_device *device = dc->device;
	// wlroots probed it a moment ago (a new output): its list is current.
	bool force = !dc->probed;
	dc->probed = false;
	bool connected = false;
	struct kms_modes kms_modes = {0};
	if (!device->kms->get_modes(device->kms_data, dc->id, force, &connected,
			&kms_modes)) {
		return LG_PROBE_FAILED;
	}
	dc->forced_probes += force;
	if (!connected) {
		kms_modes_finish(&kms_modes);
		drm_log(dc, LG_INFO, "disconnected when probed");
		return LG_PROBE_GONE;
	}
	lg_mode_list_clear(modes);
	for (size_t i = 0; i < kms_modes.len; i++) {
		struct lg_mode mode = kms_mode_to_lg(&kms_modes.modes[i]);
		if (mode.width <= 0 || mode.height <= 0 || mode.refresh_mhz <= 0) {
			drm_log(dc, LG_DEBUG, "mode %zu has no usable timings, skipped", i);
			continue;
		}
		if (!lg_mode_list_append(modes, &mode)) {
			kms_modes_finish(&kms_modes);
			return LG_PROBE_FAILED;
		}
	}
	kms_modes_finish(&dc->kms_modes);
	dc->kms_modes = kms_modes;
	drm_link_changed(dc);
	return LG_PROBE_OK;
}

static bool drm_set_mode(struct lg_connector *conn, struct wlr_output_state *state,
		const struct lg_mode *mode) {
	struct drm_connector *dc = drm_connector_from_conn(conn);
	const drmModeModeInfo *info = find_info(dc, mode);
	if (info == NULL || conn->output == NULL) {
		return false;
	}
	return dc->device->kms->set_mode(dc->device->kms_data, conn->output, state, info);
}

static bool drm_check_mode(struct lg_connector *conn, const struct lg_mode *mode) {
	struct drm_connector *dc = drm_connector_from_conn(conn);
	const drmModeModeInfo *info = find_info(dc, mode);
	if (info == NULL || conn->output == NULL) {
		return false;
	}
	return dc->device->kms->test_mode(dc->device->kms_data, conn->output, info);
}

static bool drm_blank(struct lg_connector *conn) {
	struct drm_connector *dc = drm_connector_from_conn(conn);
	return dc->device->kms->blank(dc->device->kms_data, dc->id);
}

/* The sink's DPCD, within the deadline (kms/reader.h). */
static bool drm_get_sink_status(struct lg_connector *conn,
		struct lg_sink_status *status) {
	struct drm_connector *dc = drm_connector_from_conn(conn);
	const struct drm_device *device = dc->device;
	if (dc->aux_fd < 0) {
		return false;
	}
	struct dpcd_regs regs;
	int ret = aux_reader_read(&dc->reader, device->aux, device->aux_data,
		dc->aux_fd, &regs);
	if (ret != 0) {
		drm_connector_read_failed(dc, ret);
		return false;
	}
	dc->aux_error = 0;
	dc->aux_failures = 0;
	if (!dpcd_decode(&regs, status)) {
		drm_log(dc, LG_DEBUG, "DPCD holds no DisplayPort link state: ignored");
		return false;
	}
	drm_link_read_caps(dc);
	drm_link_read_back(dc, &status->link);
	return true;
}

static void close_aux(struct drm_connector *dc) {
	if (dc->aux_fd >= 0) {
		dc->device->aux->close(dc->device->aux_data, dc->aux_fd);
		dc->aux_fd = -1;
	}
}

/*
 * The connector's AUX device, opened once per output (an MST stream's
 * comes and goes with it). Without access, linkguard runs as without DPCD
 * and says so once per device.
 */
static void open_aux(struct drm_connector *dc) {
	struct drm_device *device = dc->device;
	close_aux(dc);
	dc->aux_error = 0;
	int fd = device->aux->open(device->aux_data, device->dev->dev,
		dc->conn->name);
	if (fd >= 0) {
		dc->aux_fd = fd;
		drm_log(dc, LG_DEBUG, "reading the sink's DPCD");
		return;
	}
	if (fd == -EACCES || fd == -EPERM) {
		lg_log(device->aux_denied_logged ? LG_DEBUG : LG_INFO,
			"drm: %s: DP AUX device not readable (%s): running without "
			"the sink's link status (see SINK DPCD in linkguard(7))",
			dc->conn->name, strerror(-fd));
		device->aux_denied_logged = true;
	} else {
		drm_log(dc, LG_DEBUG, "no DP AUX device: %s", strerror(-fd));
	}
}

static void drm_mode_committed(struct lg_connector *conn, const struct lg_mode *mode) {
	drm_link_committed(drm_connector_from_conn(conn), mode);
}

static bool drm_choose_link(struct lg_connector *conn, const struct lg_mode *mode,
		struct lg_link_params *params) {
	return drm_link_choose(drm_connector_from_conn(conn), mode, params);
}

static const char *drm_get_identity(struct lg_connector *conn) {
	return drm_connector_from_conn(conn)->identity;
}

static void drm_destroy(struct lg_connector *conn) {
	struct drm_connector *dc = drm_connector_from_conn(conn);
	aux_reader_finish(&dc->reader); // a hung read ends before its fd closes
	close_aux(dc);
	free(dc->identity);
	wl_list_remove(&dc->output_destroy.link);
	wl_list_remove(&dc->link);
	kms_modes_finish(&dc->kms_modes);
	free(dc);
}

static const struct lg_connector_impl drm_connector_impl = {
	.get_link_status = drm_get_link_status,
	.probe = drm_probe,
	.set_mode = drm_set_mode,
	.check_mode = drm_check_mode,
	.blank = drm_blank,
	.mode_committed = drm_mode_committed,
	.get_sink_status = drm_get_sink_status,
	.get_identity = drm_get_identity,
	.destroy = drm_destroy,
	.choose_link = drm_choose_link,
	.sink_reads = drm_connector_sink_reads,
};

static const char *destroy_cause_name(enum drm_destroy_cause cause) {
	switch (cause) {
	case DRM_DESTROY_UNPLUG:
		return "unplugged";
	case DRM_DESTROY_BAD_LINK:
		return "bad link: wlroots recreates the output";
	case DRM_DESTROY_INACTIVE:
		return "session inactive";
	case DRM_DESTROY_OTHER:
		return "lease, compositor or shutdown";
	}
	return "?";
}

/*
 * Only reads: a destroy handler must not modeset. A bad-link recreate keeps
 * the connector's state; the new output gets it as the recommended state.
 */
static enum drm_destroy_cause classify_destroy(struct drm_connector *dc) {
	struct wlr_session *session = dc->device->session;
	if (session != NULL && !session->active) {
		return DRM_DESTROY_INACTIVE;
	}
	struct kms_connector_state state;
	if (!read_state(dc, &state) || !state.connected) {
		return DRM_DESTROY_UNPLUG;
	}
	if (state.has_link_status && state.link_status == LG_LINK_STATUS_BAD) {
		return DRM_DESTROY_BAD_LINK;
	}
	return DRM_DESTROY_OTHER;
}

static void handle_output_destroy(struct wl_listener *listener, void *data) {
	struct drm_connector *dc = wl_container_of(listener, dc, output_destroy);
	wl_list_remove(&dc->output_destroy.link);
	wl_list_init(&dc->output_destroy.link);
	dc->last_destroy = classify_destroy(dc);
	drm_log(dc, LG_INFO, "output destroyed: %s",
		destroy_cause_name(dc->last_destroy));
	if (dc->last_destroy == DRM_DESTROY_UNPLUG) {
		lg_connector_set_connected(dc->conn, false);
	}
}

/* The monitor now on the connector, from its EDID (no EDID: no identity). */
static void read_identity(struct drm_connector *dc) {
	const struct drm_device *device = dc->device;
	free(dc->identity);
	dc->identity = NULL;
	void *edid = NULL;
	size_t size = 0;
	if (device->kms->get_edid(device->kms_data, dc->id, &edid, &size)) {
		dc->identity = drm_identity_from_edid(edid, size);
		free(edid);
	}
}

void drm_connector_set_output(struct drm_connector *dc, struct wlr_output *output) {
	wl_list_remove(&dc->output_destroy.link);
	dc->output_destroy.notify = handle_output_destroy;
	wl_signal_add(&output->events.destroy, &dc->output_destroy);
	dc->probed = true;
	read_identity(dc);
	open_aux(dc);
	drm_link_reset(dc);
	struct kms_connector_state state;
	if (read_state(dc, &state)) {
		drm_connector_update_reads(dc, &state);
	}
	if (output->description != NULL) {
		lg_connector_set_description(dc->conn, output->description);
	}
	lg_connector_set_connected(dc->conn, true);
	lg_connector_set_output(dc->conn, output);
}

struct drm_connector *drm_connector_create(struct drm_device *device,
		uint32_t id, struct wlr_output *output) {
	struct drm_connector *dc = calloc(1, sizeof(*dc));
	if (dc == NULL) {
		lg_log(LG_ERROR, "drm: out of memory");
		return NULL;
	}
	dc->device = device;
	dc->id = id;
	dc->aux_fd = -1;
	aux_reader_init(&dc->reader, device->aux_timeout_ms);
	wl_list_init(&dc->output_destroy.link);
	dc->conn = lg_connector_create(device->manager, &drm_connector_impl,
		device->dev->dev, id, output->name);
	if (dc->conn == NULL) {
		free(dc);
		return NULL;
	}
	dc->conn->data = dc;
	wl_list_insert(device->connectors.prev, &dc->link);
	return dc;
}

bool drm_connector_wants_check(struct drm_connector *dc,
		enum lg_link_status *link_status) {
	if (dc->conn->output == NULL) {
		// wlroots' own scan creates the output of a new sink.
		return false;
	}
	struct kms_connector_state state;
	if (!read_state(dc, &state)) {
		return false;
	}
	if (!state.connected) {
		drm_log(dc, LG_INFO, "disconnected: wlroots removes the output");
		return false;
	}
	drm_connector_update_reads(dc, &state);
	if (!state.has_link_status) {
		drm_log(dc, LG_DEBUG, "no link-status property: nothing to watch");
		return false;
	}
	*link_status = state.link_status;
	return true;
}
