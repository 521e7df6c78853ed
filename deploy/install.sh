#!/usr/bin/env bash
# Turns a Raspberry Pi (Raspberry Pi OS Bookworm, 64-bit; a Pi 4 or 5) into the table:
#   sudo deploy/install.sh
# It may run again at any time (deploy/update.sh does): each step says what it did, or that
# there was nothing to do. The settings, the journal and the control token are never replaced.
#
# --not-a-pi   on any other Debian 12 machine (CI): skip the Pi's own packages (picamera2, lgpio)
#              and write settings for the simulated devices; everything else is done for real.
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

NOT_A_PI=0
STAGED=""
trap '[ -z "$STAGED" ] || rm -rf "$STAGED"' EXIT
for argument in "$@"; do
  case "$argument" in
    --not-a-pi) NOT_A_PI=1 ;;
    -h | --help)
      usage "$0"
      exit 0
      ;;
    *) die "unknown option $argument (see --help)" ;;
  esac
done
need_root

check_system() {
  command -v apt-get >/dev/null || die "this installer is for Raspberry Pi OS (Debian): apt-get is missing"
  /usr/bin/python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
    die "the table needs Python 3.11 or newer (Raspberry Pi OS Bookworm has it)"
}

# The system's packages. numpy (and picamera2, lgpio on a Pi) come from apt: picamera2 is built
# against the system's numpy, so the table's venv sees them (--system-site-packages) rather
# than pip's. OpenCV is pip's, in the venv only: Bookworm's python3-opencv is 4.6, which lacks
# the ArUco detector the mat is found with (4.7+); docs/pi.md says more.
install_packages() {
  local wanted=(python3-venv python3-numpy avahi-daemon)
  if [ "$NOT_A_PI" = 0 ]; then
    wanted+=(python3-picamera2 python3-lgpio)
  else
    say "not a Pi: skipping python3-picamera2 and python3-lgpio"
  fi
  if grep -qx connected /sys/class/drm/*/status 2>/dev/null; then
    wanted+=(chromium) # a screen is attached: the page can be shown on it
  fi
  local missing=()
  for package in "${wanted[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  if [ ${#missing[@]} = 0 ]; then
    say "packages: ${wanted[*]} are installed"
    return
  fi
  say "installing ${missing[*]} (apt)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

make_user() {
  for group in "${TABLE_GROUPS[@]}"; do
    if ! getent group "$group" >/dev/null; then
      groupadd --system "$group"
      say "made the group $group (this machine had none)"
    fi
  done
  if id "$TABLE_USER" >/dev/null 2>&1; then
    say "user $TABLE_USER exists"
  else
    useradd --system --user-group --home-dir "$DATA" --no-create-home --shell /usr/sbin/nologin \
      --comment "Croupier, the card table" "$TABLE_USER"
    say "made the system user $TABLE_USER"
  fi
  usermod -aG "$(
    IFS=,
    echo "${TABLE_GROUPS[*]}"
  )" "$TABLE_USER"
  note "$TABLE_USER is in the groups ${TABLE_GROUPS[*]}"
}

make_data_folder() {
  install -d -m 0700 -o "$TABLE_USER" -g "$TABLE_USER" "$DATA"
  say "data folder $DATA (mode 0700, $TABLE_USER's alone): the journal, its copies and backups, the token"
}

write_settings() {
  install -d -m 0755 "$CONFIG_DIR"
  if [ -f "$CONFIG" ]; then
    say "settings kept: $CONFIG"
    return
  fi
  if [ "$NOT_A_PI" = 0 ]; then
    install -m 0644 "$DEPLOY/croupier.toml" "$CONFIG"
  else
    sed -e 's|^port = "/dev/croupier-dealer".*|port = "sim"|' -e 's|^source = "picamera2".*|source = "sim"|' \
      -e 's|^pin_factory = "lgpio"|pin_factory = "mock"|' "$DEPLOY/croupier.toml" >"$CONFIG"
    chmod 0644 "$CONFIG"
  fi
  say "settings written: $CONFIG"
}

make_venv() {
  if [ -x "$VENV/bin/python" ] && grep -qx 'include-system-site-packages = true' "$VENV/pyvenv.cfg"; then
    say "venv $VENV exists (it sees the system's packages)"
    return
  fi
  rm -rf "$VENV"
  install -d -m 0755 "$PREFIX"
  /usr/bin/python3 -m venv --system-site-packages "$VENV"
  say "made the venv $VENV (--system-site-packages: the system's numpy and picamera2)"
}

# pip installs the table and what it needs, with the system's numpy pinned: whatever pip
# chooses must work with it (OpenCV's wheel for numpy 1.x, for one), and pip fails in words
# rather than replace it.
install_croupier() {
  local numpy
  numpy=$(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)')
  printf '# The system'"'"'s numpy (apt): picamera2 is built against it; pip must not replace it.\nnumpy==%s\n' \
    "$numpy" >"$CONSTRAINTS"
  # A copy of the source to build from: the checkout is left as it was.
  STAGED=$(mktemp -d)
  tar -C "$SOURCE" --exclude=./.git --exclude=./.venv --exclude=./runs --exclude='./runs_*' --exclude=./build \
    --exclude='*.egg-info' --exclude=__pycache__ -cf - . | tar -C "$STAGED" -xf -
  say "installing croupier into $VENV (pip; the system's numpy $numpy kept)"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --constraint "$CONSTRAINTS" "$STAGED"
  "$VENV/bin/python" - <<'EOF' || die "pip replaced the system's numpy in the venv: picamera2 would break"
import cv2, numpy, sys
system = numpy.__file__.startswith("/usr/lib/python3/dist-packages/")
print(f"    numpy {numpy.__version__} ({'the system' if system else 'pip'}'s), OpenCV {cv2.__version__} (pip's)")
sys.exit(0 if system else 1)
EOF
  ln -sfn "$VENV/bin/croupier" "$COMMAND_LINK"
  note "the command: $COMMAND_LINK"
}

make_token() {
  local line
  line=$(as_table_user "$VENV/bin/croupier" token --config "$CONFIG")
  say "the control token (the page asks for it before it acts): ${line##*: }"
  note "sudo -u $TABLE_USER croupier token --config $CONFIG shows it again"
}

migrate_journal() {
  say "journal: $(as_table_user "$VENV/bin/croupier" journal migrate --config "$CONFIG")"
}

install_units() {
  for unit in "${UNIT_FILES[@]}"; do
    install -m 0644 "$DEPLOY/systemd/$unit" "$UNITS/$unit"
  done
  if [ "$NOT_A_PI" = 1 ]; then
    install -d -m 0755 "$(dirname "$SIMULATED_DROP_IN")"
    install -m 0644 "$DEPLOY/systemd/simulated-devices.conf" "$SIMULATED_DROP_IN"
  else
    rm -f "$SIMULATED_DROP_IN"
  fi
  (cd "$UNITS" && systemd-analyze verify "${UNIT_FILES[@]/#/$UNITS/}") || die "systemd-analyze verify refused the units"
  say "systemd units installed and verified: ${UNIT_FILES[*]}"
}

install_avahi() {
  install -d -m 0755 "$(dirname "$AVAHI_SERVICE")"
  install -m 0644 "$DEPLOY/avahi/croupier.service" "$AVAHI_SERVICE"
  say "the page is announced on the network (avahi): http://$(hostname).local/"
  [ "$(hostname)" = croupier ] || note "name this machine croupier (sudo hostnamectl set-hostname croupier) for http://croupier.local/"
}

install_dealer_rule() {
  if [ -f "$UDEV_RULE" ]; then
    say "dealing machine: $UDEV_RULE is installed"
    return
  fi
  local rule
  if rule=$("$VENV/bin/croupier" doctor --find-dealer 2>/dev/null); then
    printf '%s\n' "$rule" >"$UDEV_RULE"
    if udevadm control --reload 2>/dev/null; then
      udevadm trigger --subsystem-match=tty || true
    fi
    say "dealing machine: $UDEV_RULE names it /dev/croupier-dealer"
  else
    say "dealing machine: not plugged in (or more than one USB serial device); later:"
    note "croupier doctor --find-dealer | sudo tee $UDEV_RULE && sudo udevadm control --reload && sudo udevadm trigger"
  fi
}

start_service() {
  if ! systemd_running; then
    systemctl enable --quiet croupier.service croupier-backup.timer
    say "systemd is not running here: the service and the daily backup are enabled, and start with the machine"
    return
  fi
  systemctl daemon-reload
  systemctl enable --quiet croupier.service croupier-backup.timer
  systemctl restart croupier.service
  systemctl start croupier-backup.timer
  say "the table is running: systemctl status croupier; its log: journalctl -u croupier"
}

check_system
if service_active; then
  say "stopping the table while it is installed (it starts again at the end)"
  systemctl stop croupier.service
fi
install_packages
make_user
make_data_folder
write_settings
make_venv
install_croupier
make_token
migrate_journal
install_units
install_avahi
install_dealer_rule
start_service
say "done. Check the table: sudo systemctl stop croupier; sudo -u $TABLE_USER croupier doctor --config $CONFIG; sudo systemctl start croupier"
