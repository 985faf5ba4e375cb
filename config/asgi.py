import gc
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
django.setup(set_prefix=False)

# The site's handler runs the sync middleware stack and the view in one worker-thread
# call per request (apps.common.asgi).
from apps.common.asgi import SiteASGIHandler  # noqa: E402

django_asgi_app = SiteASGIHandler()

# Django must be set up before the consumers and their models are imported.
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from apps.chat.routing import SameOriginValidator, SiteSessionMiddleware, websocket_urlpatterns  # noqa: E402
from apps.common.page_cache import PageCacheApp  # noqa: E402

application = ProtocolTypeRouter(
    {
        # Visitors' landing pages from the cache, before Django's request cycle
        # (apps.common.page_cache); everything else goes on to Django.
        "http": PageCacheApp(django_asgi_app),
        # /ws/ on every site's host (apps.chat.routing).
        "websocket": SameOriginValidator(SiteSessionMiddleware(URLRouter(websocket_urlpatterns))),
    }
)

# What the process holds once the application is loaded (Django, the apps, the URL conf,
# the consumers: some 140,000 objects) lives as long as the process. It is moved out of the
# garbage collector's generations, so a full collection walks only what requests and
# sockets made since: with 200 sockets open (bench "ws"), a full collection's CPU was 72 to
# 136 ms before, 32 to 41 ms after, a pause every request and socket of the process waits
# out. Collected first, so no garbage is frozen with it. Celery's workers do the same
# (config.celery).
from django.conf import settings  # noqa: E402

if settings.WEB_OBJECTS_FROZEN:
    gc.collect()
    gc.freeze()
