"""Settings of the bench's own servers only (DJANGO_SETTINGS_MODULE=bench.settings):
the development settings plus bench-only URLs (bench.bench_urls). Production and the
development server never load this module."""

import os

from config.settings.local import *  # noqa: F403

ROOT_URLCONF = "bench.bench_urls"

# Under ASGI each request's sync code runs in a thread of its own, so a persistent
# connection is left open per request: one bench server held 80 sessions after a few
# hundred requests and the shared PostgreSQL ran out of connections. Never persistent
# here: the bench servers use the settings' psycopg pool (DATABASE_POOL_MAX_SIZE), or,
# without it, one connection per request, the same for the baseline and the measured.
DATABASES["default"]["CONN_MAX_AGE"] = 0  # noqa: F405

# The channel layer's keys of a bench run carry a prefix of their own (set by bench_ws for
# its server and itself): the bench's site ids restart at 1 in every fresh database, and
# its groups ("site1.member7") must never meet a development server's or an earlier run's.
_channel_prefix = os.environ.get("BENCH_CHANNEL_PREFIX")
if _channel_prefix:
    CHANNEL_LAYERS["default"]["CONFIG"]["prefix"] = _channel_prefix  # noqa: F405
