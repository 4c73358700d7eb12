/*
 * kms_impl on a real DRM device: libdrm on the fd wlroots' DRM backend
 * opened, and the driver's debugfs files of its connectors where they are
 * readable. Reads, and atomic checks through wlroots: the KMS state
 * belongs to wlroots. The one write is blank's DPMS off, right before a
 * commit of wlroots' that turns the CRTC on again, so that wlroots' view
 * of it is true once more when the event loop runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <wlr/backend/drm.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_output.h>
#include <xf86drm.h>
#include <linkguard/log.h>
#include <core/test_buffer.h>
#include <kms/kms.h>

void kms_modes_finish(struct kms_modes *modes) {
	free(modes->modes);
	modes->modes = NULL;
	modes->len = 0;
}

int32_t kms_mode_refresh_mhz(const drmModeModeInfo *info) {
	if (info->htotal == 0 || info->vtotal == 0) {
		return 0;
	}
	uint64_t refresh = ((uint64_t)info->clock * 1000000 / info->htotal +
		info->vtotal / 2) / info->vtotal;
	if (info->flags & DRM_MODE_FLAG_INTERLACE) {
		refresh *= 2;
	}
	if (info->flags & DRM_MODE_FLAG_DBLSCAN) {
		refresh /= 2;
	}
	if (info->vscan > 1) {
		refresh /= info->vscan;
	}
	return refresh > INT32_MAX ? 0 : (int32_t)refresh;
}

struct lg_mode kms_mode_to_lg(const drmModeModeInfo *info) {
	return (struct lg_mode){
		.width = info->hdisplay,
		.height = info->vdisplay,
		.refresh_mhz = kms_mode_refresh_mhz(info),
		.clock_khz = info->clock,
		.preferred = info->type & DRM_MODE_TYPE_PREFERRED,
		.interlaced = info->flags & DRM_MODE_FLAG_INTERLACE,
	};
}

/* Finds the id of the connector property called name, once per device. */
static uint32_t find_prop(int fd, const drmModeConnector *conn,
		const char *name, uint32_t *cached) {
	if (*cached != 0) {
		return *cached;
	}
	for (int i = 0; i < conn->count_props; i++) {
		drmModePropertyRes *prop = drmModeGetProperty(fd, conn->props[i]);
		if (prop == NULL) {
			continue;
		}
		bool found = strcmp(prop->name, name) == 0;
		drmModeFreeProperty(prop);
		if (found) {
			*cached = conn->props[i];
			break;
		}
	}
	return *cached;
}

static bool prop_value(const drmModeConnector *conn, uint32_t prop,
		uint64_t *value) {
	for (int i = 0; prop != 0 && i < conn->count_props; i++) {
		if (conn->props[i] == prop) {
			*value = conn->prop_values[i];
			return true;
		}
	}
	return false;
}

static bool libdrm_read(void *data, uint32_t conn_id,
		struct kms_connector_state *state) {
	struct kms_libdrm *kms = data;
	drmModeConnector *conn = drmModeGetConnectorCurrent(kms->fd, conn_id);
	if (conn == NULL) {
		lg_log_errno(LG_ERROR, "drm: connector %u: cannot read it", conn_id);
		return false;
	}
	uint64_t value = 0, max_bpc = 0;
	uint32_t prop = find_prop(kms->fd, conn, "link-status", &kms->link_status_prop);
	*state = (struct kms_connector_state){
		.connected = conn->connection == DRM_MODE_CONNECTED,
		.has_link_status = prop_value(conn, prop, &value),
		.link_status = value == DRM_MODE_LINK_STATUS_BAD ?
			LG_LINK_STATUS_BAD : LG_LINK_STATUS_GOOD,
		.type = conn->connector_type,
	};
	// Each connector has a "max bpc" of its own (its range is the driver's
	// for that connector): looked up every time.
	uint32_t max_bpc_prop = 0;
	prop = find_prop(kms->fd, conn, "max bpc", &max_bpc_prop);
	if (prop_value(conn, prop, &max_bpc) && max_bpc <= UINT32_MAX) {
		state->max_bpc = (uint32_t)max_bpc;
	}
	drmModeFreeConnector(conn);
	return true;
}

static bool libdrm_get_modes(void *data, uint32_t conn_id, bool force,
		bool *connected, struct kms_modes *modes) {
	struct kms_libdrm *kms = data;
	drmModeConnector *conn = force ? drmModeGetConnector(kms->fd, conn_id) :
		drmModeGetConnectorCurrent(kms->fd, conn_id);
	if (conn == NULL) {
		lg_log_errno(LG_ERROR, "drm: connector %u: %s failed", conn_id,
			force ? "forced probe" : "mode list read");
		return false;
	}
	*connected = conn->connection == DRM_MODE_CONNECTED;
	modes->len = 0;
	modes->modes = NULL;
	if (conn->count_modes > 0) {
		modes->modes = calloc((size_t)conn->count_modes, sizeof(*modes->modes));
		if (modes->modes == NULL) {
			drmModeFreeConnector(conn);
			return false;
		}
		memcpy(modes->modes, conn->modes,
			(size_t)conn->count_modes * sizeof(*conn->modes));
		modes->len = (size_t)conn->count_modes;
	}
	drmModeFreeConnector(conn);
	return true;
}

