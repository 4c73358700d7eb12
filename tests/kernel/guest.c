#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>
#include "guest.h"

static bool find_crtc(struct guest_card *card, drmModeRes *res) {
	drmModePlaneRes *planes = drmModeGetPlaneResources(card->fd);
	if (res->count_crtcs == 0 || planes == NULL) {
		drmModeFreePlaneResources(planes);
		return false;
	}
	card->crtc_id = res->crtcs[0];
	for (uint32_t i = 0; i < planes->count_planes && card->plane_id == 0; i++) {
		drmModePlane *plane = drmModeGetPlane(card->fd, planes->planes[i]);
		uint32_t type_prop = guest_prop_id(card->fd, planes->planes[i],
			DRM_MODE_OBJECT_PLANE, "type");
		drmModeObjectProperties *props = drmModeObjectGetProperties(card->fd,
			planes->planes[i], DRM_MODE_OBJECT_PLANE);
		for (uint32_t j = 0; props != NULL && j < props->count_props; j++) {
			if (props->props[j] == type_prop && (plane->possible_crtcs & 1) &&
					props->prop_values[j] == DRM_PLANE_TYPE_PRIMARY) {
				card->plane_id = planes->planes[i];
			}
		}
		drmModeFreeObjectProperties(props);
		drmModeFreePlane(plane);
	}
	drmModeFreePlaneResources(planes);
	return card->plane_id != 0;
}

bool guest_card_open(struct guest_card *card) {
	*card = (struct guest_card){ .fd = open(GUEST_CARD, O_RDWR | O_CLOEXEC) };
	if (card->fd < 0) {
		perror(GUEST_CARD);
		return false;
	}
	if (drmSetClientCap(card->fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1) != 0 ||
			drmSetClientCap(card->fd, DRM_CLIENT_CAP_ATOMIC, 1) != 0) {
		fprintf(stderr, "%s: no atomic modesetting\n", GUEST_CARD);
		guest_card_close(card);
		return false;
	}
	// vkms has one connector (its writeback one is hidden without the
	// writeback client cap).
	drmModeRes *res = drmModeGetResources(card->fd);
	if (res != NULL && res->count_connectors > 0) {
		card->conn_id = res->connectors[0];
	}
	bool ok = res != NULL && card->conn_id != 0 && find_crtc(card, res);
	drmModeFreeResources(res);
	if (!ok) {
		fprintf(stderr, "%s: no connector with a CRTC and a primary plane\n",
			GUEST_CARD);
		guest_card_close(card);
	}
	return ok;
}

void guest_card_close(struct guest_card *card) {
	if (card->fd >= 0) {
		close(card->fd);
	}
	card->fd = -1;
}

uint32_t guest_prop_id(int fd, uint32_t obj, uint32_t type, const char *name) {
	drmModeObjectProperties *props = drmModeObjectGetProperties(fd, obj, type);
	uint32_t id = 0;
	for (uint32_t i = 0; props != NULL && i < props->count_props && id == 0; i++) {
		drmModePropertyRes *prop = drmModeGetProperty(fd, props->props[i]);
		if (prop != NULL && strcmp(prop->name, name) == 0) {
			id = prop->prop_id;
		}
		drmModeFreeProperty(prop);
	}
	drmModeFreeObjectProperties(props);
	return id;
}

bool guest_trigger(const char *fmt, ...) {
	char cmd[64];
	va_list args;
	va_start(args, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, args);
	va_end(args);
	int fd = open(GUEST_TRIGGER, O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, cmd, strlen(cmd)) == (ssize_t)strlen(cmd);
	if (!ok) {
		fprintf(stderr, "%s: '%s': %m\n", GUEST_TRIGGER, cmd);
	}
	if (fd >= 0) {
		close(fd);
	}
	return ok;
}
