"""The cache backend (apps.common.cache): Django's Redis cache with one client per pool."""

import threading

from django.core.cache import cache, caches

from apps.common.cache import SiteRedisCache


def test_the_configured_cache_is_the_site_backend():
    assert isinstance(caches["default"], SiteRedisCache)


def test_one_client_serves_every_call_of_a_thread():
    client = cache._cache.get_client(write=True)
    cache.set("cache-test:a", 1, 30)
    assert cache.get("cache-test:a") == 1
    assert cache._cache.get_client(write=True) is client
    assert cache._cache.get_client() is client  # one server: reads use the same pool


def test_each_thread_has_its_own_cache_and_sees_the_same_data():
    cache.set("cache-test:b", "value", 30)
    seen = {}

    def read():
        seen["cache"] = caches["default"]
        seen["value"] = caches["default"].get("cache-test:b")

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    assert seen["value"] == "value"
    assert seen["cache"] is not caches["default"]
