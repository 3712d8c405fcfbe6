#!/usr/bin/env bash
# The dashboard with its worker and beat, on whatever the environment says (embedded defaults otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
# Links in e-mails (alerts, release notices) point at SITE_URL; unless it is given, it is where this
# server listens (a wildcard address is replaced by this machine's name, which others can reach).
case "$HOST" in
  0.0.0.0|::|"[::]") SITE_HOST=$(hostname -f 2>/dev/null || hostname) ;;
  *) SITE_HOST=$HOST ;;
esac
export SITE_URL=${SITE_URL:-http://$SITE_HOST:$PORT}
mkdir -p var/log

.venv/bin/celery -A config worker --loglevel=INFO --concurrency=2 >var/log/worker.log 2>&1 &
WORKER=$!
.venv/bin/celery -A config beat --loglevel=INFO >var/log/beat.log 2>&1 &
BEAT=$!
trap 'kill $WORKER $BEAT 2>/dev/null; wait 2>/dev/null' EXIT INT TERM

$PY manage.py collectstatic --noinput -v0
case "$HOST" in *:*) URL_HOST="[$HOST]" ;; *) URL_HOST=$HOST ;; esac
echo
echo "vLLM Profiles:  http://$URL_HOST:$PORT/"
echo "API docs:       http://$URL_HOST:$PORT/api/docs/"
echo "E-mail links:   $SITE_URL"
# The one place the first administrator is made and the login said (`make run` does not run it before).
$PY manage.py bootstrap_admin
echo "Worker and beat logs: var/log/worker.log, var/log/beat.log. Mail: ${EMAIL_URL:-var/mail/}. Ctrl-C stops all."
echo
# Workers, threads, keep-alive and the access log come from gunicorn.conf.py (WEB_WORKERS, WEB_THREADS, ...).
export WEB_ACCESS_LOG=${WEB_ACCESS_LOG--}
.venv/bin/gunicorn config.wsgi --bind "$HOST:$PORT"
