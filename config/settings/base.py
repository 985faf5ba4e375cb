"""Settings shared by every environment. Values come from the environment
(django-environ); `local`, `test` and `production` only adjust them."""

import base64
import hashlib
from pathlib import Path
from urllib.parse import unquote

import environ
from celery.schedules import crontab
from csp.constants import NONCE, NONE, SELF
from django.utils.translation import gettext_lazy as _
from kombu import Queue

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()

SECRET_KEY = env("DJANGO_SECRET_KEY", default="insecure-development-key-change-me")
# Fernet keys, comma-separated, for the keys of outside services stored in the database
# (apps.common.encryption): the first encrypts, every one decrypts. Development and tests
# derive one from SECRET_KEY; production requires the list (config/settings/production.py).
SECRETS_KEYS = env.list("SECRETS_KEYS", default=[]) or [
    base64.urlsafe_b64encode(hashlib.sha256(f"stored-keys:{SECRET_KEY}".encode()).digest()).decode()
]
DEBUG = env.bool("DJANGO_DEBUG", default=False)
# Hosts are checked against the sites' domains by the site middleware; an unknown
# host gets the 404 page from there instead of a DisallowedHost error.
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["*"])
# The platform's own name, on the operators' admin (each site has its own name).
PRODUCT_NAME = env("PRODUCT_NAME", default="Dating platform")

# --- Tenancy -------------------------------------------------------------------
SHARED_APPS = [
    "django_tenants",
    "apps.tenants",
    "apps.common",
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.messages",
    # The admin with its login throttled like members' (apps.accounts.admin_site).
    "apps.accounts.admin_site.OperatorAdminConfig",
    "django.contrib.staticfiles",
    "django_countries",
    "rest_framework",
    "drf_spectacular",
    "apps.accounts",
    # Operators' site pages (the {token} route) and the landers' videos (apps.landers).
    "apps.landers",
    # Staff's second factor (TOTP) in the operators' admin: public schema only
    # (apps.accounts.admin_login, docs/operators.md).
    "django_otp",
    "django_otp.plugins.otp_totp",
    # The audit trail and the support console; after the admin, whose registry it wraps.
    "apps.support",
    # The photo moderation and complaints queues' index and their admin views.
    "apps.moderation",
    # Traffic networks, partners' postbacks and the daily revenue rollups: public schema
    # only, written from the sites' events (apps.conversions).
    "apps.conversions",
]

TENANT_APPS = [
    "django.contrib.contenttypes",
    "django.contrib.auth",
    "django.contrib.sessions",
    "django.contrib.messages",
    "apps.accounts",
    "allauth",
    "allauth.account",
    "apps.profiles",
    "apps.likes",
    "apps.credits",
    "apps.payments",
    "apps.chat",
    "apps.pages",
    "apps.notifications",
]

INSTALLED_APPS = list(SHARED_APPS) + [app for app in TENANT_APPS if app not in SHARED_APPS]

TENANT_MODEL = "tenants.Site"
TENANT_DOMAIN_MODEL = "tenants.Domain"
# django-tenants sends "SET search_path" before every query unless told to remember
# it per connection: that doubled the round trips of every request (a chat message's
# POST made 46 queries, 23 of them SETs). The installed version forgets the remembered
# path on set_tenant, close, rollback and savepoint rollback, so remembering is safe.
TENANT_LIMIT_SET_CALLS = True
PUBLIC_SCHEMA_NAME = "public"
PUBLIC_SCHEMA_URLCONF = "config.urls_public"
ROOT_URLCONF = "config.urls"
# New sites are exact copies of this migrated template schema (apps.tenants.cloning,
# called by Site.create_schema) instead of replaying every migration
# (bench/bench_site_create.py measures the difference).
TENANT_BASE_SCHEMA = "site_template"
TENANT_CREATION_FAKES_MIGRATIONS = True
# A site's credit packages and discount codes (payments' public models) in the public
# schema only, then django-tenants' router for whole apps (apps.tenants.routers).
DATABASE_ROUTERS = ("apps.tenants.routers.PublicModelsRouter", "django_tenants.routers.TenantSyncRouter")


