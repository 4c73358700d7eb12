/*
 * Finds the DRM backends of a compositor and the session device behind
 * each, and runs a drm_device on each with the libdrm kms_impl.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <wlr/backend.h>
#include <wlr/backend/drm.h>
#include <wlr/backend/multi.h>
#include <wlr/backend/session.h>
#include <linkguard/drm.h>
#include <linkguard/log.h>
#include <linkguard/manager.h>
#include <kms/device.h>

struct drm {
	struct lg_drm base;
	struct lg_manager *manager;
	struct wlr_session *session;
	struct aux_roots aux_roots; // where the DP AUX devices are found
	struct wl_list gpus; // drm_gpu.link
	struct wl_listener manager_destroy;
	struct wl_listener session_destroy;
};

/* A DRM backend and the device it drives. */
struct drm_gpu {
	struct kms_libdrm kms;
	struct drm_device *device;
	struct wl_listener backend_destroy;
	struct wl_list link; // drm.gpus
};

static void gpu_destroy(struct drm_gpu *gpu) {
	drm_device_destroy(gpu->device);
	wl_list_remove(&gpu->backend_destroy.link);
	wl_list_remove(&gpu->link);
	free(gpu);
}

static void handle_backend_destroy(struct wl_listener *listener, void *data) {
	struct drm_gpu *gpu = wl_container_of(listener, gpu, backend_destroy);
	gpu_destroy(gpu);
}

/* wlroots opened the DRM fd through the session: match by device number. */
static struct wlr_device *find_session_device(struct wlr_session *session, int fd) {
	struct stat st;
	if (fstat(fd, &st) != 0) {
		lg_log_errno(LG_ERROR, "drm: fstat on the DRM fd");
		return NULL;
	}
	struct wlr_device *dev;
	wl_list_for_each(dev, &session->devices, link) {
		if (dev->dev == st.st_rdev) {
			return dev;
		}
	}
	return NULL;
}

static void add_gpu(struct drm *drm, struct wlr_backend *backend) {
	int fd = wlr_backend_get_drm_fd(backend);
	struct wlr_device *dev = fd >= 0 ? find_session_device(drm->session, fd) : NULL;
	if (dev == NULL) {
		lg_log(LG_ERROR, "drm: a DRM backend without a session device, skipped");
		return;
	}
	struct drm_gpu *gpu = calloc(1, sizeof(*gpu));
	if (gpu == NULL) {
		lg_log(LG_ERROR, "drm: out of memory");
		return;
	}
	gpu->kms = (struct kms_libdrm){ .fd = fd, .backend = backend };
	gpu->device = drm_device_create(drm->manager, drm->session, dev, backend,
		&kms_libdrm_impl, &gpu->kms, &aux_sysfs_impl, &drm->aux_roots);
	if (gpu->device == NULL) {
		free(gpu);
		return;
	}
	gpu->backend_destroy.notify = handle_backend_destroy;
	wl_signal_add(&backend->events.destroy, &gpu->backend_destroy);
	wl_list_insert(drm->gpus.prev, &gpu->link);
	lg_log(LG_INFO, "drm: watching DRM device %u:%u", major(dev->dev),
		minor(dev->dev));
}

static void add_backend(struct wlr_backend *backend, void *data) {
	if (wlr_backend_is_drm(backend)) {
		add_gpu(data, backend);
	}
}

static void handle_manager_destroy(struct wl_listener *listener, void *data) {
	struct drm *drm = wl_container_of(listener, drm, manager_destroy);
	lg_drm_destroy(&drm->base);
}

static void handle_session_destroy(struct wl_listener *listener, void *data) {
	struct drm *drm = wl_container_of(listener, drm, session_destroy);
	lg_drm_destroy(&drm->base);
}

struct lg_drm *lg_drm_create(struct lg_manager *manager,
		struct wlr_backend *backend, struct wlr_session *session) {
	if (session == NULL) {
		lg_log(LG_INFO, "drm: no session: no DRM device to watch");
		return NULL;
	}
	struct drm *drm = calloc(1, sizeof(*drm));
	if (drm == NULL) {
		lg_log(LG_ERROR, "drm: out of memory");
		return NULL;
	}
	drm->manager = manager;
	drm->session = session;
	drm->aux_roots = aux_system_roots;
	wl_list_init(&drm->gpus);
	wl_signal_init(&drm->base.events.destroy);
	if (wlr_backend_is_multi(backend)) {
		wlr_multi_for_each_backend(backend, add_backend, drm);
	} else {
		add_backend(backend, drm);
	}
	if (wl_list_empty(&drm->gpus)) {
		lg_log(LG_INFO, "drm: no DRM backend to watch");
		free(drm);
		return NULL;
	}
	drm->manager_destroy.notify = handle_manager_destroy;
	wl_signal_add(&manager->events.destroy, &drm->manager_destroy);
	drm->session_destroy.notify = handle_session_destroy;
	wl_signal_add(&session->events.destroy, &drm->session_destroy);
	return &drm->base;
}

void lg_drm_destroy(struct lg_drm *base) {
	if (base == NULL) {
		return;
	}
	struct drm *drm = wl_container_of(base, drm, base);
	wl_signal_emit_mutable(&drm->base.events.destroy, &drm->base);
	struct drm_gpu *gpu, *tmp;
	wl_list_for_each_safe(gpu, tmp, &drm->gpus, link) {
		gpu_destroy(gpu);
	}
	wl_list_remove(&drm->manager_destroy.link);
	wl_list_remove(&drm->session_destroy.link);
	free(drm);
}
