/*
 * Finds a connector's DP AUX device through sysfs and reads the DPCD
 * registers linkguard decodes (core/dpcd.h) from it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <kms/aux.h>

const struct aux_roots aux_system_roots = { .sysfs = "/sys", .dev = "/dev" };

/* Whether name is prefix followed by a decimal number and nothing else. */
static bool numbered(const char *name, const char *prefix) {
	size_t len = strlen(prefix);
	if (strncmp(name, prefix, len) != 0 || name[len] == '\0') {
		return false;
	}
	return strspn(name + len, "0123456789") == strlen(name + len);
}

/* The connector's directory in the card's: "cardN-<name>". */
static bool is_connector_dir(const char *entry, const char *name) {
	const char *dash = strchr(entry, '-');
	if (dash == NULL || strcmp(dash + 1, name) != 0) {
		return false;
	}
	char card[32];
	size_t len = (size_t)(dash - entry);
	if (len >= sizeof(card)) {
		return false;
	}
	memcpy(card, entry, len);
	card[len] = '\0';
	return numbered(card, "card");
}

/* Copies the first entry of dir that match() accepts into found. */
static int find_entry(const char *dir,
		bool (*match)(const char *entry, const char *arg), const char *arg,
		char *found, size_t size) {
	DIR *d = opendir(dir);
	if (d == NULL) {
		return -errno;
	}
	int ret = -ENOENT;
	struct dirent *entry;
	while ((entry = readdir(d)) != NULL) {
		if (match(entry->d_name, arg)) {
			int n = snprintf(found, size, "%s", entry->d_name);
			ret = n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
			break;
		}
	}
	closedir(d);
	return ret;
}

static bool is_aux_dir(const char *entry, const char *unused) {
	return numbered(entry, "drm_dp_aux");
}

int aux_find(const struct aux_roots *roots, dev_t card, const char *name,
		char *path, size_t size) {
	char dir[512], entry[256];
	int n = snprintf(dir, sizeof(dir), "%s/dev/char/%u:%u", roots->sysfs,
		major(card), minor(card));
	if (n < 0 || (size_t)n >= sizeof(dir)) {
		return -ENAMETOOLONG;
	}
	int ret = find_entry(dir, is_connector_dir, name, entry, sizeof(entry));
	if (ret != 0) {
		return ret;
	}
	size_t len = strlen(dir);
	n = snprintf(dir + len, sizeof(dir) - len, "/%s", entry);
	if (n < 0 || (size_t)n >= sizeof(dir) - len) {
		return -ENAMETOOLONG;
	}
	ret = find_entry(dir, is_aux_dir, NULL, entry, sizeof(entry));
	if (ret != 0) {
		return ret;
	}
	n = snprintf(path, size, "%s/%s", roots->dev, entry);
	return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

static int sysfs_open(void *data, dev_t card, const char *name) {
	char path[512];
	int ret = aux_find(data, card, name, path, sizeof(path));
	if (ret != 0) {
		return ret;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	return fd >= 0 ? fd : -errno;
}

static ssize_t sysfs_pread(void *data, int fd, void *buf, size_t len,
		off_t address) {
	ssize_t n;
	do {
		n = pread(fd, buf, len, address);
	} while (n < 0 && errno == EINTR);
	return n >= 0 ? n : -errno;
}

static void sysfs_close(void *data, int fd) {
	close(fd);
}

const struct aux_impl aux_sysfs_impl = {
	.open = sysfs_open,
	.pread = sysfs_pread,
	.close = sysfs_close,
};

static int read_block(const struct aux_impl *impl, void *data, int fd,
		uint32_t address, uint8_t *buf, size_t len) {
	ssize_t n = impl->pread(data, fd, buf, len, address);
	if (n < 0) {
		return (int)n;
	}
	return (size_t)n == len ? 0 : -ENODATA;
}

int aux_read(const struct aux_impl *impl, void *data, int fd,
		struct dpcd_regs *regs) {
	int ret = read_block(impl, data, fd, DPCD_LINK_BW_SET, regs->link,
		sizeof(regs->link));
	if (ret == 0) {
		ret = read_block(impl, data, fd, DPCD_SINK_COUNT, regs->status,
			sizeof(regs->status));
	}
	if (ret == 0) {
		ret = read_block(impl, data, fd, DPCD_SYMBOL_ERROR_COUNT_LANE0,
			regs->errors, sizeof(regs->errors));
	}
	return ret;
}

int aux_read_caps(const struct aux_impl *impl, void *data, int fd,
		struct dpcd_caps_regs *caps) {
	caps->has_ext = false;
	int ret = read_block(impl, data, fd, DPCD_CAPS, caps->base, sizeof(caps->base));
	if (ret != 0 || !dp_caps_want_ext(caps)) {
		return ret;
	}
	ret = read_block(impl, data, fd, DPCD_EXT_CAPS, caps->ext, sizeof(caps->ext));
	caps->has_ext = ret == 0;
	return ret;
}
