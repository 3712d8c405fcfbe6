import gc
import os

from celery import Celery
from celery.signals import worker_init, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Django's system checks run where a deployment starts, with its management commands: `migrate`
# (docker-compose's web service, the Kubernetes migrate job), `bootstrap_admin` (scripts/run.sh), `check`.
# A worker starting would run them again, which imports every URL configuration, view, serializer and admin
# class: ~15 MB each worker kept for nothing (no task uses them). CELERY_SKIP_CHECKS= (empty) in a worker's
# environment runs them there too.
os.environ.setdefault("CELERY_SKIP_CHECKS", "true")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
@worker_process_init.connect
def _audit_as_worker(**kwargs):
    """Changes a worker makes are audited as made by the worker."""
    from accounts.context import set_default_origin

    set_default_origin("worker")


@worker_init.connect
def _warm_up(**kwargs):
    """Parse the fleet's catalog and compile the current rule set before the first task (prefork children
    inherit them), as gunicorn's workers do before their first request: a worker started to replace a killed
    one takes over its batches at full speed."""
    import logging

    from validation.selectors import compiled_rulesets_kept, warm_up

    # A worker runs one rule set at a time (a re-check's, a preview's draft): the one before it, tens of MB
    # with its release plans, is not kept once a publication moves on.
    compiled_rulesets_kept(1)
    try:
        warm_up()
    except Exception as exc:  # a database not migrated or not reachable yet: the first task pays instead
        logging.getLogger(__name__).warning("warm-up skipped: %s", exc)
    # As gunicorn.conf.py: what is loaded now stays, so full collections need not walk it (and prefork
    # children do not touch, and so copy, the pages it lies on).
    gc.freeze()
