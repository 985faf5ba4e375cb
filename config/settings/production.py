"""Production: every process (web, workers, beat; Procfile, deploy/compose.yaml) loads
these settings and takes everything that differs between machines from the environment
(docs/deploy.md). The values that must be the same in every process (the secret key, the
database, Redis, the web push key pair) have no default here: a process started without
them stops at once instead of running alone against a local database or with a key of
its own."""

from cryptography.fernet import Fernet, MultiFernet
from django.core.exceptions import ImproperlyConfigured

from apps.payments import sms
from config.settings.base import *  # noqa: F403
from config.settings.base import COOKIE_PREFIX, PRIVATE_MEDIA_ROOT, env

DEBUG = False
SECRET_KEY = env("DJANGO_SECRET_KEY")
# Read again without defaults (base falls back to localhost for development).
env("DATABASE_URL")
env("REDIS_URL")
# The evictable cache's own Redis (maxmemory, allkeys-lru); without it the pages would
# share the broker's memory (docs/deploy.md).
env("CACHE_URL")
# The processes serve as a role that cannot rewrite the audit trail; deploy/run.sh checks
# it before a process starts (apps.support.checks).
DATABASE_SINGLE_ROLE_ALLOWED = env.bool("DATABASE_SINGLE_ROLE_ALLOWED", default=False)
# Pushes signed in one process are checked against the key the browser subscribed with,
# which another process served: one pair for the deployment.
VAPID_PRIVATE_KEY = env("VAPID_PRIVATE_KEY")
VAPID_PUBLIC_KEY = env("VAPID_PUBLIC_KEY")
# Push endpoints are members' URLs: only https on 443 to public addresses, whatever the
# environment says (the check is off only for the tests' and the bench's local services).
PUSH_ENDPOINT_CHECK = True
POSTBACK_URL_CHECK = True
# The keys that encrypt the providers' keys stored in the database (apps.common.encryption):
# the same list in every process, the newest first. No default: a process that derived a
# key of its own could neither read the stored keys nor write ones the others can read.
SECRETS_KEYS = env.list("SECRETS_KEYS", default=[])
if not SECRETS_KEYS:
    raise ImproperlyConfigured("Set SECRETS_KEYS (docs/deploy.md): the keys that encrypt the stored provider keys.")
try:
    MultiFernet([Fernet(key) for key in SECRETS_KEYS])
except ValueError as error:
    raise ImproperlyConfigured("Each of SECRETS_KEYS must be a Fernet key (Fernet.generate_key()).") from error
# Test money (docs/security.md "Production guard rails"): the sandbox gateway gives credits
# for nothing and the console SMS backend writes direct-debit codes to the log. Both only
# where the deployment says so (a staging or demo deployment), never by default.
ALLOW_TEST_PAYMENTS = env.bool("ALLOW_TEST_PAYMENTS", default=False)
SMS_BACKEND = env("SMS_BACKEND", default="") or (sms.DEFAULT_BACKEND if ALLOW_TEST_PAYMENTS else "")
if not ALLOW_TEST_PAYMENTS and (not SMS_BACKEND or SMS_BACKEND in sms.DEVELOPMENT_BACKENDS):
    raise ImproperlyConfigured(
        "Set SMS_BACKEND to a class that sends text messages (apps.payments.sms), or ALLOW_TEST_PAYMENTS=1 "
        "for a deployment that takes test payments only: the console and in-memory backends send nothing."
    )
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
# The load balancer's health check (GET /healthz over plain HTTP) and the TLS proxy's
# question before a certificate (/tls/ask, asked over plain HTTP inside the deployment)
# are not redirected.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^tls/ask$"]
SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365
# Each site's domain and its subdomains are HTTPS only; the domains may be preloaded.
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_HSTS_PRELOAD", default=True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
# The __Host- prefix binds the auth cookie to the exact site host over HTTPS.
SESSION_COOKIE_NAME = f"__Host-{COOKIE_PREFIX}session"
CSRF_COOKIE_NAME = f"__Host-{COOKIE_PREFIX}csrftoken"
# Media on a volume every process mounts at MEDIA_ROOT (one machine), or on S3-compatible
# storage past one machine: MEDIA_STORAGE_BACKEND=storages.backends.s3.S3Storage with
# the AWS_* variables below (django-storages; boto3 must be installed in the image).
STORAGES = {
    "default": {"BACKEND": env("MEDIA_STORAGE_BACKEND", default="apps.common.storage.SiteFileSystemStorage")},
    # `manage.py collectstatic` at build time (deploy/Dockerfile); whitenoise serves them.
    "staticfiles": {"BACKEND": "apps.common.storage.SiteManifestStaticFilesStorage"},
    # Verification selfies on a private volume (PRIVATE_MEDIA_ROOT), never in the public media.
    "private": {"BACKEND": "apps.common.storage.PrivateSiteStorage", "OPTIONS": {"location": PRIVATE_MEDIA_ROOT}},
}
AWS_STORAGE_BUCKET_NAME = env("AWS_STORAGE_BUCKET_NAME", default="")
AWS_S3_ENDPOINT_URL = env("AWS_S3_ENDPOINT_URL", default=None)
AWS_S3_REGION_NAME = env("AWS_S3_REGION_NAME", default=None)
AWS_S3_CUSTOM_DOMAIN = env("AWS_S3_CUSTOM_DOMAIN", default=None)
AWS_DEFAULT_ACL = None
AWS_QUERYSTRING_AUTH = env.bool("AWS_QUERYSTRING_AUTH", default=False)
# The mail server: EMAIL_URL=smtp+tls://user:password@smtp.example.com:587 (django-environ).
vars().update(env.email_url("EMAIL_URL", default="smtp://localhost:25"))
EMAIL_BACKEND = env("EMAIL_BACKEND", default="django.core.mail.backends.smtp.EmailBackend")