def database_from_url(url: str, **extra) -> dict:
    config = environ.Env.db_url_config(url)
    # A Unix socket directory arrives percent-encoded in the host part.
    config["HOST"] = unquote(config.get("HOST") or "")
    options = {**config.get("OPTIONS", {}), **extra.pop("OPTIONS", {})}
    if options:
        extra["OPTIONS"] = options
    return {**config, "ENGINE": "django_tenants.postgresql_backend", **extra}


DATABASE_URL = env("DATABASE_URL", default="postgres://postgres@localhost:5432/dating")
# Under ASGI each request may run its database work in another thread, so persistent
# connections (CONN_MAX_AGE) pile up: the search benchmark saw 81 open sessions from one
# server. Each process keeps a psycopg pool instead (Django's "pool" option): a request
# borrows a connection and gives it back at its end. Opening a connection per request
# cost a chat message's POST about 9 ms at the median (bench "ws": 34.8 -> 25.5 ms to the
# recipient's socket). django-tenants sets the search path again on every borrowed
# connection. DATABASE_POOL_MAX_SIZE=0 turns the pool off (then DATABASE_CONN_MAX_AGE
# applies), e.g. behind PgBouncer.
DATABASE_POOL_MAX_SIZE = env.int("DATABASE_POOL_MAX_SIZE", default=10)
# Load shedding (apps.common.asgi): requests of one process in Django at once, and how
# long the next ones wait for a turn before they get 503 with Retry-After.
REQUEST_CONCURRENCY = env.int("REQUEST_CONCURRENCY", default=64)
REQUEST_QUEUE_SECONDS = env.float("REQUEST_QUEUE_SECONDS", default=5.0)
if DATABASE_POOL_MAX_SIZE > 0:
    DATABASES = {
        "default": database_from_url(
            DATABASE_URL,
            CONN_MAX_AGE=0,
            CONN_HEALTH_CHECKS=True,
            OPTIONS={"pool": {"min_size": 1, "max_size": DATABASE_POOL_MAX_SIZE, "timeout": 10}},
        )
    }
else:
    DATABASES = {
        "default": database_from_url(
            DATABASE_URL, CONN_MAX_AGE=env.int("DATABASE_CONN_MAX_AGE", default=0), CONN_HEALTH_CHECKS=True
        )
    }
