#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <wlr/backend.h>
#include <wlr/backend/headless.h>
#include <wlr/types/wlr_output.h>
#include "edid.h"
#include "replay.h"

static struct replay_connector *find(struct replay *replay, uint32_t id) {
	for (size_t i = 0; i < replay->n_conns; i++) {
		if (replay->conns[i].id == id) {
			return &replay->conns[i];
		}
	}
	return NULL;
}

/* What a forced probe reports: the sink's modes the link still carries. */
static void probe(struct replay_connector *rc) {
	rc->n_listed = 0;
	for (size_t i = 0; rc->connected && i < rc->n_sink; i++) {
		if (rc->sink[i].clock <= rc->link_khz) {
			rc->listed[rc->n_listed++] = rc->sink[i];
		}
	}
}

static const drmModeModeInfo *preferred(const struct replay_connector *rc) {
	for (size_t i = 0; i < rc->n_listed; i++) {
		if (rc->listed[i].type & DRM_MODE_TYPE_PREFERRED) {
			return &rc->listed[i];
		}
	}
	return rc->n_listed > 0 ? &rc->listed[0] : NULL;
}

static bool replay_read(void *data, uint32_t conn_id,
		struct kms_connector_state *state) {
	struct replay_connector *rc = find(data, conn_id);
	if (rc == NULL) {
		return false;
	}
	rc->bad_reads += rc->has_link_status && rc->link_status == LG_LINK_STATUS_BAD;
	*state = (struct kms_connector_state){
		.connected = rc->connected,
		.has_link_status = rc->has_link_status,
		.link_status = rc->link_status,
		.max_bpc = rc->max_bpc,
		.type = rc->type != 0 ? rc->type : DRM_MODE_CONNECTOR_DisplayPort,
	};
	return true;
}

static bool replay_get_modes(void *data, uint32_t conn_id, bool force,
		bool *connected, struct kms_modes *modes) {
	struct replay_connector *rc = find(data, conn_id);
	if (rc == NULL) {
		return false;
	}
	if (force) {
		rc->forced_probes++;
		if (rc->gone_on_probe) {
			rc->connected = false;
		}
		probe(rc);
	}
	*connected = rc->connected;
	modes->len = rc->n_listed;
	modes->modes = calloc(rc->n_listed + 1, sizeof(*modes->modes));
	if (modes->modes == NULL) {
		return false;
	}
	memcpy(modes->modes, rc->listed, rc->n_listed * sizeof(*rc->listed));
	return true;
}

static bool replay_get_edid(void *data, uint32_t conn_id, void **edid,
		size_t *size) {
	struct replay_connector *rc = find(data, conn_id);
	if (rc == NULL || rc->serial == NULL || (*edid = malloc(128)) == NULL) {
		return false;
	}
	make_edid(*edid, rc->serial);
	*size = 128;
	return true;
}

static void handle_commit(struct wl_listener *listener, void *data);
static void handle_destroy(struct wl_listener *listener, void *data);

static uint32_t replay_output_connector_id(void *data, struct wlr_output *output) {
	struct replay *replay = data;
	for (size_t i = 0; i < replay->n_conns; i++) {
		if (replay->conns[i].output == output) {
			return replay->conns[i].id;
		}
	}
	struct replay_connector *rc = replay->adding;
	if (rc == NULL) {
		return 0;
	}
	replay->adding = NULL;
	rc->output = output;
	if (rc->name[0] == '\0') {
		snprintf(rc->name, sizeof(rc->name), "%s", output->name);
	}
	// As on DRM, a recreated output describes the same monitor again.
	wlr_output_set_description(output, "Replayed 4K60 monitor");
	rc->commit.notify = handle_commit;
	wl_signal_add(&output->events.commit, &rc->commit);
	rc->destroy.notify = handle_destroy;
	wl_signal_add(&output->events.destroy, &rc->destroy);
	return rc->id;
}

