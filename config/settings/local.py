from config.settings.base import *  # noqa: F403
from config.settings.base import env

DEBUG = env.bool("DJANGO_DEBUG", default=True)

# Serve the freshly built assets straight from static/ while developing.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True

# Links in e-mails and pushes point at the development server (`make run` sets the port).
SITE_URL_SCHEME = env("SITE_URL_SCHEME", default="http")
# `make run` serves on 8000 unless PORT says otherwise; commands run beside it (the staff
# set-up links of staff_create) name that port too.
SITE_URL_PORT = env("SITE_URL_PORT", default="8000")
