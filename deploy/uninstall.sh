#!/usr/bin/env bash
# Removes the table from this machine: the service, its timer, the venv, the command, the avahi
# and udev files. The journal, its backups, the token (/var/lib/croupier), the settings
# (/etc/croupier) and the croupier user stay, unless --purge is given:
#   sudo deploy/uninstall.sh [--purge]
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

PURGE=0
for argument in "$@"; do
  case "$argument" in
    --purge) PURGE=1 ;;
    -h | --help)
      usage "$0"
      exit 0
      ;;
    *) die "unknown option $argument (see --help)" ;;
  esac
done
need_root

if systemd_running; then
  systemctl disable --now --quiet croupier.service croupier-backup.timer 2>/dev/null || true
else
  systemctl disable --quiet croupier.service croupier-backup.timer 2>/dev/null || true
fi
for unit in "${UNIT_FILES[@]}"; do
  rm -f "$UNITS/$unit"
done
rm -rf "$UNITS/croupier.service.d"
if systemd_running; then systemctl daemon-reload; fi
say "the service and the daily backup are stopped and removed"

rm -f "$AVAHI_SERVICE" "$COMMAND_LINK"
if [ -f "$UDEV_RULE" ]; then
  rm -f "$UDEV_RULE"
  udevadm control --reload 2>/dev/null || true
fi
rm -rf "$PREFIX"
say "removed $PREFIX (the venv), $COMMAND_LINK, the avahi announcement and the udev rule"

if [ "$PURGE" = 0 ]; then
  say "kept: the journal and its backups ($DATA), the settings ($CONFIG_DIR), the user $TABLE_USER"
  note "sudo deploy/uninstall.sh --purge removes them too"
  exit 0
fi
rm -rf "$DATA" "$CONFIG_DIR"
if id "$TABLE_USER" >/dev/null 2>&1; then
  userdel "$TABLE_USER"
fi
say "purged: $DATA (the journal and its backups), $CONFIG_DIR and the user $TABLE_USER"
