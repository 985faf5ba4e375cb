import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

django_asgi_app = get_asgi_application()

# Django must be set up before the consumers and their models are imported.
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from apps.chat.routing import SameOriginValidator, SiteSessionMiddleware, websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        # /ws/ on every site's host (apps.chat.routing).
        "websocket": SameOriginValidator(SiteSessionMiddleware(URLRouter(websocket_urlpatterns))),
    }
)
