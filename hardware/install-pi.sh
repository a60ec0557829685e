#!/usr/bin/env bash
# Install Ricochet Companion on a Raspberry Pi (Raspberry Pi OS Bookworm or newer) and start it
# at boot. Safe to run again: every step checks what is already there.
#
#   sudo hardware/install-pi.sh            # from a checkout of the repository
#
# What it does: apt packages (picamera2 without its recommends, which would bring Qt and GL onto
# Lite; lgpio, the GPIO library gpiozero uses, both come from apt, with libcamera), an
# unprivileged user "companion" in the gpio and video groups, a venv made --system-site-packages
# so it sees picamera2 and lgpio, the package with its [pi] extra (simplejpeg from PyPI: the
# venv's numpy 2 cannot load apt's simplejpeg, built for Debian's numpy 1.x, and picamera2
# imports it), and the systemd unit hardware/companion.service.
set -euo pipefail

# 64-bit only: numpy and OpenCV publish no wheels for 32-bit ARM (armhf), and building them on
# a Pi takes hours.
ARCH=$(dpkg --print-architecture 2>/dev/null || uname -m)
case "$ARCH" in
    arm64|aarch64|amd64|x86_64) ;;
    *)
        echo "error: $ARCH: 32-bit Raspberry Pi OS is not supported; install the 64-bit" \
            "Raspberry Pi OS (Bookworm or Trixie)" >&2
        exit 2 ;;
esac

if [ "$(id -u)" -ne 0 ]; then
    echo "error: run as root: sudo $0" >&2
    exit 2
fi
SRC=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=/opt/ricochet-companion
USER_NAME=companion

apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    python3-venv python3-pip python3-picamera2 python3-lgpio espeak-ng

if ! id "$USER_NAME" >/dev/null 2>&1; then
    useradd --system --create-home --home-dir /var/lib/ricochet-companion \
        --shell /usr/sbin/nologin "$USER_NAME"
fi
for group in gpio video audio; do  # audio: the table speaks (espeak-ng)
    getent group "$group" >/dev/null && usermod -aG "$group" "$USER_NAME"
done

# The code lives in $PREFIX/src (a copy of this checkout), the venv in $PREFIX/venv.
mkdir -p "$PREFIX"
rsync -a --delete --exclude .git --exclude .venv "$SRC/" "$PREFIX/src/" 2>/dev/null \
    || { rm -rf "$PREFIX/src"; cp -a "$SRC" "$PREFIX/src"; rm -rf "$PREFIX/src/.git" "$PREFIX/src/.venv"; }
[ -x "$PREFIX/venv/bin/python" ] || python3 -m venv --system-site-packages "$PREFIX/venv"
"$PREFIX/venv/bin/pip" install -q --upgrade pip
"$PREFIX/venv/bin/pip" install -q --prefer-binary -e "$PREFIX/src[pi]"
# The camera's library must import under the venv's numpy (the companion says why otherwise).
"$PREFIX/venv/bin/python" -c "import picamera2" 2>/dev/null \
    || echo "warning: picamera2 does not import in $PREFIX/venv; the table will run without" \
        "its camera until it does: $PREFIX/venv/bin/python -c 'import picamera2'" >&2
chown -R root:root "$PREFIX"

install -m 0644 "$SRC/hardware/companion.service" /etc/systemd/system/ricochet-companion.service
systemctl daemon-reload
systemctl enable ricochet-companion.service >/dev/null
systemctl restart ricochet-companion.service

echo "Ricochet Companion is running: open http://$(hostname -I | awk '{print $1}'):8000/"
echo "The table PIN is on the main screen of the page and in: journalctl -u ricochet-companion -n 30"
echo "The service holds the camera: sudo systemctl stop ricochet-companion before rpicam-still."
echo "First boot at the table: hardware/FIRST-BOOT.md"
