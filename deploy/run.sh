#!/bin/sh
# Runs one process of the Procfile by its name, with any further arguments appended:
#   deploy/run.sh web
#   deploy/run.sh worker-money --concurrency 4
# deploy/compose.yaml starts every service this way, so the Procfile is the one place
# where the commands are written.
set -eu
name="$1"
shift
line=$(sed -n "s/^$name: //p" "$(dirname "$0")/../Procfile")
if [ -z "$line" ]; then
    echo "run.sh: no process named '$name' in the Procfile" >&2
    exit 2
fi
# A process that could rewrite the audit trail (it logs in as the tables' owner) does not
# start (apps.support.checks; DATABASE_SINGLE_ROLE_ALLOWED=1 says the deployment accepts it).
python manage.py check --database default --tag database --fail-level ERROR >/dev/null
eval "exec $line \"\$@\""
