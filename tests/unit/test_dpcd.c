/*
 * The DPCD decoder against an oracle written from the DisplayPort register
 * definitions and the kernel's drm_dp_channel_eq_ok(), on hand-picked and
 * generated register contents; the AUX device's discovery through a sysfs
 * tree and its reads through the system implementation, on files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <core/dpcd.h>
#include <kms/aux.h>
#include "machine/rng.h"
#include "test.h"

/* A DPCD image as the sink would hold it: 8b/10b, every lane locked. */
static void trained(uint8_t dpcd[0x300], uint8_t bw_code, uint8_t lanes) {
	memset(dpcd, 0, 0x300);
	dpcd[0x100] = bw_code;
	dpcd[0x101] = 0x80 | lanes; // ENHANCED_FRAME_EN
	dpcd[0x108] = 0x01; // ANSI 8B10B
	dpcd[0x200] = 0x41; // CP_READY, one sink
	dpcd[0x202] = lanes >= 2 ? 0x77 : 0x07;
	dpcd[0x203] = lanes == 4 ? 0x77 : 0x00;
	dpcd[0x204] = 0x81; // LINK_STATUS_UPDATED, INTERLANE_ALIGN_DONE
	dpcd[0x205] = 0x01;
	for (int lane = 0; lane < lanes; lane++) {
		dpcd[0x211 + 2 * lane] = 0x80;
	}
}

static void regs_of(const uint8_t dpcd[0x300], struct dpcd_regs *regs) {
	memcpy(regs->link, &dpcd[0x100], sizeof(regs->link));
	memcpy(regs->status, &dpcd[0x200], sizeof(regs->status));
	memcpy(regs->errors, &dpcd[0x210], sizeof(regs->errors));
}

static void test_hbr2_x4_locked(void) {
	uint8_t dpcd[0x300];
	trained(dpcd, 0x14, 4);
	dpcd[0x214] = 0x34; // lane 2: 0x1234 errors, valid
	dpcd[0x215] = 0x92;
	struct dpcd_regs regs;
	regs_of(dpcd, &regs);
	struct lg_sink_status status;
	check(dpcd_decode(&regs, &status));
	check_int_eq(status.link.lanes, 4);
	check_int_eq(status.link.rate_mbps, 5400);
	check(!status.uhbr);
	check_int_eq(status.sink_count, 1);
	check_int_eq(status.lanes_locked, 0xf);
	check(status.aligned);
	check(status.in_sync);
	check_int_eq(status.errors_valid, 0xf);
	check_int_eq(status.errors[2], 0x1234);
	check_int_eq(status.errors[0], 0);
	check(lg_sink_status_locked(&status));
}

/* One lane lost symbol lock: not locked, the other lanes still are. */
static void test_lane_unlocked(void) {
	uint8_t dpcd[0x300];
	trained(dpcd, 0x0a, 2);
	dpcd[0x202] = 0x37; // lane 1: clock recovery and EQ, no symbol lock
	struct dpcd_regs regs;
	regs_of(dpcd, &regs);
	struct lg_sink_status status;
	check(dpcd_decode(&regs, &status));
	check_int_eq(status.link.rate_mbps, 2700);
	check_int_eq(status.lanes_locked, 0x1);
	check(!lg_sink_status_locked(&status));
	// Aligned lanes but no interlane alignment: not locked either.
	trained(dpcd, 0x0a, 2);
	dpcd[0x204] = 0x80;
	regs_of(dpcd, &regs);
	check(dpcd_decode(&regs, &status));
	check_int_eq(status.lanes_locked, 0x3);
	check(!lg_sink_status_locked(&status));
}

/* UHBR: the rate is decoded; lock and errors are reported not decoded. */
static void test_uhbr_not_decoded(void) {
	const struct { uint8_t code; uint32_t mbps; } rates[] = {
		{ 0x01, 10000 }, { 0x04, 13500 }, { 0x02, 20000 }, { 0x03, 0 },
	};
	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		uint8_t dpcd[0x300];
		trained(dpcd, rates[i].code, 4);
		dpcd[0x108] = 0x02; // 128B132B
		struct dpcd_regs regs;
		regs_of(dpcd, &regs);
		struct lg_sink_status status;
		check(dpcd_decode(&regs, &status));
		check(status.uhbr);
		check_int_eq(status.link.rate_mbps, rates[i].mbps);
		check_int_eq(status.lanes_locked, 0);
		check_int_eq(status.errors_valid, 0);
		check(!lg_sink_status_locked(&status));
	}
}

/* Contents no trained link has: rejected, the status cleared. */
static void test_malformed(void) {
	uint8_t dpcd[0x300];
	struct dpcd_regs regs;
	struct lg_sink_status status;
	trained(dpcd, 0x14, 3);
	regs_of(dpcd, &regs);
	status.sink_count = 7;
	check(!dpcd_decode(&regs, &status));
	check_int_eq(status.sink_count, 0);
	trained(dpcd, 0x14, 4);
	dpcd[0x108] = 0x03;
	regs_of(dpcd, &regs);
	check(!dpcd_decode(&regs, &status));
	// All ones (a bus that floats): lane count 31.
	memset(&regs, 0xff, sizeof(regs));
	check(!dpcd_decode(&regs, &status));
	// Not trained: a valid state, no link, nothing locked.
	memset(&regs, 0, sizeof(regs));
	check(dpcd_decode(&regs, &status));
	check_int_eq(status.link.lanes, 0);
	check_int_eq(status.link.rate_mbps, 0);
	check(!lg_sink_status_locked(&status));
}

