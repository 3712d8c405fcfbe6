"""Settings for the test suite: the real PostgreSQL and Redis of this machine unless the environment says
otherwise (`make test` starts them if they are down)."""

import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/vllm_profiles")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
os.environ.setdefault("EMAIL_URL", "memorymail://")
os.environ.setdefault("CACHE_URL", "locmemcache://")

from .settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast user fixtures

# One test database per run, so that parallel runs (several engineers, one machine) never collide.
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":  # noqa: F405
    DATABASES["default"].setdefault("TEST", {})["NAME"] = f"test_vllm_profiles_{os.getpid()}"  # noqa: F405
