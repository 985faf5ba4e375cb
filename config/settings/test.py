from config.settings.base import *  # noqa: F403
from config.settings.base import BASE_DIR, CACHE_URL, DATABASE_URL, database_from_url, env

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
SMS_BACKEND = "apps.payments.sms.LocmemBackend"
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
MEDIA_ROOT = BASE_DIR / ".data" / "test-media"
WEB_OBJECTS_FROZEN = False
CACHES = {
    "default": {
        "BACKEND": "apps.common.cache.SiteRedisCache",
        "LOCATION": env("REDIS_URL", default="redis://127.0.0.1:6379/0"),
        "KEY_FUNCTION": "django_tenants.cache.make_key",
        "REVERSE_KEY_FUNCTION": "django_tenants.cache.reverse_key",
        "KEY_PREFIX": "test",
        "OPTIONS": {"socket_timeout": 2, "socket_connect_timeout": 2},
    },
    "volatile": {
        "BACKEND": "apps.common.cache.SiteRedisCache",
        "LOCATION": CACHE_URL,
        "KEY_FUNCTION": "django_tenants.cache.make_key",
        "REVERSE_KEY_FUNCTION": "django_tenants.cache.reverse_key",
        "KEY_PREFIX": "test",
        "OPTIONS": {"socket_timeout": 1, "socket_connect_timeout": 1},
    },
}
# Test runs share the database server with nothing else; keep connections short
# so the live ASGI server's threads do not hold them past a test.
DATABASES = {"default": database_from_url(DATABASE_URL, CONN_MAX_AGE=0)}
# DATABASE_URL's role creates and migrates the test database (it owns the tables); the
# tests then serve as this role, made by the harness (conftest.py), as production does.
DATABASE_SERVING_ROLE = env("TEST_DATABASE_SERVING_ROLE", default="dating_serving_test")
DATABASE_SERVING_PASSWORD = env("TEST_DATABASE_SERVING_PASSWORD", default="dating-serving-test")
DATABASE_SINGLE_ROLE_ALLOWED = False
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

# A VAPID key pair for the test run, unless the environment gives one.
if not env("VAPID_PRIVATE_KEY", default=""):
    from apps.common.vapid import vapid_keys_generate

    VAPID_PRIVATE_KEY, VAPID_PUBLIC_KEY = vapid_keys_generate()
SITE_URL_SCHEME = "http"
# Notices wait for nothing in tests unless a test says so.
NOTICE_DELAY_PUSH = 0
NOTICE_DELAY_EMAIL = 0
# Verification selfies of the tests, apart from the development server's.
PRIVATE_MEDIA_ROOT = BASE_DIR / ".data" / "test-private-media"
STORAGES = {**STORAGES, "private": {**STORAGES["private"], "OPTIONS": {"location": PRIVATE_MEDIA_ROOT}}}  # noqa: F405
