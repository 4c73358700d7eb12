/*
 * The sink's side of the real-kernel harness, run in the guest as DRM
 * master by dpcd.sh: lg_link_fault's scripted DisplayPort sink
 * (module/dpcd.c) read raw through the kernel's AUX character device, the
 * way any user space reads a real sink's DPCD, against the link a source
 * trains for the modes this program lights.
 *
 *   lg-kernel-dpcd /dev/drm_dp_auxN
 *
 * linkguard's own reader (backend/drm's kms/aux.h and the decoder of
 * core/dpcd.h) must find the same device through sysfs and decode the same.
 *
 * The oracle for the trained link is DESIGN's rule for i915
 * (intel_dp_compute_link_config_wide): the lowest rate, then the fewest
 * lanes, whose payload (80 % of the rate, 8b/10b) carries the mode's pixel
 * clock at 24 bpp (at 18 when nothing carries 24). The counts of AUX
 * transfers follow the kernel's drm_dp_helper.c of 6.12: every
 * drm_dp_dpcd_read() is a one-byte read of DPCD_REV and the read itself,
 * of at most 16 bytes; a failed transfer is tried 32 times.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <core/dpcd.h>
#include <kms/aux.h>
#include <kms/kms.h>
#include "guest.h"

#define AUX_STATS "/sys/module/lg_link_fault/parameters/aux"
/* The sink lg_link_fault models: DP 1.4, 4 lanes, HBR3. */
#define SINK_LANES 4
#define ERRORS_VALID 0x8000
#define ERRORS_MAX 0x7fff
/* drm_dp_dpcd_access()'s tries of a transfer that fails. */
#define AUX_TRIES 32

static const struct {
	uint8_t bw_code;
	uint32_t mbps;
} rates[] = { { 0x06, 1620 }, { 0x0a, 2700 }, { 0x14, 5400 }, { 0x1e, 8100 } };
#define N_RATES (sizeof(rates) / sizeof(rates[0]))

static struct guest_card card;
static const char *aux_path;
static int aux_fd;
/* What linkguard's reader looks the AUX device up by. */
static dev_t card_dev;
static char conn_name[64];

/* A link configuration: rates[rate], lanes 1, 2 or 4. */
struct link {
	size_t rate;
	uint32_t lanes;
};

static bool carries(struct link link, uint32_t clock_khz, uint32_t bpp) {
	return (uint64_t)clock_khz * bpp <= (uint64_t)link.lanes * rates[link.rate].mbps * 800;
}

/* The link a source trains for clock_khz, as DESIGN says i915 picks it. */
static struct link expected_link(uint32_t clock_khz) {
	for (uint32_t bpp = 24; bpp >= 18; bpp -= 6) {
		for (size_t rate = 0; rate < N_RATES; rate++) {
			for (uint32_t lanes = 1; lanes <= SINK_LANES; lanes *= 2) {
				struct link link = { rate, lanes };
				if (carries(link, clock_khz, bpp)) {
					return link;
				}
			}
		}
	}
	return (struct link){ N_RATES - 1, SINK_LANES };
}

static bool dpcd_read(uint32_t address, uint8_t *buf, size_t len) {
	ssize_t n = pread(aux_fd, buf, len, address);
	if (n != (ssize_t)len) {
		printf("  pread(0x%03" PRIx32 ", %zu): %zd (%s)\n", address, len, n,
			n < 0 ? strerror(errno) : "short");
	}
	return n == (ssize_t)len;
}

/* lg_link_fault's AUX transfer counts for our connector. */
struct aux_counts {
	uint64_t transfers, reads, writes, i2c, failed;
};

static bool aux_counts(struct aux_counts *c) {
	FILE *f = fopen(AUX_STATS, "r");
	bool found = false;
	uint32_t id;
	struct aux_counts line;
	while (f != NULL && !found && fscanf(f, "%" SCNu32 " transfers=%" SCNu64 " reads=%"
			SCNu64 " writes=%" SCNu64 " i2c=%" SCNu64 " failed=%" SCNu64 "\n", &id,
			&line.transfers, &line.reads, &line.writes, &line.i2c, &line.failed) == 6) {
		if (id == card.conn_id) {
			*c = line;
			found = true;
		}
	}
	if (f != NULL) {
		fclose(f);
	}
	return found;
}