static bool libdrm_get_edid(void *data, uint32_t conn_id, void **edid,
		size_t *size) {
	struct kms_libdrm *kms = data;
	drmModeConnector *conn = drmModeGetConnectorCurrent(kms->fd, conn_id);
	if (conn == NULL) {
		return false;
	}
	uint64_t blob_id = 0;
	uint32_t prop = find_prop(kms->fd, conn, "EDID", &kms->edid_prop);
	bool has_blob = prop_value(conn, prop, &blob_id) && blob_id != 0;
	drmModeFreeConnector(conn);
	if (!has_blob) {
		return false;
	}
	drmModePropertyBlobRes *blob = drmModeGetPropertyBlob(kms->fd, (uint32_t)blob_id);
	if (blob == NULL) {
		return false;
	}
	*edid = malloc(blob->length);
	if (*edid != NULL) {
		memcpy(*edid, blob->data, blob->length);
		*size = blob->length;
	}
	drmModeFreePropertyBlob(blob);
	return *edid != NULL;
}

static uint32_t libdrm_output_connector_id(void *data, struct wlr_output *output) {
	struct kms_libdrm *kms = data;
	if (!wlr_output_is_drm(output) || output->backend != kms->backend) {
		return 0;
	}
	return wlr_drm_connector_get_id(output);
}

/* The same timings: the name, type and vrefresh fields are derived. */
static bool same_timings(const drmModeModeInfo *a, const drmModeModeInfo *b) {
	return a->clock == b->clock && a->hdisplay == b->hdisplay &&
		a->hsync_start == b->hsync_start && a->hsync_end == b->hsync_end &&
		a->htotal == b->htotal && a->hskew == b->hskew &&
		a->vdisplay == b->vdisplay && a->vsync_start == b->vsync_start &&
		a->vsync_end == b->vsync_end && a->vtotal == b->vtotal &&
		a->vscan == b->vscan && a->flags == b->flags;
}

static struct wlr_output_mode *find_output_mode(struct wlr_output *output,
		const drmModeModeInfo *info) {
	struct wlr_output_mode *mode;
	wl_list_for_each(mode, &output->modes, link) {
		const drmModeModeInfo *mode_info = wlr_drm_mode_get_info(mode);
		if (mode_info != NULL && same_timings(mode_info, info)) {
			return mode;
		}
	}
	return NULL;
}

static bool libdrm_set_mode(void *data, struct wlr_output *output,
		struct wlr_output_state *state, const drmModeModeInfo *info) {
	// The pruned list is a subset of what wlroots listed; a mode the
	// kernel added since (a replug) is added with its exact timings.
	struct wlr_output_mode *mode = find_output_mode(output, info);
	if (mode == NULL) {
		mode = wlr_drm_connector_add_mode(output, info);
	}
	if (mode == NULL) {
		return false;
	}
	wlr_output_state_set_mode(state, mode);
	return true;
}

static bool libdrm_test_mode(void *data, struct wlr_output *output,
		const drmModeModeInfo *info) {
	struct wlr_output_state state;
	wlr_output_state_init(&state);
	wlr_output_state_set_enabled(&state, true);
	bool ok = libdrm_set_mode(data, output, &state, info);
	if (ok) {
		// With a buffer, a test of the mode that runs is a real atomic
		// check too, with ALLOW_MODESET and link-status GOOD, of the
		// link as it is now.
		output_attach_test_buffer(output, &state);
	}
	ok = ok && wlr_output_test_state(output, &state);
	wlr_output_state_finish(&state);
	return ok;
}

/*
 * The legacy DPMS property: the atomic helpers turn it into ACTIVE=0 on the
 * CRTC (drm_atomic_connector_commit_dpms()), a blocking commit that waits
 * for a pending page flip. wlroots writes ACTIVE=1 with its next modeset.
 */
static bool libdrm_blank(void *data, uint32_t conn_id) {
	struct kms_libdrm *kms = data;
	if (kms->dpms_prop == 0) {
		drmModeConnector *conn = drmModeGetConnectorCurrent(kms->fd, conn_id);
		if (conn == NULL) {
			lg_log_errno(LG_ERROR, "drm: connector %u: cannot read it", conn_id);
			return false;
		}
		find_prop(kms->fd, conn, "DPMS", &kms->dpms_prop);
		drmModeFreeConnector(conn);
	}
	uint32_t prop = kms->dpms_prop;
	if (prop == 0) {
		lg_log(LG_ERROR, "drm: connector %u has no DPMS property", conn_id);
		return false;
	}
	if (drmModeConnectorSetProperty(kms->fd, conn_id, prop, DRM_MODE_DPMS_OFF) != 0) {
		lg_log_errno(LG_ERROR, "drm: connector %u: DPMS off failed", conn_id);
		return false;
	}
	return true;
}

static bool libdrm_driver_name(void *data, char *name, size_t size) {
	struct kms_libdrm *kms = data;
	drmVersion *version = drmGetVersion(kms->fd);
	if (version == NULL) {
		return false;
	}
	snprintf(name, size, "%s", version->name != NULL ? version->name : "");
	drmFreeVersion(version);
	return name[0] != '\0';
}

static ssize_t libdrm_read_debugfs(void *data, const char *conn_name,
		const char *file, char *buf, size_t size) {
	struct kms_libdrm *kms = data;
	struct stat st;
	if (fstat(kms->fd, &st) != 0) {
		return -errno;
	}
	return kms_debugfs_read(KMS_DEBUGFS_ROOT, st.st_rdev, conn_name, file,
		buf, size);
}

const struct kms_impl kms_libdrm_impl = {
	.read = libdrm_read,
	.get_modes = libdrm_get_modes,
	.get_edid = libdrm_get_edid,
	.output_connector_id = libdrm_output_connector_id,
	.set_mode = libdrm_set_mode,
	.test_mode = libdrm_test_mode,
	.blank = libdrm_blank,
	.driver_name = libdrm_driver_name,
	.read_debugfs = libdrm_read_debugfs,
};
