# shellcheck shell=bash disable=SC2034  # sourced: the variables are used by the scripts that source it
# What install.sh, update.sh and uninstall.sh share: where the table goes, and how they speak.
# (Sourced, not run.)

TABLE_USER=croupier
TABLE_GROUPS=(dialout video gpio) # the dealing machine's port, the camera, the panel's pins
PREFIX=/opt/croupier
VENV=$PREFIX/venv
CONSTRAINTS=$PREFIX/system-packages.txt
CONFIG_DIR=/etc/croupier
CONFIG=$CONFIG_DIR/croupier.toml
DATA=/var/lib/croupier
UNITS=/etc/systemd/system
UNIT_FILES=(croupier.service croupier-backup.service croupier-backup.timer)
SIMULATED_DROP_IN=$UNITS/croupier.service.d/simulated-devices.conf
AVAHI_SERVICE=/etc/avahi/services/croupier.service
UDEV_RULE=/etc/udev/rules.d/99-croupier-dealer.rules
COMMAND_LINK=/usr/local/bin/croupier
DEPLOY=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SOURCE=$(dirname "$DEPLOY")

say() { printf '==> %s\n' "$*"; }
note() { printf '    %s\n' "$*"; }
die() {
  printf 'croupier: %s\n' "$*" >&2
  exit 1
}

# The script's opening comment, as its --help.
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$1"; }

need_root() {
  [ "$(id -u)" = 0 ] || die "run it as root: sudo $0"
}

systemd_running() { [ -d /run/systemd/system ]; }

service_active() { systemd_running && systemctl is-active --quiet croupier.service; }

# A command as the table's user, from a folder it may read.
as_table_user() { (cd / && runuser -u "$TABLE_USER" -- "$@"); }