static uint16_t lane_errors(const uint8_t *errors, uint32_t lane) {
	return (uint16_t)(errors[2 * lane] | errors[2 * lane + 1] << 8);
}

static uint8_t lane_nibble(const uint8_t *status, uint32_t lane) {
	return (status[2 + lane / 2] >> (4 * (lane % 2))) & 0xf;
}

/*
 * The sink's status block (0x200-0x205) and error counters (0x210-0x217)
 * as a link of lanes lanes shows them: locked (CR_DONE, CHANNEL_EQ_DONE,
 * SYMBOL_LOCKED; aligned; in sync; counters valid) or dark (CR_DONE only,
 * nothing else). Lanes beyond show nothing.
 */
static bool sink_shows(uint32_t lanes, bool locked, const char *what) {
	uint8_t status[6], errors[8];
	if (!dpcd_read(0x200, status, sizeof(status)) || !dpcd_read(0x210, errors, sizeof(errors))) {
		guest_expect(false, "%s: the status and error counters read", what);
		return false;
	}
	bool ok = status[0] == 1 && (status[4] & 0x01) == locked && (status[5] & 0x01) == locked;
	for (uint32_t lane = 0; lane < SINK_LANES; lane++) {
		uint8_t nibble = lane >= lanes ? 0 : locked ? 0x7 : 0x1;
		bool valid = lane < lanes && locked;
		ok = ok && lane_nibble(status, lane) == nibble &&
			((lane_errors(errors, lane) & ERRORS_VALID) != 0) == valid;
	}
	guest_expect(ok, "%s: SINK_COUNT %u, lanes %02x %02x, align %02x, sink status %02x, "
		"error counters %04x %04x %04x %04x", what, status[0], status[2], status[3],
		status[4], status[5], lane_errors(errors, 0), lane_errors(errors, 1),
		lane_errors(errors, 2), lane_errors(errors, 3));
	return ok;
}

/*
 * linkguard's reader, as the DRM backend runs it: the device found through
 * sysfs from the card and the connector's name, the three blocks read,
 * decoded. (Reading clears the error counters.)
 */
static void reader_shows(struct link want, bool locked, const char *what) {
	struct aux_roots roots = aux_system_roots;
	int fd = aux_sysfs_impl.open(&roots, card_dev, conn_name);
	struct dpcd_regs regs;
	struct lg_sink_status status = {0};
	int ret = fd < 0 ? fd : aux_read(&aux_sysfs_impl, &roots, fd, &regs);
	bool decoded = ret == 0 && dpcd_decode(&regs, &status);
	if (fd >= 0) {
		aux_sysfs_impl.close(&roots, fd);
	}
	uint8_t lanes = (uint8_t)((1u << want.lanes) - 1);
	guest_expect(decoded && status.link.lanes == want.lanes &&
		status.link.rate_mbps == rates[want.rate].mbps && !status.uhbr &&
		status.sink_count == 1 && lg_sink_status_locked(&status) == locked &&
		status.in_sync == locked && status.errors_valid == (locked ? lanes : 0),
		"%s, linkguard's reader: %s; %" PRIu32 " lanes at %" PRIu32 " Mbit/s, "
		"sink count %" PRIu32 ", locked lanes %02x, %saligned, %sin sync, valid "
		"counters %02x", what, ret != 0 ? strerror(-ret) : decoded ? "decoded" :
		"undecodable", status.link.lanes, status.link.rate_mbps, status.sink_count,
		status.lanes_locked, status.aligned ? "" : "not ", status.in_sync ? "" : "not ",
		status.errors_valid);
}

