/*
 * lg-old-server VERSION: a compositor that offers zlg_link_manager_v1 at
 * VERSION (1 or 2) only, as one built before version 3 did, with no
 * connector: enough for a client to find out what it speaks. Prints
 * "running on WAYLAND_DISPLAY=NAME"; runs until SIGTERM or SIGINT.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <wayland-server-core.h>
#include "linkguard-link-v1-protocol.h"

static void handle_stop(struct wl_client *client, struct wl_resource *resource) {
	zlg_link_manager_v1_send_finished(resource);
}

static void handle_destroy(struct wl_client *client, struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct zlg_link_manager_v1_interface manager_impl = {
	.stop = handle_stop,
	.destroy = handle_destroy,
};

static void bind_manager(struct wl_client *client, void *data, uint32_t version,
		uint32_t id) {
	struct wl_resource *resource = wl_resource_create(client,
		&zlg_link_manager_v1_interface, (int)version, id);
	if (resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, NULL, NULL);
	zlg_link_manager_v1_send_done(resource);
}

static int handle_signal(int signal_number, void *data) {
	wl_display_terminate(data);
	return 0;
}

int main(int argc, char *argv[]) {
	int version = argc == 2 ? atoi(argv[1]) : 0;
	if (version < 1 || version > 2) {
		fprintf(stderr, "usage: %s 1|2\n", argv[0]);
		return EXIT_FAILURE;
	}
	struct wl_display *display = wl_display_create();
	const char *socket = display != NULL ? wl_display_add_socket_auto(display) : NULL;
	if (socket == NULL || wl_global_create(display,
			&zlg_link_manager_v1_interface, version, NULL, bind_manager) == NULL) {
		fprintf(stderr, "lg-old-server: cannot set up the display\n");
		return EXIT_FAILURE;
	}
	struct wl_event_loop *loop = wl_display_get_event_loop(display);
	struct wl_event_source *term = wl_event_loop_add_signal(loop, SIGTERM,
		handle_signal, display);
	struct wl_event_source *intr = wl_event_loop_add_signal(loop, SIGINT,
		handle_signal, display);
	printf("lg-old-server: version %d, running on WAYLAND_DISPLAY=%s\n",
		version, socket);
	fflush(stdout);
	wl_display_run(display);
	wl_event_source_remove(term);
	wl_event_source_remove(intr);
	wl_display_destroy_clients(display);
	wl_display_destroy(display);
	return EXIT_SUCCESS;
}
