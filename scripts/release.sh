#!/usr/bin/env bash
# make release: `otp` built with the Swift runtime linked in (--static-swift-stdlib), so it runs
# where /opt/swift does not exist, and a Debian package holding it with a hardened systemd unit,
# an environment file for options and secrets, and Depends: on exactly the libraries it links.
# The package is .build/release-package/otpkit_VERSION_ARCH.deb.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || export PATH=/opt/swift/usr/bin:$PATH

version=$(tr -d ' \n' <VERSION)
arch=$(dpkg --print-architecture)
scratch=${OTP_STATIC_SCRATCH:-.build-static}
out=.build/release-package
package="$out/otpkit_${version}_${arch}.deb"

echo "== build otp (release, Swift runtime linked in)"
build_log=$(mktemp)
if ! swift build -c release --product otp --static-swift-stdlib --scratch-path "$scratch" >"$build_log" 2>&1; then
  grep -v "prohibited flag" "$build_log" | tail -n 40
  exit 1
fi
rm -f "$build_log"
bin="$scratch/release/otp"

# The package of every shared library the binary names (NEEDED), found through the loader's cache.
depends=()
for soname in $(objdump -p "$bin" | awk '$1 == "NEEDED" { print $2 }'); do
  # awk reads to the end (no early exit), so ldconfig never meets a closed pipe under pipefail.
  path=$(ldconfig -p | awk -v name="$soname" '$1 == name && /x86-64|aarch64|64bit/ && !found { print $NF; found = 1 }')
  [ -n "$path" ] || path=$(ldconfig -p | awk -v name="$soname" '$1 == name && !found { print $NF; found = 1 }')
  [ -n "$path" ] || { echo "release: $soname is not in the loader's cache" >&2; exit 1; }
  owner=""
  for candidate in "$path" "$(readlink -f "$path")" "${path/#\/usr\/lib/\/lib}" "${path/#\/lib/\/usr\/lib}"; do
    owner=$(dpkg -S "$candidate" 2>/dev/null | sed -n '1s/:.*//p') && [ -n "$owner" ] && break
  done
  [ -n "$owner" ] || { echo "release: no Debian package owns $path ($soname)" >&2; exit 1; }
  case "$owner" in *swift*) echo "release: $soname comes from the Swift toolchain" >&2; exit 1 ;; esac
  depends+=("$owner")
done
depends_line=$(printf '%s\n' "${depends[@]}" | sort -u | paste -sd, - | sed 's/,/, /g')

echo "== package $package"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
install -D -m 0755 "$bin" "$stage/usr/bin/otp"
strip --strip-unneeded "$stage/usr/bin/otp"
install -D -m 0644 packaging/otp.service "$stage/lib/systemd/system/otp.service"
install -D -m 0600 packaging/otp.env "$stage/etc/otp/otp.env"
install -D -m 0644 LICENSE "$stage/usr/share/doc/otpkit/copyright"
install -D -m 0644 CHANGELOG.md "$stage/usr/share/doc/otpkit/CHANGELOG.md"
install -D -m 0755 packaging/postinst "$stage/DEBIAN/postinst"
install -D -m 0755 packaging/postrm "$stage/DEBIAN/postrm"
echo "/etc/otp/otp.env" >"$stage/DEBIAN/conffiles"
size=$(du -sk "$stage" | cut -f1)
cat >"$stage/DEBIAN/control" <<CONTROL
Package: otpkit
Version: $version
Architecture: $arch
Maintainer: OTPKit <otpkit@localhost>
Installed-Size: $size
Depends: adduser, $depends_line
Conflicts: otp
Section: net
Priority: optional
Description: one-time-code verification server (otp serve)
 Sends one-time codes by SMS and email and judges them: hashed codes, atomic
 attempt counting, expiry, resend cooldowns and rate limits, with an embedded
 SQLite store by default. Runs as the otp service (systemctl start otp).
CONTROL
mkdir -p "$out"
dpkg-deb --root-owner-group --build "$stage" "$package" >/dev/null
echo "built $package ($(du -k "$package" | cut -f1) KiB; Depends: adduser, $depends_line)"
