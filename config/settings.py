"""Settings, all from the environment (12-factor), with embedded defaults that need no server.

DATABASE_URL      default sqlite:///<repo>/var/db.sqlite3      (postgres://user@host:5432/name in production)
CELERY_BROKER_URL default filesystem:// under <repo>/var/broker   (redis://127.0.0.1:6379/0 in production)
EMAIL_URL         default filemail:///<repo>/var/mail            (smtp://host:port, consolemail://)
"""

from datetime import timedelta
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(environ.Env().str("VLLM_PROFILES_VAR_DIR", default=str(BASE_DIR / "var")))

env = environ.Env()

DEBUG = env.bool("DEBUG", default=False)
SECRET_KEY = env.str("SECRET_KEY", default="dev-only-insecure-key-change-me-in-production-0123456789")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "csp",
    "axes",
    "hub",
    "profiles",
    "validation",
    "fleet",
    "sources",
    "accounts",
    "notifications",
]

MIDDLEWARE = [
    "config.middleware.RequestBodyLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.AuditOriginMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: it answers a locked-out login with 429.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    }
]

DATABASES = {"default": env.db_url("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
# Persistent connections: without them every request opens a PostgreSQL connection (a new server process)
# and closes it, which cost more than the whole validation. Each web thread and worker process keeps one for
# this many seconds (0: one per request). Django's CONN_HEALTH_CHECKS checks a kept connection (a `SELECT 1`)
# before the first query of each request and task, so that a database restart or failover, which breaks
# every kept connection, fails no request: the broken one is replaced (tests/faults).
# DB_CONN_HEALTH_CHECKS=false turns the check off: the first request of each thread after a restart then
# fails.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=600)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool("DB_CONN_HEALTH_CHECKS", default=True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # psycopg 3 through Django's own OPTIONS. DB_SERVER_SIDE_BINDING: values bound by PostgreSQL instead of
    # interpolated by psycopg; DB_PREPARE_THRESHOLD: with it, a statement sent that many times on a
    # connection is prepared there (parsed and planned once); 0: never (Django's default, and what a
    # transaction-pooling PgBouncer older than 1.21 needs).
    _prepare = env.int("DB_PREPARE_THRESHOLD", default=5)
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        server_side_binding=env.bool("DB_SERVER_SIDE_BINDING", default=True),
        prepare_threshold=_prepare or None,
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Web, worker and beat share one SQLite file: wait for locks instead of failing at once.
    DATABASES["default"].setdefault("OPTIONS", {})["timeout"] = 20
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# Covering indexes (INCLUDE) are a PostgreSQL optimisation; on the embedded SQLite they are plain indexes.
SILENCED_SYSTEM_CHECKS = ["models.W040"]

# ---- Web security (README "Security") -------------------------------------------------------------------
# HTTPS=true (production, behind TLS): redirect to https, cookies only over https, HSTS for a year.
HTTPS = env.bool("HTTPS", default=False)
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31_536_000 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=HTTPS)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=HTTPS)
# TLS ends at a proxy (ingress, load balancer) that says so in X-Forwarded-Proto.
if env.bool("BEHIND_TLS_PROXY", default=HTTPS):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# /healthz and /readyz answer the kubelet's plain-HTTP probes inside the cluster.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
# htmx sends the token from the page (hx-headers), never from the cookie: scripts need not read it.
CSRF_COOKIE_HTTPONLY = True
CSRF_COOKIE_SAMESITE = "Lax"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Content Security Policy (django-csp): scripts and styles only from our own static files (the vendored
# htmx, dashboard.js/.css); nothing inline, no eval, no framing.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
# Login throttling and lock-out (django-axes): AXES_FAILURE_LIMIT failed logins for one user name from one
# address lock that pair out for AXES_COOLOFF_MINUTES; the login page answers 429 meanwhile.
# The password form's backend refuses everyone but the break-glass accounts when LOCAL_LOGIN is off; the SSO
# backend answers only while single sign-on is configured (below).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "accounts.oidc.LocalPasswordBackend",
    "accounts.oidc.SsoBackend",
]
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_IPWARE_PROXY_COUNT = env.int("AXES_PROXY_COUNT", default=0)
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False  # no banner on every process start

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "profiles:list"
LOGOUT_REDIRECT_URL = "login"

