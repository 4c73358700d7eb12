#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <drm_fourcc.h>
#include <xf86drm.h>
#include "guest.h"

static int failures;

void guest_expect(bool cond, const char *fmt, ...) {
	va_list args;
	va_start(args, fmt);
	printf("%s: ", cond ? "ok" : "FAIL");
	vprintf(fmt, args);
	printf("\n");
	va_end(args);
	failures += !cond;
}

int guest_finish(const char *layer) {
	printf("%s: %s: %d failed\n", layer, failures == 0 ? "PASS" : "FAIL", failures);
	return failures == 0 ? 0 : 1;
}

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

bool guest_create_fb(struct guest_card *card, const struct kms_modes *modes) {
	uint32_t w = 0, h = 0;
	for (size_t i = 0; i < modes->len; i++) {
		w = modes->modes[i].hdisplay > w ? modes->modes[i].hdisplay : w;
		h = modes->modes[i].vdisplay > h ? modes->modes[i].vdisplay : h;
	}
	uint32_t handle, pitch;
	uint64_t size;
	if (drmModeCreateDumbBuffer(card->fd, w, h, 32, 0, &handle, &pitch, &size) != 0) {
		return false;
	}
	uint32_t handles[4] = { handle }, pitches[4] = { pitch }, offsets[4] = {0};
	return drmModeAddFB2(card->fd, w, h, DRM_FORMAT_XRGB8888, handles, pitches,
		offsets, &card->fb_id, 0) == 0;
}

static void add(drmModeAtomicReq *req, int fd, uint32_t obj, uint32_t type,
		const char *name, uint64_t value) {
	drmModeAtomicAddProperty(req, obj, guest_prop_id(fd, obj, type, name), value);
}

int guest_modeset(struct guest_card *card, const drmModeModeInfo *mode, bool good,
		bool test_only) {
	uint32_t blob = 0;
	if (mode != NULL && drmModeCreatePropertyBlob(card->fd, mode, sizeof(*mode), &blob) != 0) {
		return -errno;
	}
	drmModeAtomicReq *req = drmModeAtomicAlloc();
	int fd = card->fd;
	uint32_t c = DRM_MODE_OBJECT_CONNECTOR, k = DRM_MODE_OBJECT_CRTC, p = DRM_MODE_OBJECT_PLANE;
	uint32_t crtc = mode != NULL ? card->crtc_id : 0;
	add(req, fd, card->conn_id, c, "CRTC_ID", crtc);
	if (good) {
		add(req, fd, card->conn_id, c, "link-status", DRM_MODE_LINK_STATUS_GOOD);
	}
	add(req, fd, card->crtc_id, k, "MODE_ID", blob);
	add(req, fd, card->crtc_id, k, "ACTIVE", mode != NULL);
	add(req, fd, card->plane_id, p, "FB_ID", mode != NULL ? card->fb_id : 0);
	add(req, fd, card->plane_id, p, "CRTC_ID", crtc);
	uint32_t w = mode != NULL ? mode->hdisplay : 0, h = mode != NULL ? mode->vdisplay : 0;
	add(req, fd, card->plane_id, p, "SRC_X", 0);
	add(req, fd, card->plane_id, p, "SRC_Y", 0);
	add(req, fd, card->plane_id, p, "SRC_W", (uint64_t)w << 16);
	add(req, fd, card->plane_id, p, "SRC_H", (uint64_t)h << 16);
	add(req, fd, card->plane_id, p, "CRTC_X", 0);
	add(req, fd, card->plane_id, p, "CRTC_Y", 0);
	add(req, fd, card->plane_id, p, "CRTC_W", w);
	add(req, fd, card->plane_id, p, "CRTC_H", h);
	uint32_t flags = DRM_MODE_ATOMIC_ALLOW_MODESET |
		(test_only ? DRM_MODE_ATOMIC_TEST_ONLY : 0);
	int ret = drmModeAtomicCommit(card->fd, req, flags, NULL) == 0 ? 0 : -errno;
	drmModeAtomicFree(req);
	if (blob != 0) {
		drmModeDestroyPropertyBlob(card->fd, blob);
	}
	return ret;
}