static bool replay_set_mode(void *data, struct wlr_output *output,
		struct wlr_output_state *state, const drmModeModeInfo *info) {
	wlr_output_state_set_custom_mode(state, info->hdisplay, info->vdisplay,
		kms_mode_refresh_mhz(info));
	return true;
}

/* The atomic check: the mode fits the link (at some bpp). */
static bool replay_test_mode(void *data, struct wlr_output *output,
		const drmModeModeInfo *info) {
	uint32_t id = replay_output_connector_id(data, output);
	struct replay_connector *rc = find(data, id);
	if (rc == NULL) {
		return false;
	}
	rc->mode_tests++;
	return rc->connected && info->clock <= rc->link_khz;
}

static struct replay_connector *find_by_name(struct replay *replay,
		const char *name) {
	for (size_t i = 0; i < replay->n_conns; i++) {
		struct replay_connector *rc = &replay->conns[i];
		if (strcmp(rc->name, name) == 0) {
			return rc;
		}
	}
	return NULL;
}

static struct replay_connector *find_by_fd(struct replay *replay, int fd) {
	size_t i = (size_t)(fd - REPLAY_AUX_FD_BASE);
	return fd >= REPLAY_AUX_FD_BASE && i < replay->n_conns ?
		&replay->conns[i] : NULL;
}

static int replay_aux_open(void *data, dev_t card, const char *name) {
	struct replay *replay = data;
	struct replay_connector *rc = find_by_name(replay, name);
	if (rc == NULL) {
		return -ENOENT;
	}
	if (rc->aux_open_error != 0) {
		return rc->aux_open_error;
	}
	rc->aux_opens++;
	return REPLAY_AUX_FD_BASE + (int)(rc - replay->conns);
}

/* A lane's symbol error count is cleared once the sink sent both bytes. */
static void clear_counters(struct replay_connector *rc, uint32_t address,
		size_t len) {
	for (uint32_t lane = 0; lane < 4; lane++) {
		uint32_t low = DPCD_SYMBOL_ERROR_COUNT_LANE0 + 2 * lane;
		if (address <= low && low + 2 <= address + len) {
			rc->dpcd[low] = 0;
			rc->dpcd[low + 1] &= DPCD_ERROR_COUNT_VALID >> 8;
		}
	}
}

static uint8_t dpcd_byte(const struct replay_connector *rc, uint64_t address) {
	if (address < REPLAY_DPCD_SIZE) {
		return rc->dpcd[address];
	}
	if (address >= DPCD_EXT_CAPS && address < DPCD_EXT_CAPS + DPCD_EXT_CAPS_LEN) {
		return rc->dpcd_ext[address - DPCD_EXT_CAPS];
	}
	return 0;
}

/*
 * As drm_dp_aux_dev.c: 16 bytes per AUX transaction, what was read before
 * the first failed one, the error if that was the first; nothing past 1 MiB.
 */
static ssize_t replay_aux_pread(void *data, int fd, void *buf, size_t len,
		off_t address) {
	struct replay_connector *rc = find_by_fd(data, fd);
	if (rc == NULL) {
		return -EBADF;
	}
	rc->aux_reads++;
	while (rc->aux_hangs) {
		pause(); // until the read is cancelled
	}
	if (rc->aux_read_error != 0) {
		return rc->aux_read_error;
	}
	size_t done = 0;
	for (uint64_t pos = (uint64_t)address; done < len && pos < (1u << 20);) {
		size_t chunk = len - done < 16 ? len - done : 16;
		if ((rc->aux_reply_end != 0 && pos + chunk > rc->aux_reply_end) ||
				pos < rc->aux_fail_below) {
			return done > 0 ? (ssize_t)done : -EIO;
		}
		for (size_t i = 0; i < chunk; i++) {
			((uint8_t *)buf)[done + i] = dpcd_byte(rc, pos + i);
		}
		done += chunk;
		pos += chunk;
	}
	done -= done < rc->aux_short_by ? done : rc->aux_short_by;
	clear_counters(rc, (uint32_t)address, done);
	return (ssize_t)done;
}

