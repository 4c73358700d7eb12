#!/bin/sh
# The three packagings install the same files: Debian's packages
# (scripts/deb), Arch's package and Fedora's RPMs (scripts/packages). Each
# distribution's own paths are read as one: Debian's multiarch library
# directory and Fedora's lib64 are Arch's lib, and a man page is the same
# page gzipped or not. Set aside: what each distribution adds of its own,
# the licence and documentation files (/usr/share/doc, /usr/share/licenses,
# lintian's overrides), rpm's build-id links and the debug symbols'
# packages. Debian and Fedora split
# alike, so each file must also be in the same one of the four packages:
# the library, its development files, linkctl, the preload.
#
#   same-files.sh DEB_DIR PKG_DIR
#
# DEB_DIR holds the .deb files, PKG_DIR scripts/packages' output (arch/,
# rpm/). Runs in the Debian build root (dpkg-deb, bsdtar, rpm).
set -eu

debs=${1:?usage: $0 DEB_DIR PKG_DIR}
pkgs=${2:?usage: $0 DEB_DIR PKG_DIR}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# normalize ROLE: a listing (one path a line, directories ending in /) as
# "ROLE path" lines in the common form.
normalize() {
	sed -E -e 's,^\.?/,,' -e '/\/$/d' \
		-e 's,^usr/lib/[a-z0-9_]+-linux-[a-z0-9_]+/,usr/lib/,' \
		-e 's,^usr/lib64/,usr/lib/,' \
		-e 's,^(usr/share/man/.*)\.gz$,\1,' \
		-e '/^usr\/share\/(doc|licenses|lintian)\//d' \
		-e '/^usr\/lib\/\.build-id\//d' \
		-e '/^\./d' -e '/^$/d' |
		sed "s,^,$1 ,"
}

# role PACKAGE: which of the four a package of either split is.
role() {
	case $1 in
	liblinkguard0 | linkguard) echo library ;;
	liblinkguard-dev | linkguard-devel) echo devel ;;
	linkctl) echo linkctl ;;
	linkguard-preload) echo preload ;;
	*) fail "no packaging of linkguard has a package '$1'" ;;
	esac
}

set -- "$debs"/*.deb
[ -e "$1" ] || fail "no .deb in $debs (scripts/deb)"
: >"$dir/debian"
for deb; do
	name=$(dpkg-deb -f "$deb" Package)
	case $name in *-dbgsym) continue ;; esac
	dpkg-deb --fsys-tarfile "$deb" | tar -t | normalize "$(role "$name")" >>"$dir/debian"
done
sort -o "$dir/debian" "$dir/debian"
echo "Debian: $(cut -d' ' -f1 "$dir/debian" | sort -u | wc -l) packages, $(wc -l <"$dir/debian") files"

set -- "$pkgs"/rpm/RPMS/*/*.rpm
[ -e "$1" ] || fail "no RPM in $pkgs/rpm/RPMS (scripts/packages)"
: >"$dir/fedora"
for rpm; do
	name=$(rpm -qp --qf '%{NAME}' "$rpm")
	case $name in *-debuginfo | *-debugsource) continue ;; esac
	# rpm lists the directories a package owns like files: drop them.
	rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$rpm" |
		sed -n 's,^[^d][^ ]* ,,p' | normalize "$(role "$name")" >>"$dir/fedora"
done
sort -o "$dir/fedora" "$dir/fedora"
echo "Fedora: $(cut -d' ' -f1 "$dir/fedora" | sort -u | wc -l) packages, $(wc -l <"$dir/fedora") files"

set -- "$pkgs"/arch/*.pkg.tar.zst
[ $# = 1 ] && [ -e "$1" ] || fail "not one Arch package in $pkgs/arch (scripts/packages): $*"
bsdtar -tf "$1" | normalize arch | sort >"$dir/arch"
echo "Arch: 1 package, $(wc -l <"$dir/arch") files"

[ -s "$dir/debian" ] || fail "the Debian packages list no file"
diff -u "$dir/debian" "$dir/fedora" >"$dir/diff" ||
	fail "Debian's and Fedora's packages differ (- Debian, + Fedora):
$(cat "$dir/diff")"
echo "ok: Debian's and Fedora's packages install the same $(wc -l <"$dir/debian") files, split alike"

cut -d' ' -f2 "$dir/debian" | sort | sed 's,^,arch ,' >"$dir/debian-paths"
diff -u "$dir/debian-paths" "$dir/arch" >"$dir/diff" ||
	fail "Debian's packages and Arch's differ (- Debian, + Arch):
$(cat "$dir/diff")"
echo "ok: Arch's package installs the same $(wc -l <"$dir/arch") files"
