# shellcheck shell=sh
# What contrib/*/test.sh share, sourced with $build set to the linkguard
# build directory:
#
#   contrib_cache NAME    the directory of NAME's builds: under /var/cache/
#                         linkguard, shared by the legs of a build root
#                         (plain and sanitized; build.sh keys them), or in
#                         the build directory where /var/cache is not ours
#   contrib_build WHAT BUILD_SH ARGS...
#                         runs BUILD_SH, leaves what it prints in $built;
#                         skips (77) without the vendor directory, fails
#                         when the build does; says how long it took

contrib_cache() {
	cache=/var/cache/linkguard/$1
	if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
		cache=$build/$1/cache
	fi
	echo "$cache"
}

contrib_build() {
	what=$1
	shift
	start=$(date +%s)
	status=0
	built=$("$@") || status=$?
	if [ $status -eq 77 ]; then
		echo "SKIP: no vendor directory with the tarball of $what (see stderr)"
		exit 77
	fi
	[ $status -eq 0 ] || { echo "FAIL: building $what failed"; exit 1; }
	echo "$what built in $(($(date +%s) - start)) s: $built"
}
