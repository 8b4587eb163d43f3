#!/usr/bin/env bash
# Installs the Debian 12 packages benchreport needs to build, test and look
# at its output. Run as root (or with sudo available). Idempotent.
set -euo pipefail
pkgs=(build-essential cmake pkg-config
      libjansson-dev libcairo2-dev libpng-dev libpango1.0-dev libhpdf-dev libglib2.0-dev nettle-dev
      libcmocka-dev libcurl4-openssl-dev libfast-float-dev libfribidi-dev fonts-dejavu-core fonts-arphic-uming fonts-wqy-microhei python3-fonttools poppler-utils qpdf python3-numpy time valgrind
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
# The faces the PDF embeds, written by scripts/pdf_font.py into
# /usr/local/share/benchreport/fonts: DejaVu Sans and Sans Bold
# without hinting, glyph names or layout tables (about 40% smaller in every
# PDF), and WenQuanYi Micro Hei likewise with its composite glyphs
# flattened (libharu 2.3 drops their strokes otherwise; see the script).
# The PDF writer falls back to the system files when these are missing.
fonts=/usr/local/share/benchreport/fonts
script="$(dirname "$0")/pdf_font.py"
for spec in "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf DejaVuSans-pdf.ttf" \
            "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf DejaVuSans-Bold-pdf.ttf" \
            "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc wqy-microhei-pdf.ttf --flatten"; do
  set -- $spec
  src=$1 dst="$fonts/$2"
  if [ ! -s "$dst" ] || [ "$src" -nt "$dst" ] || [ "$script" -nt "$dst" ]; then
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO /usr/bin/python3 "$script" ${3:-} "$src" "$dst"
  fi
done