# Migrations run as the role that owns the tables, the processes serve as DATABASE_URL's
# role, which may only read and write rows and cannot rewrite the audit trail
# (apps.common.database_roles, docs/deploy.md "Database roles"). Without an owner URL
# both are the one role of DATABASE_URL.
DATABASE_OWNER_URL = env("DATABASE_OWNER_URL", default=DATABASE_URL)
DATABASE_OWNER = database_from_url(DATABASE_OWNER_URL)
DATABASE_SERVING_ROLE = env("DATABASE_SERVING_ROLE", default=DATABASES["default"].get("USER", ""))
# The key of the hash that replaces an erased member's e-mail address in the audit trail
# (apps.support.audit): the same address gives the same hash as long as the key stays.
AUDIT_HASH_KEY = env("AUDIT_HASH_KEY", default=SECRET_KEY)
# Whether the processes may log in as the audit trail's owner (apps.support.checks):
# development's one role, yes; production and the tests, no.
DATABASE_SINGLE_ROLE_ALLOWED = env.bool("DATABASE_SINGLE_ROLE_ALLOWED", default=True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env("REDIS_URL", default="redis://127.0.0.1:6379/0")


def _next_database(url: str) -> str:
    """The same Redis server as `url`, the next database number (redis://host:port/N+1)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    number = parts.path.strip("/")
    database = int(number) + 1 if number.isdigit() else 1
    return urlunsplit(parts._replace(path=f"/{database}"))


# The evictable cache (CACHES["volatile"]). Without CACHE_URL: the next database of
# REDIS_URL's server, which keeps the keys apart but shares that server's memory and
# policy; scripts/stack.py (make run, make test, make bench) starts a Redis of its own
# instead, and production requires CACHE_URL (docs/deploy.md).
CACHE_URL = env("CACHE_URL", default="") or _next_database(REDIS_URL)

CACHES = {
    "default": {
        "BACKEND": "apps.common.cache.SiteRedisCache",
        "LOCATION": REDIS_URL,
        # Every key carries the schema of the site it belongs to.
        "KEY_FUNCTION": "django_tenants.cache.make_key",
        "REVERSE_KEY_FUNCTION": "django_tenants.cache.reverse_key",
        "KEY_PREFIX": env("CACHE_KEY_PREFIX", default="dp"),
        # A Redis that does not answer fails the request with 503 within seconds
        # (apps.common.unavailable) instead of holding it.
        "OPTIONS": {"socket_timeout": 2, "socket_connect_timeout": 2},
    },
    # What may vanish at any time and is made again on a miss: the visitors' pages
    # (apps.pages.page_cache) and the landers' lists. A Redis of its own with maxmemory
    # and allkeys-lru (docs/deploy.md), so that what visitors make fill it evicts old
    # pages instead of stopping the broker, the chat and the rate limits of REDIS_URL
    # (noeviction). Reads fail open (apps.common.cache).
    "volatile": {
        "BACKEND": "apps.common.cache.SiteRedisCache",
        "LOCATION": CACHE_URL,
        "KEY_FUNCTION": "django_tenants.cache.make_key",
        "REVERSE_KEY_FUNCTION": "django_tenants.cache.reverse_key",
        "KEY_PREFIX": env("CACHE_KEY_PREFIX", default="dp"),
        # A cache slower than rendering the page is no use: given up after a second.
        "OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1},
    },
}

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "apps.common.middleware.RequestSizeLimitMiddleware",
    # Static files are the same for every host, the unknown ones' 404 page included.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "apps.tenants.middleware.SiteMiddleware",
    # A site's domain served over HTTPS, for the site admin (apps.tenants.tls).
    "apps.tenants.tls.HttpsSeenMiddleware",
    # The language depends on the site, the cookie and the browser, not on the session.
    "apps.common.middleware.SiteLocaleMiddleware",
    "apps.common.middleware.BadInputMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "apps.accounts.tracking.TrackingMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "apps.common.middleware.ApiCsrfTokenMiddleware",
    # Django's, with the member read by a statement compiled once (apps.accounts.authentication).
    "apps.accounts.authentication.AuthenticationMiddleware",
    # A member's pages in the member's time zone, the browser's kept on the account.
    "apps.accounts.time_zone.MemberTimeZoneMiddleware",
    # request.user.is_verified() for staff on the operators' host (django-otp).
    "apps.accounts.staff_otp.StaffOTPMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # Django's, the messages' storage made only when a message is added or read.
    "apps.common.middleware.SiteMessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # django-csp's middleware with the site's sources, the policy built once per host.
    "apps.common.middleware.SiteCspMiddleware",
    # Innermost: a view's "Redis / broker / database away" becomes 503, not 500.
    "apps.common.unavailable.ServiceUnavailableMiddleware",
]

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {
            # The apps' templates without django-tenants' admin ones (inline styles).
            "loaders": [
                (
                    "django.template.loaders.cached.Loader",
                    ["django.template.loaders.filesystem.Loader", "apps.common.template_loaders.Loader"],
                )
            ],
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "apps.tenants.context_processors.site",
                "apps.accounts.context_processors.member",
            ],
            "builtins": ["apps.common.templatetags.islands", "apps.common.templatetags.fragments"],
        },
    }
]

ASGI_APPLICATION = "config.asgi.application"
# A web process moves what it holds once the application is loaded out of the garbage
# collector's generations (config.asgi). Off in the test process, which loads the
# application halfway through a run, with the run's own objects alive.
WEB_OBJECTS_FROZEN = True
WSGI_APPLICATION = "config.wsgi.application"

AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]

# --- Member accounts (django-allauth) --------------------------------------------
ACCOUNT_ADAPTER = "apps.accounts.adapter.AccountAdapter"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*"]
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_EMAIL_VERIFICATION = "optional"
ACCOUNT_EMAIL_CONFIRMATION_EXPIRE_DAYS = 7
ACCOUNT_EMAIL_CONFIRMATION_HMAC = True
ACCOUNT_SESSION_REMEMBER = True
ACCOUNT_PREVENT_ENUMERATION = False
ACCOUNT_USERNAME_MIN_LENGTH = 2
ACCOUNT_PASSWORD_MIN_LENGTH = 8
# "Too many incorrect attempts, account blocked for {minutes} min." (spec §8)
LOGIN_LOCKOUT_ATTEMPTS = env.int("LOGIN_LOCKOUT_ATTEMPTS", default=5)
LOGIN_LOCKOUT_MINUTES = env.int("LOGIN_LOCKOUT_MINUTES", default=15)
# "Too many password reset emails sent, please try again tomorrow." (spec §8)
PASSWORD_RESET_DAILY_LIMIT = env.int("PASSWORD_RESET_DAILY_LIMIT", default=3)
ACCOUNT_RATE_LIMITS = {
    "login_failed": f"20/m/ip,{LOGIN_LOCKOUT_ATTEMPTS}/{LOGIN_LOCKOUT_MINUTES * 60}s/key",
    "reset_password": f"20/m/ip,{PASSWORD_RESET_DAILY_LIMIT}/1d/key",
    "reset_password_from_key": "20/m/ip",
    "signup": "10/m/ip",
    "change_password": "5/m/user",
    "manage_email": "10/m/user",
    "confirm_email": "1/3m/key",
    # "Download my data" (apps.accounts.services.export).
    "export_data": "5/h/user",
    # Complaints (apps.profiles.services.complaints), from members and visitors.
    "complaint": "5/h/ip",
    # Coordinates -> town (apps.profiles.api.geocode), from members and visitors.
    "geocode": "30/m/ip",
}
# Operators' admin login: the same lockout, per username and per address.
ADMIN_LOGIN_RATE_LIMIT = f"20/m/ip,{LOGIN_LOCKOUT_ATTEMPTS}/{LOGIN_LOCKOUT_MINUTES * 60}s/key"
ACCOUNT_RATE_LIMITS["admin_login_failed"] = ADMIN_LOGIN_RATE_LIMIT
# Staff's TOTP codes: wrong codes count toward the same lockout as wrong passwords
# (admin_login_failed), so django-otp's own growing per-device delay is off; a code is
# still accepted once only (the device keeps the last time step used).
OTP_TOTP_THROTTLE_FACTOR = 0
OTP_TOTP_ISSUER = env("OTP_TOTP_ISSUER", default="Dating platform operators")
REACTIVATION_DAYS = 14
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"

# --- Cookies -------------------------------------------------------------------
# Cookies are host-only, so each site's domain has its own; the session table lives
# in each site's schema, so a session of one site is anonymous on another.
COOKIE_PREFIX = env("COOKIE_PREFIX", default="dp_")
SESSION_COOKIE_NAME = f"{COOKIE_PREFIX}session"
# Django's database sessions, read by a statement compiled once (apps.common.sessions).
SESSION_ENGINE = "apps.common.sessions"
SESSION_COOKIE_AGE = 30 * 24 * 60 * 60
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_NAME = f"{COOKIE_PREFIX}csrftoken"
CSRF_COOKIE_HTTPONLY = True
LANGUAGE_COOKIE_NAME = f"{COOKIE_PREFIX}lang"
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60
LANGUAGE_COOKIE_SAMESITE = "Lax"
ENTRY_WARNING_COOKIE_NAME = f"{COOKIE_PREFIX}entry_ok"

# --- Languages -----------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("da", _("Danish")),
    ("de", _("German")),
    ("en", _("English")),
    ("es", _("Spanish")),
    ("fi", _("Finnish")),
    ("fr", _("French")),
    ("it", _("Italian")),
    ("nb", _("Norwegian Bokmål")),
    ("nl", _("Dutch")),
    ("pl", _("Polish")),
    ("sv", _("Swedish")),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"

# Header a proxy or CDN sets with the visitor's country (ISO 3166-1 alpha-2).
GEOIP_COUNTRY_HEADER = env("GEOIP_COUNTRY_HEADER", default="HTTP_CF_IPCOUNTRY")

# --- Static and media ----------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
ISLANDS_MANIFEST = BASE_DIR / "static" / "dist" / "manifest.json"
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(env("MEDIA_ROOT", default=str(BASE_DIR / ".data" / "media")))
# Files never served to members (verification selfies): outside MEDIA_ROOT, read only
# through permission-checked staff views (apps.moderation.admin).
PRIVATE_MEDIA_ROOT = Path(env("PRIVATE_MEDIA_ROOT", default=str(BASE_DIR / ".data" / "private-media")))
STORAGES = {
    "default": {"BACKEND": "apps.common.storage.SiteFileSystemStorage"},
    "staticfiles": {"BACKEND": "apps.common.storage.SiteStaticFilesStorage"},
    "private": {"BACKEND": "apps.common.storage.PrivateSiteStorage", "OPTIONS": {"location": PRIVATE_MEDIA_ROOT}},
}

# Largest request body accepted (a 10 MB photo plus its form).
MAX_REQUEST_BYTES = env.int("MAX_REQUEST_BYTES", default=12 * 1024 * 1024)

# --- API -----------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["apps.common.api.parsers.SafeJSONParser"],
    "EXCEPTION_HANDLER": "apps.common.exceptions.api_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "apps.common.api.schema.SiteAutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Dating platform API",
    "VERSION": "1.0.0",
    # What no field's schema says: the JSON parser refuses it before any field is read.
    "DESCRIPTION": (
        "Text in a JSON body never holds a NUL character (U+0000) or a lone surrogate, and "
        "a body nests at most 16 levels: such a request is a 400 (`parse_error`)."
    ),
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "apps.common.api.schema.error_answers",
        # The site's own countries, regions, languages and choices (per host).
        "apps.profiles.api.schema.site_choices",
        # Which answer names the id a next call takes (OpenAPI links).
        "apps.common.api.schema.answer_links",
    ],
}

# --- Background work -----------------------------------------------------------
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default=REDIS_URL)
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
# A worker process that dies mid-task (SIGKILL, out of memory) puts its task back on the
# queue at once for the next process; tasks are idempotent (tests/test_worker_kill.py).
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Three queues, so that a slow mail server or push service never holds up a payment, and
# the reverse (docs/deploy.md): production runs a worker per queue (Procfile). A worker
# started without -Q consumes every queue listed here (`make run`, the benchmarks).
# Each its own routing key: declared by name only, all three are bound to the default
# exchange with the key "default", and a message published by exchange and key instead
# of straight to its queue would land in all three.
CELERY_TASK_QUEUES = tuple(Queue(name, routing_key=name) for name in ("default", "notify", "money"))
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    # Mail and push: notices, campaigns, reminders, and the accounts' own mails.
    "apps.notifications.tasks.*": {"queue": "notify"},
    "apps.accounts.tasks.mail_send": {"queue": "notify"},
    # Money: payment webhooks and reconciliation, credit grants.
    "apps.payments.tasks.*": {"queue": "money"},
    "apps.credits.tasks.*": {"queue": "money"},
    # Everything else (members_erase_expired...) goes to "default".
}
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE: dict = {
    # Erase members deleted more than REACTIVATION_DAYS ago, on every site.
    "accounts-erase-deleted-members": {
        "task": "apps.accounts.tasks.members_erase_expired",
        "schedule": crontab(hour=3, minute=17),
    },
    # Fetch payments left open or pending, expire never-accepted ones, resend refunds.
    "payments-reconcile": {
        "task": "apps.payments.tasks.payments_reconcile",
        "schedule": 5 * 60,
    },
    # Send the notices whose own task was lost (apps.notifications.tasks.notices_sweep).
    "notifications-sweep": {
        "task": "apps.notifications.tasks.notices_sweep",
        "schedule": 60,
    },
    # Unread-message and come-back reminders, in the late afternoon (Europe).
    "notifications-reminders": {
        "task": "apps.notifications.tasks.reminders_daily",
        "schedule": crontab(hour=16, minute=5),
    },
    # Postbacks to partners whose retry is due (apps.conversions.tasks).
    "conversions-postbacks": {
        "task": "apps.conversions.tasks.postbacks_sweep",
        "schedule": 60,
    },
    # Visits whose tracking redirect the page cache answered, into the rollups.
    "conversions-visits": {
        "task": "apps.conversions.tasks.visits_fold",
        "schedule": 60,
    },
    # Yesterday's and today's rollups recounted from the sites' rows.
    "conversions-rollups": {
        "task": "apps.conversions.tasks.rollups_rebuild",
        "schedule": crontab(hour=2, minute=41),
    },
    # Delete verification selfies kept 30 days after a rejection (apps.profiles.tasks).
    "profiles-verification-selfies-purge": {
        "task": "apps.profiles.tasks.verification_selfies_purge",
        "schedule": crontab(hour=3, minute=47),
    },
    "notifications-weekly": {
        "task": "apps.notifications.tasks.weekly_updates",
        "schedule": crontab(day_of_week=0, hour=17, minute=5),
    },
}
# The payment gateways by the name a site chooses (Site.payment_gateway): each a class
# implementing apps.payments.gateways.base.Gateway, loaded by its dotted path
# (apps.payments.gateways.registry).
PAYMENT_GATEWAYS = {
    "sandbox": "apps.payments.gateways.sandbox.SandboxGateway",
    "mollie": "apps.payments.gateways.mollie.MollieGateway",
}
# The sandbox gateway: a repeat order by SEPA direct debit is "pending" this long.
SANDBOX_DIRECT_DEBIT_SETTLE_SECONDS = env.int("SANDBOX_DIRECT_DEBIT_SETTLE_SECONDS", default=5)
# Where the sandbox's webhook calls connect ("host:port"), the site named in the Host
# header; empty: the site's own address. `make run` sets it (apps.payments.tasks).
SANDBOX_WEBHOOK_ADDRESS = env("SANDBOX_WEBHOOK_ADDRESS", default="")

CHANNEL_LAYERS = {
    "default": {
        # channels_redis's layer with a pool that waits for a connection (apps.chat.layers).
        "BACKEND": "apps.chat.layers.RedisChannelLayer",
        "CONFIG": {
            "hosts": [
                {
                    "address": REDIS_URL,
                    # redis-py 8 reads with a 5 s timeout by default; the layer's blocking
                    # BZPOPMIN waits up to 5 s too, so idle sockets were torn down at random
                    # (channels_redis#422). No read timeout for the layer.
                    "socket_timeout": None,
                    # Connections per process. Thousands of sockets closing at once each
                    # discard their group membership; the calls wait for one of these
                    # (at most "pool_timeout" seconds) instead of failing with "Too many
                    # connections", and N processes open at most N x 200 connections
                    # to Redis (maxclients 10,000 by default).
                    "max_connections": 200,
                    "pool_timeout": 20,
                }
            ],
            # Every socket of a process receives through one Redis key per process
            # ("specific.<process>!"), and the layer's capacity (100 by default) applies to
            # that key: a process more than 100 events behind (a burst of messages, a
            # news notice to thousands of members on one process) dropped the rest with a
            # "channels over capacity" warning (bench "scale": messages never reached
            # their recipients with 32 POSTs in flight to one process). The process's queue
            # may hold this many; each socket's own buffer in the process keeps the
            # default 100, and events expire after 60 s (the layer's expiry).
            "channel_capacity": {"specific.*": 20000},
        },
    }
}

# --- E-mail --------------------------------------------------------------------
EMAIL_BACKEND = env("EMAIL_BACKEND", default="django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="no-reply@localhost")

# --- Notifications (apps.notifications, docs/notifications.md) -------------------
# An unread message or an unseen like becomes a push after this many seconds, an
# e-mail after that many; what arrives meanwhile goes out as one notice.
NOTICE_DELAY_PUSH = env.int("NOTICE_DELAY_PUSH", default=30)
NOTICE_DELAY_EMAIL = env.int("NOTICE_DELAY_EMAIL", default=300)
# Web push (VAPID, RFC 8292): one key pair per deployment, base64url (the raw 32-byte
# private value and the 65-byte public point). `make run` makes one in .data/vapid.json;
# a site may have its own (Site.push_public_key / push_private_key).
VAPID_PRIVATE_KEY = env("VAPID_PRIVATE_KEY", default="")
VAPID_PUBLIC_KEY = env("VAPID_PUBLIC_KEY", default="")
# How long a push service keeps a notice for an offline device (seconds).
PUSH_TTL = env.int("PUSH_TTL", default=24 * 60 * 60)
# Push endpoints are checked again when sending (DNS may have changed since the member
# subscribed): only public addresses. Tests that use a local fake push service turn it off.
PUSH_ENDPOINT_CHECK = env.bool("PUSH_ENDPOINT_CHECK", default=True)
# Partners' postback URLs follow the same rule (public https only, vetted address;
# apps.common.outbound); off only for the tests' local fake partner on 127.0.0.1.
POSTBACK_URL_CHECK = env.bool("POSTBACK_URL_CHECK", default=True)
# Links in e-mails and pushes: scheme and port of the sites' hosts (`make run` sets http
# and its port; production serves https on 443).
SITE_URL_SCHEME = env("SITE_URL_SCHEME", default="https")
SITE_URL_PORT = env("SITE_URL_PORT", default="")
# The mail provider's bounce and complaint webhook (/hooks/mail on the operators' host):
# requests are signed with this secret (HMAC-SHA256); empty: the webhook is off.
MAIL_WEBHOOK_SECRET = env("MAIL_WEBHOOK_SECRET", default="")

# --- SMS and SMS direct debit (apps.payments.sms, apps.payments.directdebit) ----
SMS_BACKEND = env("SMS_BACKEND", default="apps.payments.sms.ConsoleBackend")
# The deployment's Twilio account (apps.payments.sms.TwilioBackend as SMS_BACKEND, and
# the default of every site whose admin names no account of its own).
TWILIO_ACCOUNT_SID = env("TWILIO_ACCOUNT_SID", default="")
TWILIO_AUTH_TOKEN = env("TWILIO_AUTH_TOKEN", default="")
# An alphanumeric sender ID (up to 11 characters) or the account's number (+E.164).
TWILIO_SENDER = env("TWILIO_SENDER", default="")
# Twilio's REST API; tests point it at a local fake (tests/fake_twilio.py).
TWILIO_API_URL = env("TWILIO_API_URL", default="https://api.twilio.com")
# How long a member waits for the provider at most (seconds) before hearing it failed.
SMS_TIMEOUT = env.float("SMS_TIMEOUT", default=10.0)
# Where the provider sends delivery receipts: the operators' host as the provider reaches
# it, e.g. https://operators.example.com (/hooks/sms/twilio/<site> is added). Empty: the
# operators' host's primary domain over https.
SMS_STATUS_BASE_URL = env("SMS_STATUS_BASE_URL", default="")
# Test money: the sandbox gateway takes payments and the console or in-memory SMS backend
# may be used. On for development and tests; production turns it off unless the
# deployment says otherwise (docs/security.md "Production guard rails").
ALLOW_TEST_PAYMENTS = env.bool("ALLOW_TEST_PAYMENTS", default=True)
# Per member over the last 30 days, counting direct debit payments not failed, cancelled or expired.
DIRECT_DEBIT_LIMIT_AMOUNT = env.int("DIRECT_DEBIT_LIMIT_AMOUNT", default=15000)  # minor units
DIRECT_DEBIT_LIMIT_COUNT = env.int("DIRECT_DEBIT_LIMIT_COUNT", default=3)

# --- Security ------------------------------------------------------------------
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "img-src": [SELF, "data:", "blob:"],
        # ws(s)://<the site's host> is added per request (SiteCspMiddleware).
        "connect-src": [SELF],
        "frame-ancestors": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "object-src": [NONE],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "INFO"},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