/* The trained link (0x100, 0x101, 0x108) is the one expected for mode. */
static bool link_is(const drmModeModeInfo *mode, struct link want) {
	uint8_t link[9];
	bool read = dpcd_read(0x100, link, sizeof(link));
	guest_expect(read && link[0] == rates[want.rate].bw_code &&
		link[1] == (0x80 | want.lanes) && link[8] == 0x01,
		"%ux%u, %u kHz: LINK_BW_SET %02x, LANE_COUNT_SET %02x, CODING %02x; "
		"expected %u Mbit/s x %u lane%s (%02x, %02x, 8b/10b)", mode->hdisplay,
		mode->vdisplay, mode->clock, link[0], link[1], link[8], rates[want.rate].mbps,
		want.lanes, want.lanes > 1 ? "s" : "", rates[want.rate].bw_code,
		0x80 | want.lanes);
	return read;
}

static bool light(const drmModeModeInfo *mode) {
	int ret = guest_modeset(&card, mode, true, false);
	if (ret != 0) {
		guest_expect(false, "modeset %ux%u: %s", mode->hdisplay, mode->vdisplay,
			strerror(-ret));
	}
	return ret == 0;
}

/* Off, then on again at mode: a retrain of the same mode. */
static bool relight(const drmModeModeInfo *mode) {
	return guest_modeset(&card, NULL, false, false) == 0 && light(mode);
}

/* The name the kernel gives the connector ("Virtual-1"), as wlroots does. */
static bool name_connector(void) {
	drmModeConnector *conn = drmModeGetConnector(card.fd, card.conn_id);
	const char *type = conn != NULL ? drmModeGetConnectorTypeName(conn->connector_type) : NULL;
	if (type != NULL) {
		snprintf(conn_name, sizeof(conn_name), "%s-%" PRIu32, type,
			conn->connector_type_id);
	}
	drmModeFreeConnector(conn);
	return type != NULL;
}

/*
 * One mode of the list per link configuration it reaches (generated: every
 * mode's expected link is computed, the first of each kept), lit in turn.
 * Returns the modes of the slowest and the fastest links.
 */
static void test_trained_links(const struct kms_modes *modes,
		const drmModeModeInfo **slow, const drmModeModeInfo **fast) {
	int first[N_RATES][SINK_LANES + 1];
	memset(first, -1, sizeof(first));
	size_t configs = 0;
	for (size_t i = 0; i < modes->len; i++) {
		struct link link = expected_link(modes->modes[i].clock);
		if (first[link.rate][link.lanes] < 0) {
			first[link.rate][link.lanes] = (int)i;
			configs++;
		}
	}
	guest_expect(configs >= 3, "the %zu modes reach %zu link configurations", modes->len,
		configs);
	*slow = *fast = NULL;
	for (size_t rate = 0; rate < N_RATES; rate++) {
		for (uint32_t lanes = 1; lanes <= SINK_LANES; lanes *= 2) {
			if (first[rate][lanes] < 0) {
				continue;
			}
			const drmModeModeInfo *mode = &modes->modes[first[rate][lanes]];
			struct link link = { rate, lanes };
			if (light(mode) && link_is(mode, link) && sink_shows(lanes, true, "trained")) {
				reader_shows(link, true, "trained");
			}
			*slow = *slow != NULL ? *slow : mode;
			*fast = mode;
		}
	}
}

static enum lg_link_status link_status(void) {
	struct kms_connector_state state = {0};
	struct kms_libdrm kms = { .fd = card.fd };
	kms_libdrm_impl.read(&kms, card.conn_id, &state);
	return state.link_status;
}

/*
 * The link goes dark with link-status GOOD (dpcd.sh checks that no uevent
 * came); a retrain relocks it. With a rate limit, only a modeset at a rate
 * within it does.
 */
static void test_dark(const drmModeModeInfo *slow, const drmModeModeInfo *fast) {
	struct link fast_link = expected_link(fast->clock), slow_link = expected_link(slow->clock);
	light(fast);
	guest_trigger("dark %u", card.conn_id);
	sink_shows(fast_link.lanes, false, "dark");
	reader_shows(fast_link, false, "dark");
	guest_expect(link_status() == LG_LINK_STATUS_GOOD, "dark: link-status still reads Good");
	relight(fast);
	sink_shows(fast_link.lanes, true, "retrained at the same mode: relocked");

	uint32_t max = rates[slow_link.rate].mbps;
	guest_expect(rates[fast_link.rate].mbps > max, "the fast mode trains above %u Mbit/s", max);
	guest_trigger("dark %u %u", card.conn_id, max);
	relight(fast);
	sink_shows(fast_link.lanes, false, "dark up to the slow rate, retrained at the fast one");
	light(slow);
	link_is(slow, slow_link);
	sink_shows(slow_link.lanes, true, "modeset at the slow rate: relocked");
}