static void replay_aux_close(void *data, int fd) {
	struct replay_connector *rc = find_by_fd(data, fd);
	if (rc != NULL) {
		rc->aux_closes++;
	}
}

const struct aux_impl replay_aux_impl = {
	.open = replay_aux_open,
	.pread = replay_aux_pread,
	.close = replay_aux_close,
};

/* DPMS off: the CRTC stops; the compositor hears nothing of it. */
static bool replay_blank(void *data, uint32_t conn_id) {
	struct replay_connector *rc = find(data, conn_id);
	if (rc == NULL || rc->blank_fails) {
		return false;
	}
	rc->blanks++;
	rc->lit = false;
	return true;
}

static bool replay_driver_name(void *data, char *name, size_t size) {
	const struct replay *replay = data;
	if (replay->driver == NULL) {
		return false;
	}
	snprintf(name, size, "%s", replay->driver);
	return true;
}

/*
 * debugfs is root's: only the files a test gave are readable, i915's link
 * maximum where the test wrote it, through the libdrm side's reader.
 */
static ssize_t replay_read_debugfs(void *data, const char *conn_name,
		const char *file, char *buf, size_t size) {
	struct replay *replay = data;
	struct replay_connector *rc = find_by_name(replay, conn_name);
	if (rc == NULL) {
		return -ENOENT;
	}
	if (strcmp(file, "i915_dp_link_retrain_disabled") != 0) {
		return replay->debugfs[0] == '\0' ? -ENOENT :
			kms_debugfs_read(replay->debugfs, replay->dev.dev, conn_name, file,
				buf, size);
	}
	if (rc->retrain_disabled == NULL) {
		return -EACCES;
	}
	int n = snprintf(buf, size, "%s", rc->retrain_disabled);
	return n < (int)size ? n : (ssize_t)size - 1;
}

const struct kms_impl replay_kms_impl = {
	.read = replay_read,
	.get_modes = replay_get_modes,
	.get_edid = replay_get_edid,
	.output_connector_id = replay_output_connector_id,
	.set_mode = replay_set_mode,
	.test_mode = replay_test_mode,
	.blank = replay_blank,
	.driver_name = replay_driver_name,
	.read_debugfs = replay_read_debugfs,
};

static int handle_uevent_timer(void *data) {
	struct replay *replay = data;
	struct replay_connector *rc = find(replay, replay->pending_uevent);
	if (rc != NULL) {
		rc->link_status = LG_LINK_STATUS_BAD;
	}
	replay_uevent(replay, replay->pending_uevent);
	return 0;
}

/*
 * The clock of the mode the output runs; a custom mode without a refresh
 * (a stock compositor enabling a new output as it comes) is the listed mode
 * of that size, the preferred one first.
 */
static uint32_t committed_clock(const struct replay_connector *rc) {
	uint32_t clock = 0;
	for (size_t i = 0; i < rc->n_sink; i++) {
		const drmModeModeInfo *info = &rc->sink[i];
		if (info->hdisplay != rc->output->width ||
				info->vdisplay != rc->output->height) {
			continue;
		}
		if (kms_mode_refresh_mhz(info) == rc->output->refresh) {
			return info->clock;
		}
		if (rc->output->refresh == 0 &&
				(clock == 0 || (info->type & DRM_MODE_TYPE_PREFERRED))) {
			clock = info->clock;
		}
	}
	return clock;
}

/*
 * wlroots writes link-status GOOD with every modeset; the kernel trains the
 * link, and a training that fails sends BAD again from its worker. Only
 * where drm_atomic_crtc_needs_modeset() holds: the CRTC lit anew, another
 * mode, or link-status written over BAD; the mode that runs committed again
 * retrains nothing.
 */
