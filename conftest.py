"""Tests run against the real PostgreSQL and Redis of this machine (`make test` starts them if down)."""

import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/vllm_profiles")
os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
os.environ.setdefault("EMAIL_URL", "memorymail://")
