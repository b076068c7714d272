#!/usr/bin/env bash
# A user with a set of emails, in the sqlite3 shell.
#   examples/user_emails/run.sh [BUILD_DIR [WORKDIR]]   (WORKDIR default: BUILD_DIR/user_emails)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build_dir=$(cd "${1:-build}" && pwd)
work=${2:-$build_dir/user_emails}
rm -rf "$work" && mkdir -p "$work"
sqlite3 -bail -cmd ".load $build_dir/cassette" "$work/users.db" <"$here/user_emails.sql"
