#!/usr/bin/env bash
# Installs the Debian 12 packages benchreport needs to build, test and look
# at its output. Run as root (or with sudo available). Idempotent.
set -euo pipefail
pkgs=(build-essential cmake pkg-config
      libjansson-dev libcairo2-dev libpng-dev libpango1.0-dev libhpdf-dev libglib2.0-dev libssl-dev
      libcmocka-dev libcurl4-openssl-dev fonts-dejavu-core fonts-arphic-uming fonts-wqy-microhei python3-fonttools poppler-utils qpdf python3-numpy time
      clang libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "deps: all ${#pkgs[@]} packages installed"
# The CJK sans face for the PDF: WenQuanYi Micro Hei with its composite
# glyphs flattened (libharu 2.3 drops their strokes otherwise; see the script).
cjk=/usr/local/share/benchreport/fonts/wqy-microhei-flat.ttf
src=/usr/share/fonts/truetype/wqy/wqy-microhei.ttc
if [ ! -s "$cjk" ] || [ "$src" -nt "$cjk" ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO /usr/bin/python3 "$(dirname "$0")/flatten_cjk_font.py" "$src" "$cjk"
fi