static double now_s(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The counters of the lanes in use, which must agree; UINT32_MAX if not. */
static uint32_t read_errors(uint32_t lanes, double *start, double *end) {
	uint8_t errors[8];
	*start = now_s();
	bool read = dpcd_read(0x210, errors, sizeof(errors));
	*end = now_s();
	uint16_t first = lane_errors(errors, 0);
	bool ok = read && (first & ERRORS_VALID);
	for (uint32_t lane = 0; lane < SINK_LANES; lane++) {
		ok = ok && lane_errors(errors, lane) == (lane < lanes ? first : 0);
	}
	return ok ? first & ERRORS_MAX : UINT32_MAX;
}

static void pause_ms(long ms) {
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };
	nanosleep(&ts, NULL);
}

/*
 * Symbol errors at a rate: what accrued between two reads lies between the
 * rate times the time from the end of the first read to the start of the
 * second and the rate times the time from its start to the end of the
 * second. Reading clears them, so does training; they saturate.
 */
static void test_errors(const drmModeModeInfo *mode) {
	const int rate = 2000;
	uint32_t lanes = expected_link(mode->clock).lanes;
	double s0, e0, s1, e1;
	light(mode);
	guest_trigger("errors %u %d", card.conn_id, rate);
	read_errors(lanes, &s0, &e0);
	pause_ms(300);
	uint32_t n = read_errors(lanes, &s1, &e1);
	double lo = rate * (s1 - e0) - 1, hi = rate * (e1 - s0) + 1;
	guest_expect(n != UINT32_MAX && n >= lo && n <= hi,
		"%d errors/s: %u on each of %u lanes after %.0f ms (%.0f to %.0f), none beyond",
		rate, n, lanes, (s1 - e0) * 1e3, lo, hi);
	// The last read sampled the counters somewhere between s1 and e1:
	// from s1 on, errors may have accrued (an AUX read takes milliseconds
	// in a guest on a busy host: 11 counted once where e1 bounded 10).
	n = read_errors(lanes, &s0, &e0);
	guest_expect(n <= rate * (e0 - s1) + 1, "read again at once: %u (cleared on read)", n);

	pause_ms(200);
	guest_trigger("errors %u 0", card.conn_id);
	relight(mode);
	n = read_errors(lanes, &s0, &e0);
	guest_expect(n == 0, "errors stopped, link retrained: %u (cleared by training)", n);

	guest_trigger("errors %u 1000000", card.conn_id);
	pause_ms(100);
	n = read_errors(lanes, &s0, &e0);
	guest_trigger("errors %u 0", card.conn_id);
	guest_expect(n == ERRORS_MAX, "10^6 errors/s for 100 ms: saturated at %u", n);
	read_errors(lanes, &s0, &e0);
}

/* lg_link_fault's counts before and after fn, as differences. */
static struct aux_counts counted(void (*fn)(void *), void *data) {
	struct aux_counts before = {0}, after = {0};
	bool ok = aux_counts(&before);
	fn(data);
	ok = aux_counts(&after) && ok;
	if (!ok) {
		guest_expect(false, "lg_link_fault counts connector %u's AUX transfers in %s",
			card.conn_id, AUX_STATS);
	}
	return (struct aux_counts){
		.transfers = after.transfers - before.transfers,
		.reads = after.reads - before.reads,
		.writes = after.writes - before.writes,
		.i2c = after.i2c - before.i2c,
		.failed = after.failed - before.failed,
	};
}

struct io {
	int fd;
	uint32_t address;
	size_t len;
	ssize_t ret;
	int err;
};

static void do_read(void *data) {
	struct io *io = data;
	uint8_t buf[64];
	io->ret = pread(io->fd, buf, io->len, io->address);
	io->err = errno;
}

