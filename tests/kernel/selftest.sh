# What the tests of the harness's own scripts share (verdict-test.sh,
# crashes-test.sh), sourced: a scratch $dir removed on exit, and fail MSG,
# which says it and lets the test go on to its other cases ($status 1).
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
status=0

fail() {
	echo "FAIL: $*"
	status=1
}
