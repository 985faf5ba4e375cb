"""Whether a member's pages are all hidden (spec §7 page-hidden beacon): later
notifications go by push or e-mail instead of in-page when the member is away."""

from django.core.cache import cache
from django.utils import timezone

HIDDEN_SECONDS = 60 * 60


def _key(user_id: int) -> str:
    return f"presence:hidden:{user_id}"


def page_hidden_mark(*, user_id: int) -> None:
    cache.set(_key(user_id), timezone.now().isoformat(), HIDDEN_SECONDS)


def page_hidden_since(*, user_id: int) -> str | None:
    return cache.get(_key(user_id))


def page_hidden_clear(*, user_id: int) -> None:
    cache.delete(_key(user_id))