# Single sign-on with OpenID Connect (mozilla-django-oidc; README "Single sign-on"): on when the client and
# the provider's four endpoints are set. The endpoints are settings, never user input (docs/security.md).
OIDC_PROVIDER_NAME = env.str("OIDC_PROVIDER_NAME", default="single sign-on")  # "Sign in with <name>"
OIDC_RP_CLIENT_ID = env.str("OIDC_RP_CLIENT_ID", default="")
OIDC_RP_CLIENT_SECRET = env.str("OIDC_RP_CLIENT_SECRET", default="")
OIDC_OP_AUTHORIZATION_ENDPOINT = env.str("OIDC_OP_AUTHORIZATION_ENDPOINT", default="")
OIDC_OP_TOKEN_ENDPOINT = env.str("OIDC_OP_TOKEN_ENDPOINT", default="")
OIDC_OP_USER_ENDPOINT = env.str("OIDC_OP_USER_ENDPOINT", default="")
OIDC_OP_JWKS_ENDPOINT = env.str("OIDC_OP_JWKS_ENDPOINT", default="")
OIDC_RP_SIGN_ALGO = env.str("OIDC_RP_SIGN_ALGO", default="RS256")
OIDC_RP_SCOPES = env.str("OIDC_RP_SCOPES", default="openid email profile")
OIDC_GROUPS_CLAIM = env.str("OIDC_GROUPS_CLAIM", default="groups")
OIDC_TOKEN_USE_BASIC_AUTH = env.bool("OIDC_TOKEN_USE_BASIC_AUTH", default=False)  # else client_secret_post
OIDC_VERIFY_SSL = env.str("OIDC_CA_BUNDLE", default="") or True  # a CA bundle for a private CA
OIDC_TIMEOUT = env.int("OIDC_TIMEOUT", default=10)
OIDC_USE_PKCE = True
OIDC_USE_NONCE = True
OIDC_AUTHENTICATE_CLASS = "accounts.oidc.SsoSignInView"
OIDC_CALLBACK_CLASS = "accounts.oidc.SsoCallbackView"
LOGIN_REDIRECT_URL_FAILURE = "/accounts/login/?sso=failed"
# The local user name and password form: LOCAL_LOGIN=false refuses it for everyone but the break-glass
# accounts listed here (user names), e.g. the admin who fixes the SSO configuration.
LOCAL_LOGIN = env.bool("LOCAL_LOGIN", default=True)
LOCAL_LOGIN_BREAK_GLASS_USERS = env.list("LOCAL_LOGIN_BREAK_GLASS_USERS", default=[])

# Kubernetes admission webhook (POST /api/v1/admission/): the bearer token the API server sends; "" = none.
ADMISSION_WEBHOOK_TOKEN = env.str("ADMISSION_WEBHOOK_TOKEN", default="")

# Cache shared by web and worker (full-fleet previews are computed by a worker and shown by the web):
# CACHE_URL=redis://127.0.0.1:6379/1 in production, a file cache under var/ by default.
CACHES = {"default": env.cache_url("CACHE_URL", default=f"filecache://{VAR_DIR / 'cache'}")}
if CACHES["default"]["BACKEND"].endswith("RedisCache"):
    # A Redis that is down or unreachable costs a request at most this long, never a hang (the API's
    # throttle then serves the request uncounted; README "Faults").
    CACHES["default"].setdefault("OPTIONS", {}).update(socket_connect_timeout=1, socket_timeout=2)
# Previews of more profiles than this are computed by a worker; the page polls until they are ready.
PREVIEW_INLINE_PROFILES = env.int("PREVIEW_INLINE_PROFILES", default=2000)

# E-mail: EMAIL_URL picks the backend (smtp://host:port, consolemail://, filemail:///dir).
_email = env.email_url("EMAIL_URL", default=f"filemail://{VAR_DIR / 'mail'}")
if _email.get("EMAIL_FILE_PATH") and not str(_email["EMAIL_FILE_PATH"]).startswith("/"):
    _email["EMAIL_FILE_PATH"] = "/" + str(_email["EMAIL_FILE_PATH"])
globals().update(_email)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="vLLM Profiles <profiles@localhost>")
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)

# Celery: JSON only, time limits, late acks for idempotent tasks (set per task).
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://")
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker"
    for _sub in ("queue", "processed", "control"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 3600}
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_TIME_LIMIT = 10 * 60
CELERY_TASK_SOFT_TIME_LIMIT = 9 * 60
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_BEAT_SCHEDULE = {
    # Finds verdicts that lag behind the rule set or release and revives stalled re-checks, so a publish
    # made while the broker was down is still applied. `expires` keeps a stalled queue from piling up.
    "sweep": {
        "task": "validation.sweep",
        "schedule": env.float("SWEEP_INTERVAL", default=60.0),
        "options": {"expires": 50},
    },
}
# Local model directories (a profile's --model, --hf-config-path or draft model naming a path) are read only
# under these roots (real paths: ".." and symbolic links cannot leave them); empty, the default: none is read
# on the server, a private model's config.json is uploaded on the Models page instead (docs/security.md).
MODEL_LOCAL_DIRS = env.list("MODEL_LOCAL_DIRS", default=[])

