#ifndef BENCH_CLIENT_H
#define BENCH_CLIENT_H

/*
 * A Wayland client inside the benchmark's process, on a socketpair to the
 * compositor: it sees wl_output globals come and go as any client would.
 */

#include <stdbool.h>
#include <wayland-client-core.h>

struct wl_display;

#define BENCH_CLIENT_MAX_OUTPUTS 64

struct bench_client {
	struct wl_display *server;
	struct wl_display *display;
	struct wl_registry *registry;
	uint32_t outputs[BENCH_CLIENT_MAX_OUTPUTS]; // global names
	int n_outputs;
	int outputs_added, outputs_removed;
};

bool bench_client_connect(struct bench_client *client, struct wl_display *server);
/* Lets the server send what it has and reads it, without blocking. */
void bench_client_sync(struct bench_client *client);
void bench_client_finish(struct bench_client *client);

#endif
