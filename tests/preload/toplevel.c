/*
 * lg-toplevel: the smallest xdg-shell client that maps a window (a shm
 * buffer of whatever size the compositor configures) and keeps it mapped
 * until killed, so that a test can watch the layout follow an output.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>
#include "xdg-shell-client-protocol.h"

struct toplevel {
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wl_surface *surface;
	int32_t width, height;
};

static void handle_ping(void *data, struct xdg_wm_base *wm_base, uint32_t serial) {
	xdg_wm_base_pong(wm_base, serial);
}

static const struct xdg_wm_base_listener wm_base_listener = {
	.ping = handle_ping,
};

/* A buffer of the configured size, black; the compositor owns it after. */
static struct wl_buffer *make_buffer(struct toplevel *t) {
	int32_t w = t->width > 0 ? t->width : 320, h = t->height > 0 ? t->height : 240;
	size_t size = (size_t)w * (size_t)h * 4;
	int fd = memfd_create("lg-toplevel", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
		return NULL;
	}
	struct wl_shm_pool *pool = wl_shm_create_pool(t->shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(pool, 0, w, h, w * 4,
		WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return buffer;
}

static void handle_surface_configure(void *data, struct xdg_surface *xdg_surface,
		uint32_t serial) {
	struct toplevel *t = data;
	xdg_surface_ack_configure(xdg_surface, serial);
	struct wl_buffer *buffer = make_buffer(t);
	if (buffer == NULL) {
		exit(1);
	}
	wl_surface_attach(t->surface, buffer, 0, 0);
	wl_surface_damage_buffer(t->surface, 0, 0, INT32_MAX, INT32_MAX);
	wl_surface_commit(t->surface);
}

static const struct xdg_surface_listener surface_listener = {
	.configure = handle_surface_configure,
};

static void handle_toplevel_configure(void *data, struct xdg_toplevel *toplevel,
		int32_t width, int32_t height, struct wl_array *states) {
	struct toplevel *t = data;
	t->width = width;
	t->height = height;
}

static void handle_close(void *data, struct xdg_toplevel *toplevel) {
	exit(0);
}

static const struct xdg_toplevel_listener toplevel_listener = {
	.configure = handle_toplevel_configure,
	.close = handle_close,
};

static void handle_global(void *data, struct wl_registry *registry,
		uint32_t name, const char *interface, uint32_t version) {
	struct toplevel *t = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		t->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		t->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		t->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
	}
}

static void handle_global_remove(void *data, struct wl_registry *registry,
		uint32_t name) {
}

static const struct wl_registry_listener registry_listener = {
	.global = handle_global,
	.global_remove = handle_global_remove,
};

int main(void) {
	struct toplevel t = {0};
	struct wl_display *display = wl_display_connect(NULL);
	if (display == NULL) {
		fprintf(stderr, "lg-toplevel: no Wayland display\n");
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, &t);
	wl_display_roundtrip(display);
	if (t.compositor == NULL || t.shm == NULL || t.wm_base == NULL) {
		fprintf(stderr, "lg-toplevel: the compositor lacks a global we need\n");
		return 1;
	}
	xdg_wm_base_add_listener(t.wm_base, &wm_base_listener, &t);
	t.surface = wl_compositor_create_surface(t.compositor);
	struct xdg_surface *xdg_surface = xdg_wm_base_get_xdg_surface(t.wm_base, t.surface);
	xdg_surface_add_listener(xdg_surface, &surface_listener, &t);
	struct xdg_toplevel *toplevel = xdg_surface_get_toplevel(xdg_surface);
	xdg_toplevel_add_listener(toplevel, &toplevel_listener, &t);
	xdg_toplevel_set_title(toplevel, "lg-toplevel");
	xdg_toplevel_set_app_id(toplevel, "lg-toplevel");
	wl_surface_commit(t.surface);
	while (wl_display_dispatch(display) != -1) {
	}
	return 0;
}