# New vLLM releases: off unless VLLM_RELEASE_INDEX_URL names a PyPI-style JSON API (https://pypi.org/pypi or
# a mirror's); beat then asks it every VLLM_RELEASE_WATCH_INTERVAL seconds (default hourly).
VLLM_RELEASE_INDEX_URL = env.str("VLLM_RELEASE_INDEX_URL", default="")
VLLM_RELEASE_MAX_WHEEL_BYTES = env.int("VLLM_RELEASE_MAX_WHEEL_BYTES", default=1 << 30)  # a wheel, at most
if VLLM_RELEASE_INDEX_URL:
    _watch_every = env.float("VLLM_RELEASE_WATCH_INTERVAL", default=3600.0)
    CELERY_BEAT_SCHEDULE["release-watch"] = {
        "task": "validation.release_watch",
        "schedule": _watch_every,
        "options": {"expires": max(_watch_every - 1, 1)},
    }
# Notification targets: beat collects events and sends pending deliveries every NOTIFY_SWEEP_SECONDS, and
# each team's summary on NOTIFY_SUMMARY_CRONTAB (minute hour day-of-month month day-of-week; default Monday
# 07:00 UTC; empty: no summary).
_notify_every = env.float("NOTIFY_SWEEP_SECONDS", default=60.0)
CELERY_BEAT_SCHEDULE["notifications-sweep"] = {
    "task": "notifications.sweep",
    "schedule": _notify_every,
    "options": {"expires": max(_notify_every - 1, 1)},
}
NOTIFY_SUMMARY_CRONTAB = env.str("NOTIFY_SUMMARY_CRONTAB", default="0 7 * * 1")
if NOTIFY_SUMMARY_CRONTAB:
    from celery.schedules import crontab

    _m, _h, _dom, _mon, _dow = NOTIFY_SUMMARY_CRONTAB.split()
    CELERY_BEAT_SCHEDULE["notifications-summaries"] = {
        "task": "notifications.summaries",
        "schedule": crontab(minute=_m, hour=_h, day_of_month=_dom, month_of_year=_mon, day_of_week=_dow),
        "options": {"expires": 3600},
    }
# Git sources (sources app): beat syncs every one every GIT_SYNC_INTERVAL seconds.
CELERY_BEAT_SCHEDULE["git-sources"] = {
    "task": "sources.sync_all",
    "schedule": env.float("GIT_SYNC_INTERVAL", default=300.0),
    "options": {"expires": 60},
}
# What a Git source may reach (docs/security.md, "Git sources"). Only https://, ssh:// and scp-like remotes;
# GIT_ALLOWED_HOSTS (empty: any host) narrows them to these hosts (``git.example.com``, ``*.example.com``).
GIT_ALLOWED_HOSTS = env.list("GIT_ALLOWED_HOSTS", default=[])
# Tokens are registered as named Git credentials, encrypted with GIT_CREDENTIALS_KEY (Fernet keys, comma
# separated: the first encrypts, every one decrypts, for rotation); without it a key file is made once under
# GIT_CREDENTIALS_KEY_FILE (default var/secrets/git-credentials.key), outside the database.
GIT_CREDENTIALS_KEY = env.str("GIT_CREDENTIALS_KEY", default="")
GIT_CREDENTIALS_KEY_FILE = env.str(
    "GIT_CREDENTIALS_KEY_FILE", default=str(VAR_DIR / "secrets" / "git-credentials.key")
)
# Sources made before named credentials named an environment variable of the worker; only the variables listed
# here (empty by default) are still read, and only sent to the source's own host over https.
GIT_CREDENTIALS_ENV_ALLOWED = env.list("GIT_CREDENTIALS_ENV_ALLOWED", default=[])
# A CA bundle for Git servers whose certificate a private CA signed (git's http.sslCAInfo).
GIT_SSL_CA_INFO = env.str("GIT_SSL_CA_INFO", default="")
RECHECK_STALL_SECONDS = env.float("RECHECK_STALL_SECONDS", default=60.0)
# Verdicts per re-check batch task: what a killed worker or a database restart costs to redo.
RECHECK_BATCH_SIZE = env.int("RECHECK_BATCH_SIZE", default=2000)
# An alert claimed for sending this long ago belongs to a worker that died mid-send: the sweep puts it back.
# Keep it above CELERY_TASK_TIME_LIMIT, so that a slow but living send is never claimed twice.
ALERT_CLAIM_TIMEOUT_SECONDS = env.float("ALERT_CLAIM_TIMEOUT_SECONDS", default=11 * 60.0)

