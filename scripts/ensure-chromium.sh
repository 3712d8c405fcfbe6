#!/usr/bin/env bash
# Browser tests drive Debian's Chromium (Playwright's own browser download cannot reach the internet here):
# install it with apt when it is missing.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  exit 0
fi
echo "installing chromium and chromium-driver with apt-get"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends chromium chromium-driver
/usr/bin/chromium --version