/*
 * The oracle, from the register definitions: LINK_BW_SET in 0.27 Gbit/s
 * units (8b/10b) or the UHBR codes; a lane locked when its status nibble
 * has CR_DONE, CHANNEL_EQ_DONE and SYMBOL_LOCKED; locked as the kernel's
 * drm_dp_channel_eq_ok() says.
 */
static void oracle_check(const struct dpcd_regs *regs) {
	uint8_t coding = regs->link[8];
	uint8_t lanes = regs->link[1] & 0x1f;
	bool valid = coding <= 2 && (lanes == 0 || lanes == 1 || lanes == 2 ||
		lanes == 4);
	struct lg_sink_status status;
	check_int_eq(dpcd_decode(regs, &status), valid);
	if (!valid) {
		return;
	}
	check_int_eq(status.link.lanes, lanes);
	uint32_t rate = 0;
	if (lanes != 0 && coding != 2) {
		rate = regs->link[0] * 270u;
	} else if (lanes != 0) {
		rate = regs->link[0] == 1 ? 10000 : regs->link[0] == 4 ? 13500 :
			regs->link[0] == 2 ? 20000 : 0;
	}
	check_int_eq(status.link.rate_mbps, rate);
	check_int_eq(status.sink_count,
		(regs->status[0] & 0x3f) | ((regs->status[0] & 0x80) >> 1));
	check_int_eq(status.in_sync, regs->status[5] & 1);
	bool eq_ok = coding != 2 && lanes != 0 && (regs->status[4] & 1);
	for (int lane = 0; lane < lanes && coding != 2; lane++) {
		uint8_t nibble = (regs->status[2 + lane / 2] >> (4 * (lane & 1))) & 0xf;
		bool locked = (nibble & 0x7) == 0x7;
		check_int_eq((status.lanes_locked >> lane) & 1, locked);
		eq_ok = eq_ok && locked;
		uint16_t word = regs->errors[2 * lane] | regs->errors[2 * lane + 1] << 8;
		check_int_eq((status.errors_valid >> lane) & 1, word >> 15);
		check_int_eq(status.errors[lane], word >> 15 ? word & 0x7fff : 0);
	}
	check_int_eq(status.lanes_locked >> (coding == 2 ? 0 : lanes), 0);
	check_int_eq(lg_sink_status_locked(&status), eq_ok);
}

/* LINKGUARD_SEED, else a fresh one; main() prints it first. */
static uint64_t seed;
static const char *program; // argv[0], for the command that repeats a failure

static void test_generated_against_oracle(void) {
	int before = test_failures;
	for (uint64_t i = 0; i < 200000 && test_failures == before; i++) {
		rng_seed(seed, i);
		struct dpcd_regs regs;
		uint8_t *bytes = (uint8_t *)&regs;
		for (size_t b = 0; b < sizeof(regs); b++) {
			bytes[b] = (uint8_t)rng();
		}
		// Most generated links should be plausible ones.
		if (below(4) != 0) {
			regs.link[1] = (uint8_t)((regs.link[1] & 0x80) |
				(const uint8_t[]){0, 1, 2, 4}[below(4)]);
			regs.link[8] = (uint8_t)below(3);
		}
		oracle_check(&regs);
		if (test_failures != before) {
			fprintf(stderr, "seed %llu program %llu; repeat: LINKGUARD_SEED=%llu "
				"%s\n", (unsigned long long)seed, (unsigned long long)i,
				(unsigned long long)seed, program);
		}
	}
}

/* A sysfs and a /dev under a temporary directory. */
struct tree {
	char root[64];
	char sysfs[128], dev[128];
};

static void make_dir(const char *fmt, const char *a, const char *b) {
	char path[512];
	snprintf(path, sizeof(path), fmt, a, b);
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
}

static void tree_init(struct tree *t) {
	snprintf(t->root, sizeof(t->root), "/tmp/lg-aux-XXXXXX");
	if (mkdtemp(t->root) == NULL) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(t->sysfs, sizeof(t->sysfs), "%s/sys", t->root);
	snprintf(t->dev, sizeof(t->dev), "%s/dev", t->root);
	make_dir("%s%s", t->sysfs, "");
	make_dir("%s%s", t->sysfs, "/dev");
	make_dir("%s%s", t->sysfs, "/dev/char");
	make_dir("%s%s", t->dev, "");
}

