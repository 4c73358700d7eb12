#ifndef KMS_AUX_H
#define KMS_AUX_H

/*
 * The sink's DPCD through the kernel's DP AUX character device
 * (CONFIG_DRM_DISPLAY_DP_AUX_CHARDEV): /dev/drm_dp_auxN, registered with
 * the connector's sysfs device as parent by the drivers that set
 * aux.dev = connector->kdev (i915, xe, amdgpu, nouveau). Read only: the
 * file is opened O_RDONLY and nothing is ever written to the sink.
 *
 * The kernel (drm_dp_aux_dev.c) reads at the file offset as DPCD address,
 * 16 bytes per AUX transaction; a read returns what it got before the
 * first failed transaction, or the error (-EIO: no reply, NACK, timeout;
 * -ENODEV: the device is being unregistered) when the first one failed.
 * Kernels before 6.17 precede every transaction with a one-byte read of
 * DPCD_REV (drm_dp_dpcd_probe), doubling the AUX traffic.
 */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <core/dpcd.h>
#include <dp/caps.h>

/* The one seam to the AUX device, so that tests can replay sinks. */
struct aux_impl {
	/*
	 * Opens the AUX device of the connector called name ("DP-1") on the
	 * DRM device card: an fd, or a negative errno (-ENOENT: no AUX
	 * device for the connector; -EACCES: not readable by us).
	 */
	int (*open)(void *data, dev_t card, const char *name);
	/* pread(2): bytes read, or a negative errno. */
	ssize_t (*pread)(void *data, int fd, void *buf, size_t len, off_t address);
	void (*close)(void *data, int fd);
};

/* Where the system implementation looks: "/sys" and "/dev" normally. */
struct aux_roots {
	const char *sysfs;
	const char *dev;
};

extern const struct aux_impl aux_sysfs_impl; // data: struct aux_roots
extern const struct aux_roots aux_system_roots;

/*
 * The device node of connector name on card: the drm_dp_auxN directory in
 * <sysfs>/dev/char/MAJ:MIN/cardX-<name>/, as <dev>/drm_dp_auxN. Returns 0
 * or a negative errno (-ENOENT when the connector has no AUX device).
 */
int aux_find(const struct aux_roots *roots, dev_t card, const char *name,
	char *path, size_t size);

/*
 * Reads the three register blocks: three AUX transactions (six before
 * 6.17). Returns 0, or a negative errno: the first read error, or
 * -ENODATA for a short read (a transaction failed after the first).
 * Reading clears the sink's symbol error counters.
 */
int aux_read(const struct aux_impl *impl, void *data, int fd,
	struct dpcd_regs *regs);
/*
 * Reads the receiver capabilities: two AUX transactions, two more where
 * the sink has the extended field. Returns 0 or a negative errno as
 * aux_read().
 */
int aux_read_caps(const struct aux_impl *impl, void *data, int fd,
	struct dpcd_caps_regs *caps);

#endif