static void handle_commit(struct wl_listener *listener, void *data) {
	struct replay_connector *rc = wl_container_of(listener, rc, commit);
	const struct wlr_output_event_commit *event = data;
	struct wlr_output *output = rc->output;
	if (!event->state->allow_reconfiguration) {
		return;
	}
	bool modeset = !rc->lit || rc->link_status == LG_LINK_STATUS_BAD ||
		rc->lit_width != output->width || rc->lit_height != output->height ||
		rc->lit_refresh_mhz != output->refresh;
	rc->lit = output->enabled;
	rc->lit_width = output->width;
	rc->lit_height = output->height;
	rc->lit_refresh_mhz = output->refresh;
	if (!output->enabled || !modeset) {
		return;
	}
	rc->link_status = LG_LINK_STATUS_GOOD;
	// The sink locks again on the new training.
	uint8_t lanes = rc->dpcd[DPCD_LINK_BW_SET + DPCD_LANE_COUNT_SET] & 0x1f;
	replay_dpcd_trained(rc, rc->dpcd[DPCD_LINK_BW_SET], lanes);
	if (rc->cascade_khz == 0 || committed_clock(rc) <= rc->cascade_khz) {
		return;
	}
	rc->link_khz = rc->cascade_khz;
	rc->cascade_khz = 0;
	struct replay *replay = rc->replay;
	replay->pending_uevent = rc->id;
	wl_event_source_timer_update(replay->uevent_timer, 1);
}

static void handle_destroy(struct wl_listener *listener, void *data) {
	struct replay_connector *rc = wl_container_of(listener, rc, destroy);
	wl_list_remove(&rc->commit.link);
	wl_list_remove(&rc->destroy.link);
	rc->output = NULL;
}

static void add_output(struct replay_connector *rc) {
	const drmModeModeInfo *mode = preferred(rc);
	if (mode == NULL) {
		return;
	}
	rc->replay->adding = rc;
	wlr_headless_add_output(rc->replay->backend, mode->hdisplay, mode->vdisplay);
}

/*
 * wlroots' answer to BAD: it turns the CRTC off (a modeset) as it destroys
 * the output, and creates a new one with the pruned list.
 */
static void recreate(struct replay_connector *rc) {
	if (rc->output->enabled) {
		struct wlr_output_state off;
		wlr_output_state_init(&off);
		wlr_output_state_set_enabled(&off, false);
		wlr_output_commit_state(rc->output, &off);
		wlr_output_state_finish(&off);
	}
	wlr_output_destroy(rc->output);
	rc->recreates++;
	probe(rc);
	add_output(rc);
}

static void stock_check(struct replay_connector *rc) {
	if (rc->output == NULL) {
		return;
	}
	if (!rc->connected) {
		wlr_output_destroy(rc->output);
	} else if (rc->has_link_status && rc->link_status == LG_LINK_STATUS_BAD) {
		recreate(rc);
	}
}

static void handle_stock_change(struct wl_listener *listener, void *data) {
	struct replay *replay = wl_container_of(listener, replay, stock_change);
	const struct wlr_device_change_event *event = data;
	if (!replay->session.active) {
		return;
	}
	for (size_t i = 0; i < replay->n_conns; i++) {
		struct replay_connector *rc = &replay->conns[i];
		if (event->hotplug.connector_id == 0 ||
				event->hotplug.connector_id == rc->id) {
			stock_check(rc);
		}
	}
}

static void handle_stock_active(struct wl_listener *listener, void *data) {
	struct replay *replay = wl_container_of(listener, replay, stock_active);
	for (size_t i = 0; replay->session.active && i < replay->n_conns; i++) {
		stock_check(&replay->conns[i]);
	}
}

