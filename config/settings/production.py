from config.settings.base import *  # noqa: F403
from config.settings.base import COOKIE_PREFIX, env

DEBUG = False
SECRET_KEY = env("DJANGO_SECRET_KEY")
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
SECURE_HSTS_SECONDS = 60 * 60 * 24 * 365
# Each site's domain and its subdomains are HTTPS only; the domains may be preloaded.
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_HSTS_PRELOAD", default=True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
# The __Host- prefix binds the auth cookie to the exact site host over HTTPS.
SESSION_COOKIE_NAME = f"__Host-{COOKIE_PREFIX}session"
CSRF_COOKIE_NAME = f"__Host-{COOKIE_PREFIX}csrftoken"
STORAGES = {
    "default": {"BACKEND": env("MEDIA_STORAGE_BACKEND", default="apps.common.storage.SiteFileSystemStorage")},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
EMAIL_BACKEND = env("EMAIL_BACKEND", default="django.core.mail.backends.smtp.EmailBackend")
