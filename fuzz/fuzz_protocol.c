/*
 * libFuzzer target: arbitrary requests from a client to linkguard's
 * linkguard-link-v1 server. A client binds zlg_link_manager_v1 properly
 * (so that the fuzzer starts where the protocol does), then the input is
 * written to the socket as raw wire messages: any object (the client's ids
 * 1-8, the server's first eight), any opcode, any arguments. Connectors
 * exist, one of them with a failing link, retries are allowed for odd
 * inputs, so that retries run, and the second bit picks the version bound. The compositor must survive every input;
 * protocol errors are fine, crashes and leaks are not.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-client-core.h>
#include <wayland-client-protocol.h>
#include <linkguard/protocol.h>
#include "drm/replay.h"
#include "linkguard-link-v1-client-protocol.h"
#include "stack/client.h"

#define MAX_WORDS 16

static bool allow_retry(const struct wl_client *client, void *data) {
	return *(const bool *)data;
}

/* One message: object, opcode, argument words; returns bytes consumed. */
static size_t write_message(int fd, const uint8_t *data, size_t size) {
	if (size < 3) {
		return size;
	}
	uint32_t id = data[0] % 16;
	id = id < 8 ? id + 1 : 0xff000000 + id - 8;
	size_t n_words = data[2] % MAX_WORDS;
	size_t used = 3;
	uint32_t msg[2 + MAX_WORDS] = {0};
	for (size_t i = 0; i < n_words && used + 4 <= size; i++, used += 4) {
		memcpy(&msg[2 + i], data + used, 4);
	}
	msg[0] = id;
	msg[1] = (uint32_t)((2 + n_words) * 4) << 16 | data[1] % 4;
	if (write(fd, msg, (2 + n_words) * 4) < 0) {
		return size;
	}
	return used;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	if (size < 1) {
		return 0;
	}
	struct lg_options options;
	lg_options_init(&options);
	options.settle_ms = 1;
	struct replay_bed bed;
	harness_quiet();
	if (!replay_bed_init(&bed, &options, false)) {
		abort();
	}
	bool retry = data[0] & 1;
	const struct lg_link_protocol_filter filter = {
		.may_retry = allow_retry,
		.data = &retry,
	};
	if (lg_link_protocol_create(bed.h.manager, &filter) == NULL) {
		abort();
	}
	// Small modes: cheap headless buffers, many more inputs a second.
	const drmModeModeInfo modes[] = {
		replay_mode(1280, 720, 60, 74250, true),
		replay_mode(640, 480, 60, 25175, false),
	};
	replay_plug(replay_add_connector(&bed.replay, 42, modes, 2));
	struct replay_connector *bad = replay_add_connector(&bed.replay, 43, modes, 2);
	replay_plug(bad);
	replay_lower_link(bad, 50000);

	struct harness_client client;
	if (!harness_client_connect(&client, bed.h.display) ||
			client.link_manager == 0) {
		abort();
	}
	// id 3: the manager; its connectors get the server's first ids. The
	// client reads nothing from now on: the events are the server's answer,
	// not ours to parse.
	// Version 1, 2 (the skipped modes) or 3 (the incidents), by the
	// input's second and third bits.
	struct zlg_link_manager_v1 *manager = wl_registry_bind(client.registry,
		client.link_manager, &zlg_link_manager_v1_interface,
		(data[0] & 4) ? 3 : (data[0] & 2) ? 2 : 1);
	wl_display_flush(client.display);
	int fd = wl_display_get_fd(client.display);
	for (size_t used = 1; used < size;) {
		used += write_message(fd, data + used, size - used);
	}
	for (int i = 0; i < 4; i++) {
		wl_event_loop_dispatch(bed.h.loop, 1);
		wl_display_flush_clients(bed.h.display);
	}
	zlg_link_manager_v1_destroy(manager);
	harness_client_finish(&client);
	replay_bed_finish(&bed);
	return 0;
}