void replay_init(struct replay *replay, struct wl_event_loop *loop,
		struct wlr_backend *backend) {
	*replay = (struct replay){ .loop = loop, .backend = backend };
	replay->session.active = true;
	wl_signal_init(&replay->session.events.active);
	wl_signal_init(&replay->session.events.destroy);
	replay->dev.dev = makedev(226, 0);
	wl_signal_init(&replay->dev.events.change);
	wl_signal_init(&replay->dev.events.remove);
	replay->uevent_timer = wl_event_loop_add_timer(loop, handle_uevent_timer, replay);
	wl_list_init(&replay->stock_change.link);
	wl_list_init(&replay->stock_active.link);
}

void replay_add_stock(struct replay *replay) {
	// wlroots' listeners: ours go to the head of the change list, theirs
	// to the session's active list first (the DRM backend is older).
	replay->stock_change.notify = handle_stock_change;
	wl_signal_add(&replay->dev.events.change, &replay->stock_change);
	replay->stock_active.notify = handle_stock_active;
	wl_list_insert(&replay->session.events.active.listener_list,
		&replay->stock_active.link);
}

void replay_finish(struct replay *replay) {
	wl_list_remove(&replay->stock_change.link);
	wl_list_remove(&replay->stock_active.link);
	wl_event_source_remove(replay->uevent_timer);
}

drmModeModeInfo replay_mode(uint16_t w, uint16_t h, uint32_t hz,
		uint32_t clock_khz, bool preferred) {
	uint16_t htotal = w + 160;
	// hz 0: a vtotal of 0, timings a broken EDID could give.
	uint32_t vtotal = hz == 0 ? 0 : (uint32_t)(((uint64_t)clock_khz * 1000 +
		htotal * hz / 2) / ((uint64_t)htotal * hz));
	drmModeModeInfo info = {
		.clock = clock_khz,
		.hdisplay = w,
		.hsync_start = w + 48,
		.hsync_end = w + 80,
		.htotal = htotal,
		.vdisplay = h,
		.vsync_start = h + 3,
		.vsync_end = h + 8,
		.vtotal = (uint16_t)vtotal,
		.vrefresh = hz,
		.type = DRM_MODE_TYPE_DRIVER | (preferred ? DRM_MODE_TYPE_PREFERRED : 0),
	};
	snprintf(info.name, sizeof(info.name), "%ux%u", w, h);
	return info;
}

size_t replay_monitor_4k(drmModeModeInfo modes[4]) {
	modes[0] = replay_mode(3840, 2160, 60, 533250, true);
	modes[1] = replay_mode(3840, 2160, 30, 262750, false);
	modes[2] = replay_mode(2560, 1440, 60, 241500, false);
	modes[3] = replay_mode(1920, 1080, 60, 148500, false);
	return 4;
}

struct replay_connector *replay_add_connector(struct replay *replay,
		uint32_t id, const drmModeModeInfo *sink, size_t n_sink) {
	struct replay_connector *rc = &replay->conns[replay->n_conns++];
	*rc = (struct replay_connector){
		.replay = replay,
		.id = id,
		.has_link_status = true,
		.link_khz = UINT32_MAX,
		.n_sink = n_sink,
	};
	memcpy(rc->sink, sink, n_sink * sizeof(*sink));
	replay_dpcd_trained(rc, 0x14, 4); // HBR2 x4
	return rc;
}

void replay_plug(struct replay_connector *rc) {
	rc->connected = true;
	rc->link_status = LG_LINK_STATUS_GOOD;
	probe(rc);
	add_output(rc);
}