# Notification targets (notifications/, docs/security.md "Notification targets"): https:// only, no redirect,
# no private/loopback/link-local/reserved address unless the host is allow-listed here (comma separated).
NOTIFY_ALLOWED_HOSTS = env.list("NOTIFY_ALLOWED_HOSTS", default=[])
NOTIFY_CA_BUNDLE = env.str("NOTIFY_CA_BUNDLE", default="")  # certificates to trust instead of certifi's
NOTIFY_TIMEOUT = env.float("NOTIFY_TIMEOUT", default=5.0)  # seconds to connect, and to wait for the answer
# A claimed delivery older than this belongs to a worker that died mid-post; the sweep posts it again.
NOTIFY_CLAIM_TIMEOUT_SECONDS = env.float("NOTIFY_CLAIM_TIMEOUT_SECONDS", default=120.0)
NOTIFY_LOOKBACK_SECONDS = env.float("NOTIFY_LOOKBACK_SECONDS", default=6 * 3600.0)  # changes the sweep reads
NOTIFY_WAIVER_EXPIRY_DAYS = env.int("NOTIFY_WAIVER_EXPIRY_DAYS", default=7)
# Publishing must not hang when the broker is down: fail fast, the sweep applies the change later.
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.5}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: automation gets 401 with `WWW-Authenticate: Token`, not a bare 403.
        # Named, hashed, optionally read-only or expiring tokens (accounts.ApiToken); DRF's authtoken app
        # stays installed only so that its old clear-text keys could be migrated to hashed tokens.
        "accounts.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "accounts.authentication.TokenScope",
    ],
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
    ],
    # 429 with Retry-After over API_THROTTLE_USER (per token, or per user of a session) or API_THROTTLE_ANON.
    "DEFAULT_THROTTLE_CLASSES": [
        "config.throttling.ClientRateThrottle",
        "config.throttling.AnonRateThrottle",
    ],
    # Behind a proxy, the client's address is this many entries from the end of X-Forwarded-For.
    "NUM_PROXIES": env.int("API_NUM_PROXIES", default=None),
    "DEFAULT_PAGINATION_CLASS": "config.api.Pagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "config.schema.AutoSchema",
    # JSON only, through a parser that refuses invalid UTF-8, NUL characters and deep nesting with a 400.
    "DEFAULT_PARSER_CLASSES": ["config.parsers.JSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    # `?format=` belongs to the export endpoint (command | yaml | json), not to content negotiation.
    "URL_FORMAT_OVERRIDE": None,
}

# API throttling (config.throttling): requests per signed-in client (each API token, or a session's user) and
# per anonymous address, as "N/second|minute|hour|day"; empty turns it off. Generous: automation that polls
# is not a flood; the counts are kept in the default cache (CACHE_URL), shared by every process on Redis.
API_THROTTLE_USER = env.str("API_THROTTLE_USER", default="3000/minute")
API_THROTTLE_ANON = env.str("API_THROTTLE_ANON", default="300/minute")

# Hostile input: bodies over API_MAX_BODY_BYTES get a 413 before anything reads them (config.middleware);
# JSON deeper than API_MAX_JSON_DEPTH levels a 400.
API_MAX_BODY_BYTES = env.int("API_MAX_BODY_BYTES", default=2 * 1024 * 1024)
API_MAX_JSON_DEPTH = env.int("API_MAX_JSON_DEPTH", default=32)
DATA_UPLOAD_MAX_MEMORY_SIZE = API_MAX_BODY_BYTES

SPECTACULAR_SETTINGS = {
    "TITLE": "vLLM Profiles API",
    "DESCRIPTION": "Store vLLM deployment profiles; every save is validated against the rule set and the "
    "target vLLM release.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Served by the application itself: many GPU clusters are air-gapped.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "KindEnum": "profiles.models.Profile.Kind",
        "GitCredentialKindEnum": "sources.models.GitCredential.Kind",
        "NotificationTargetKindEnum": "notifications.models.NotificationTarget.Kind",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}

VAR_DIR.mkdir(parents=True, exist_ok=True)
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise serves from here after collectstatic