/* <sysfs>/dev/char/226:0/<dir>[/<aux>] */
static void add_connector(struct tree *t, const char *dir, const char *aux) {
	make_dir("%s/dev/char/226:0%s", t->sysfs, "");
	make_dir("%s/dev/char/226:0/%s", t->sysfs, dir);
	if (aux != NULL) {
		char sub[256];
		snprintf(sub, sizeof(sub), "%s/%s", dir, aux);
		make_dir("%s/dev/char/226:0/%s", t->sysfs, sub);
	}
}

static void tree_finish(struct tree *t) {
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", t->root);
	if (system(cmd) != 0) {
		fprintf(stderr, "cannot remove %s\n", t->root);
	}
}

static void test_find(void) {
	struct tree t;
	tree_init(&t);
	add_connector(&t, "card0-DP-10", "drm_dp_aux7");
	add_connector(&t, "card0-DP-1", "drm_dp_aux3");
	add_connector(&t, "card0-HDMI-A-1", NULL);
	add_connector(&t, "card0-eDP-1", "drm_dp_auxX"); // not a device name
	struct aux_roots roots = { .sysfs = t.sysfs, .dev = t.dev };
	char path[256], want[256];
	check_int_eq(aux_find(&roots, makedev(226, 0), "DP-1", path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "%s/drm_dp_aux3", t.dev);
	check(strcmp(path, want) == 0);
	check_int_eq(aux_find(&roots, makedev(226, 0), "DP-10", path, sizeof(path)), 0);
	snprintf(want, sizeof(want), "%s/drm_dp_aux7", t.dev);
	check(strcmp(path, want) == 0);
	check_int_eq(aux_find(&roots, makedev(226, 0), "HDMI-A-1", path,
		sizeof(path)), -ENOENT);
	check_int_eq(aux_find(&roots, makedev(226, 0), "eDP-1", path,
		sizeof(path)), -ENOENT);
	check_int_eq(aux_find(&roots, makedev(226, 0), "DP-2", path,
		sizeof(path)), -ENOENT);
	check_int_eq(aux_find(&roots, makedev(226, 1), "DP-1", path,
		sizeof(path)), -ENOENT);
	check_int_eq(aux_find(&roots, makedev(226, 0), "DP-1", path, 8),
		-ENAMETOOLONG);
	tree_finish(&t);
}

static void write_file(const char *path, const uint8_t *data, size_t len) {
	FILE *f = fopen(path, "wb");
	if (f == NULL || fwrite(data, 1, len, f) != len) {
		perror(path);
		exit(1);
	}
	fclose(f);
}

/* The system implementation on a file standing in for the device. */
static void test_read_through_files(void) {
	struct tree t;
	tree_init(&t);
	add_connector(&t, "card0-DP-1", "drm_dp_aux3");
	add_connector(&t, "card0-DP-2", "drm_dp_aux4");
	struct aux_roots roots = { .sysfs = t.sysfs, .dev = t.dev };
	uint8_t dpcd[0x300];
	trained(dpcd, 0x1e, 2);
	char path[256];
	snprintf(path, sizeof(path), "%s/drm_dp_aux3", t.dev);
	write_file(path, dpcd, sizeof(dpcd));
	// DP-2's reply ends in its error counters: a short read.
	snprintf(path, sizeof(path), "%s/drm_dp_aux4", t.dev);
	write_file(path, dpcd, 0x214);

	int fd = aux_sysfs_impl.open(&roots, makedev(226, 0), "DP-1");
	check(fd >= 0);
	struct dpcd_regs regs;
	check_int_eq(aux_read(&aux_sysfs_impl, &roots, fd, &regs), 0);
	struct lg_sink_status status;
	check(dpcd_decode(&regs, &status));
	check_int_eq(status.link.rate_mbps, 8100);
	check_int_eq(status.link.lanes, 2);
	check(lg_sink_status_locked(&status));
	aux_sysfs_impl.close(&roots, fd);
	check_int_eq(fcntl(fd, F_GETFD), -1); // closed

	fd = aux_sysfs_impl.open(&roots, makedev(226, 0), "DP-2");
	check(fd >= 0);
	check_int_eq(aux_read(&aux_sysfs_impl, &roots, fd, &regs), -ENODATA);
	aux_sysfs_impl.close(&roots, fd);

	// The sysfs entry is there, the node is not (no devtmpfs, a race).
	unlink(path);
	check_int_eq(aux_sysfs_impl.open(&roots, makedev(226, 0), "DP-2"), -ENOENT);
	check_int_eq(aux_sysfs_impl.open(&roots, makedev(226, 0), "DP-3"), -ENOENT);
	tree_finish(&t);
}

int main(int argc, char *argv[]) {
	const char *seed_env = getenv("LINKGUARD_SEED");
	seed = seed_env != NULL ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL);
	program = argc > 0 ? argv[0] : "test_dpcd";
	fprintf(stderr, "seed %llu (LINKGUARD_SEED repeats it)\n", (unsigned long long)seed);
	run_test(test_hbr2_x4_locked);
	run_test(test_lane_unlocked);
	run_test(test_uhbr_not_decoded);
	run_test(test_malformed);
	run_test(test_generated_against_oracle);
	run_test(test_find);
	run_test(test_read_through_files);
	return test_result();
}