void replay_dpcd_trained(struct replay_connector *rc, uint8_t bw_code,
		uint32_t lanes) {
	memset(rc->dpcd + DPCD_LINK_BW_SET, 0, sizeof(rc->dpcd) - DPCD_LINK_BW_SET);
	rc->dpcd[DPCD_LINK_BW_SET] = bw_code;
	rc->dpcd[DPCD_LINK_BW_SET + DPCD_LANE_COUNT_SET] = (uint8_t)(lanes | 0x80);
	rc->dpcd[DPCD_LINK_BW_SET + DPCD_CHANNEL_CODING_SET] = DPCD_CODING_8B10B;
	rc->dpcd[DPCD_SINK_COUNT] = 1;
	for (uint32_t lane = 0; lane < lanes; lane++) {
		rc->dpcd[DPCD_SINK_COUNT + DPCD_LANE0_1_STATUS + lane / 2] |=
			(uint8_t)(0x7 << (4 * (lane % 2)));
		replay_dpcd_set_errors(rc, lane, 0);
	}
	rc->dpcd[DPCD_SINK_COUNT + DPCD_LANE_ALIGN_STATUS_UPDATED] =
		DPCD_INTERLANE_ALIGN_DONE;
	rc->dpcd[DPCD_SINK_COUNT + DPCD_SINK_STATUS] = DPCD_RECEIVE_PORT_0_STATUS;
}

void replay_dpcd_caps(struct replay_connector *rc, uint8_t bw_code,
		uint8_t lanes) {
	rc->dpcd[0] = 0x14; // DPCD_REV 1.4
	rc->dpcd[DPCD_MAX_LINK_RATE] = bw_code;
	rc->dpcd[DPCD_MAX_LANE_COUNT] = (uint8_t)(lanes | 0x80);
}

void replay_dpcd_unlock(struct replay_connector *rc) {
	rc->dpcd[DPCD_SINK_COUNT + DPCD_LANE0_1_STATUS] = 0x11; // clock recovery only
	rc->dpcd[DPCD_SINK_COUNT + DPCD_LANE0_1_STATUS + 1] = 0x11;
	rc->dpcd[DPCD_SINK_COUNT + DPCD_LANE_ALIGN_STATUS_UPDATED] = 0;
	rc->dpcd[DPCD_SINK_COUNT + DPCD_SINK_STATUS] = 0;
}

void replay_dpcd_set_errors(struct replay_connector *rc, uint32_t lane,
		uint16_t count) {
	uint16_t value = (uint16_t)(DPCD_ERROR_COUNT_VALID | (count & 0x7fff));
	rc->dpcd[DPCD_SYMBOL_ERROR_COUNT_LANE0 + 2 * lane] = value & 0xff;
	rc->dpcd[DPCD_SYMBOL_ERROR_COUNT_LANE0 + 2 * lane + 1] = value >> 8;
}

void replay_lower_link(struct replay_connector *rc, uint32_t link_khz) {
	rc->link_khz = link_khz;
	rc->link_status = LG_LINK_STATUS_BAD;
}

void replay_uevent(struct replay *replay, uint32_t conn_id) {
	struct wlr_device_change_event event = {
		.type = WLR_DEVICE_HOTPLUG,
		.hotplug = { .connector_id = conn_id },
	};
	wl_signal_emit_mutable(&replay->dev.events.change, &event);
}

void replay_set_active(struct replay *replay, bool active) {
	replay->session.active = active;
	wl_signal_emit_mutable(&replay->session.events.active, NULL);
}

bool replay_bed_init(struct replay_bed *bed, const struct lg_options *options,
		bool stock_compositor) {
	if (!harness_init_headless(&bed->h, options)) {
		return false;
	}
	bed->h.stock_compositor = stock_compositor;
	replay_init(&bed->replay, bed->h.loop, bed->h.backend);
	bed->device = drm_device_create(bed->h.manager, &bed->replay.session,
		&bed->replay.dev, bed->h.backend, &replay_kms_impl, &bed->replay,
		&replay_aux_impl, &bed->replay);
	replay_add_stock(&bed->replay);
	return bed->device != NULL && wlr_backend_start(bed->h.backend);
}

void replay_bed_finish(struct replay_bed *bed) {
	drm_device_destroy(bed->device);
	replay_finish(&bed->replay);
	harness_finish(&bed->h);
}
