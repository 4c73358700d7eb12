/*
 * libFuzzer target: hotplug events as the kernel and wlroots could deliver
 * them, through backend/drm and the core, on wlroots' headless backend with
 * the replayed kernel of tests/drm/. The input is a program: sinks plugged
 * with odd mode lists (zero or absurd timings, duplicates), links lowered,
 * uevents for known, unknown and no connector (a bare HOTPLUG=1), sinks gone
 * at probe time, missing link-status, cascades, VT switches and unplugs.
 * Checks that no output is lost or destroyed without a reason.
 */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/backend.h>
#include <wlr/types/wlr_output.h>
#include <kms/device.h>
#include <linkguard/connector.h>
#include "drm/replay.h"

struct input {
	const uint8_t *data;
	size_t size;
};

static uint8_t next(struct input *in) {
	if (in->size == 0) {
		return 0;
	}
	in->size--;
	return *in->data++;
}

static uint16_t next16(struct input *in) {
	return (uint16_t)(next(in) | next(in) << 8);
}

/* Small sizes keep the pixman buffers cheap; timings are left wild. */
static void plug(struct replay *replay, struct input *in) {
	uint32_t id = next(in);
	size_t n = next(in) % REPLAY_MAX_MODES;
	if (id == 0 || replay->n_conns == REPLAY_MAX_CONNECTORS) {
		return;
	}
	for (size_t i = 0; i < replay->n_conns; i++) {
		if (replay->conns[i].id == id) {
			return;
		}
	}
	drmModeModeInfo modes[REPLAY_MAX_MODES];
	for (size_t i = 0; i < n; i++) {
		uint16_t w = 16 + next(in) % 16 * 16, h = 16 + next(in) % 16 * 16;
		uint32_t hz = next(in);
		modes[i] = replay_mode(w, h, hz, next16(in) * 10u, next(in) & 1);
	}
	replay_plug(replay_add_connector(replay, id, modes, n));
}

static struct replay_connector *pick(struct replay *replay, struct input *in) {
	uint8_t i = next(in);
	return replay->n_conns > 0 ? &replay->conns[i % replay->n_conns] : NULL;
}

static void run(struct harness *h, struct replay *replay, struct input *in) {
	while (in->size > 0) {
		uint8_t op = next(in) % 10;
		if (op == 0) {
			plug(replay, in);
			continue;
		}
		if (op == 1) {
			replay_uevent(replay, next(in) % 4 == 0 ? 0 : next(in));
			continue;
		}
		if (op == 2) {
			replay_set_active(replay, !replay->session.active);
			continue;
		}
		if (op == 3) {
			wl_event_loop_dispatch(h->loop, 2);
			continue;
		}
		struct replay_connector *rc = pick(replay, in);
		if (rc == NULL) {
			continue;
		}
		switch (op) {
		case 4:
			replay_lower_link(rc, next16(in) * 10u);
			break;
		case 5:
			rc->gone_on_probe = !rc->gone_on_probe;
			break;
		case 6:
			rc->has_link_status = !rc->has_link_status;
			break;
		case 7:
			rc->link_status = LG_LINK_STATUS_BAD;
			break;
		case 8:
			rc->cascade_khz = next16(in) * 10u;
			break;
		case 9:
			rc->connected = false;
			replay_uevent(replay, rc->id);
			break;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	struct lg_options options;
	lg_options_init(&options);
	options.settle_ms = 1;
	options.flap_window_ms = 20;
	struct replay_bed bed;
	harness_quiet();
	if (!replay_bed_init(&bed, &options, false)) {
		abort();
	}
	struct harness *h = &bed.h;
	struct replay *replay = &bed.replay;

	struct input in = { data, size };
	run(h, replay, &in);

	int recreates = 0;
	for (size_t i = 0; i < replay->n_conns; i++) {
		const struct replay_connector *rc = &replay->conns[i];
		struct drm_connector *dc = drm_device_find_connector(bed.device, rc->id);
		// linkguard drives exactly the output wlroots has for the connector.
		assert(rc->output == NULL || (dc != NULL && dc->conn->output == rc->output));
		recreates += rc->recreates;
	}
	// An output goes only when wlroots destroys it: unplug or recreate.
	assert(h->outputs_destroyed <= recreates + (int)replay->n_conns);
	replay_bed_finish(&bed);
	return 0;
}
