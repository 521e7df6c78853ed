#!/usr/bin/env bash
# Updates the table from this checkout: pulls the code (git, fast-forward only), backs the
# journal up, then runs install.sh again, which reinstalls the code, migrates the journal's
# schema and restarts the service. The settings, the journal and the token are kept.
#   sudo deploy/update.sh [--no-pull] [--not-a-pi]
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

PULL=1
INSTALL_OPTIONS=()
for argument in "$@"; do
  case "$argument" in
    --no-pull) PULL=0 ;;
    --not-a-pi) INSTALL_OPTIONS+=(--not-a-pi) ;;
    -h | --help)
      usage "$0"
      exit 0
      ;;
    *) die "unknown option $argument (see --help)" ;;
  esac
done
need_root
[ -x "$VENV/bin/croupier" ] || die "the table is not installed here: run deploy/install.sh first"

if [ "$PULL" = 1 ]; then
  [ -d "$SOURCE/.git" ] || die "$SOURCE is not a git checkout: update its files, then run this with --no-pull"
  owner=$(stat -c %U "$SOURCE")
  say "pulling the code into $SOURCE (as $owner)"
  runuser -u "$owner" -- git -C "$SOURCE" pull --ff-only
fi

if [ -f "$DATA/croupier.db" ]; then
  say "backing the journal up before the update"
  note "$(as_table_user "$VENV/bin/croupier" journal backup --config "$CONFIG")"
fi

exec "$DEPLOY/install.sh" "${INSTALL_OPTIONS[@]}"
