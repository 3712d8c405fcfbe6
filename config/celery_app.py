import os

from celery import Celery
from celery.signals import worker_init, worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_init.connect
@worker_process_init.connect
def _audit_as_worker(**kwargs):
    """Changes a worker makes are audited as made by the worker."""
    from accounts.context import set_default_origin

    set_default_origin("worker")