static void do_write(void *data) {
	struct io *io = data;
	uint8_t d3 = 0x02; // SET_POWER: D3, were it accepted
	io->ret = pwrite(io->fd, &d3, 1, io->address);
	io->err = errno;
}

/* What each read costs on the wire, what a failing AUX and a write do. */
static void test_transfers(void) {
	static const struct { uint32_t address; size_t len, dpcd_reads; } reads[] = {
		{ 0x100, 9, 1 }, { 0x200, 6, 1 }, { 0x210, 8, 1 }, { 0x200, 24, 2 },
	};
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		struct io io = { aux_fd, reads[i].address, reads[i].len };
		struct aux_counts c = counted(do_read, &io);
		uint64_t want = 2 * reads[i].dpcd_reads;
		guest_expect(io.ret == (ssize_t)reads[i].len && c.transfers == want &&
			c.reads == want, "a %zu-byte read at 0x%03" PRIx32 ": %" PRIu64
			" transfers (%" PRIu64 " expected: DPCD_REV probe + read per 16 bytes)",
			reads[i].len, reads[i].address, c.transfers, want);
	}

	guest_trigger("aux-eio %u", card.conn_id);
	struct io io = { aux_fd, 0x200, 6 };
	struct aux_counts c = counted(do_read, &io);
	guest_expect(io.ret < 0 && io.err == EIO && c.failed == AUX_TRIES,
		"AUX failing: the read fails with %s after %" PRIu64 " tries",
		io.ret < 0 ? strerror(io.err) : "no error", c.failed);
	guest_trigger("aux-ok %u", card.conn_id);
	io.ret = 0;
	counted(do_read, &io);
	guest_expect(io.ret == 6, "AUX working again: the read returns %zd bytes", io.ret);

	// Root may open it for writing; linkguard never does.
	io = (struct io){ open(aux_path, O_RDWR | O_CLOEXEC), 0x600, 1 };
	c = counted(do_write, &io);
	guest_expect(io.fd >= 0 && io.ret < 0 && io.err == EIO && c.writes == AUX_TRIES,
		"a native write (SET_POWER D3) is NACKed: %s after %" PRIu64 " tries",
		io.ret < 0 ? strerror(io.err) : "accepted", c.writes);
	if (io.fd >= 0) {
		close(io.fd);
	}
}

int main(int argc, char *argv[]) {
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2) {
		fprintf(stderr, "usage: %s /dev/drm_dp_auxN\n", argv[0]);
		return 1;
	}
	aux_path = argv[1];
	aux_fd = open(aux_path, O_RDONLY | O_CLOEXEC);
	if (aux_fd < 0) {
		perror(aux_path);
		return 1;
	}
	if (!guest_card_open(&card)) {
		return 1;
	}
	struct stat st;
	char found[256] = "";
	bool named = fstat(card.fd, &st) == 0 && name_connector();
	card_dev = st.st_rdev;
	int ret = named ? aux_find(&aux_system_roots, card_dev, conn_name, found, sizeof(found)) : -ENODEV;
	guest_expect(ret == 0 && strcmp(found, aux_path) == 0,
		"linkguard's reader finds %s's AUX device through sysfs: %s", conn_name,
		ret == 0 ? found : strerror(-ret));

	struct kms_libdrm kms = { .fd = card.fd };
	struct kms_modes modes = {0};
	bool connected = false;
	bool probed = kms_libdrm_impl.get_modes(&kms, card.conn_id, true, &connected, &modes);
	guest_expect(probed && connected && modes.len > 0 && guest_create_fb(&card, &modes),
		"%s: connector %u lists %zu modes", argv[1], card.conn_id, modes.len);

	const drmModeModeInfo *slow = NULL, *fast = NULL;
	test_trained_links(&modes, &slow, &fast);
	if (slow != NULL && fast != NULL && slow != fast) {
		test_dark(slow, fast);
		test_errors(fast);
	}
	test_transfers();
	guest_modeset(&card, NULL, false, false);
	sink_shows(0, false, "CRTC off");

	kms_modes_finish(&modes);
	guest_card_close(&card);
	close(aux_fd);
	return guest_finish("dpcd");
}
