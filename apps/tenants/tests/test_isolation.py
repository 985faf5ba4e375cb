"""Everything that runs outside a request carries its site."""

from django.core.cache import cache
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection

from config.celery import app
from conftest import on_site


@app.task(name="tests.current_schema")
def current_schema() -> str:
    return connection.schema_name


def test_cache_entries_of_one_site_are_invisible_on_another(two_sites):
    first, second = two_sites
    with on_site(first):
        cache.set("greeting", "hello from the first site", 60)
    with on_site(second):
        assert cache.get("greeting") is None
        cache.set("greeting", "second", 60)
    with on_site(first):
        assert cache.get("greeting") == "hello from the first site"
        cache.delete("greeting")
    with on_site(second):
        cache.delete("greeting")


def test_celery_task_runs_in_the_schema_of_the_site_that_queued_it(two_sites):
    first, second = two_sites
    with on_site(first):
        assert current_schema.delay().get() == first.schema_name
    with on_site(second):
        assert current_schema.delay().get() == second.schema_name


def test_celery_task_switches_to_the_schema_in_its_headers(two_sites):
    """A worker process starts in the public schema; the header decides the site."""
    first, second = two_sites
    with on_site(first):
        result = current_schema.apply_async(headers={"_schema_name": second.schema_name})
        assert result.get() == second.schema_name
        assert connection.schema_name == first.schema_name


def test_media_paths_start_with_the_site_schema(two_sites):
    first, second = two_sites
    with on_site(first):
        name = default_storage.save("photos/a.txt", ContentFile(b"first"))
    try:
        assert name.startswith(f"{first.schema_name}/photos/")
        with on_site(second):
            other = default_storage.generate_filename("photos/a.txt")
        assert other.startswith(f"{second.schema_name}/")
    finally:
        default_storage.delete(name)


def test_a_session_of_one_site_is_anonymous_on_another(two_sites, client_for):
    first, second = two_sites
    client = client_for(first)
    client.get("/")
    with on_site(first):
        from django.contrib.sessions.backends.db import SessionStore

        session = SessionStore()
        session["marker"] = "first"
        session.create()
    with on_site(second):
        from django.contrib.sessions.backends.db import SessionStore

        assert not SessionStore(session_key=session.session_key).exists(session.session_key)


def test_the_site_cache_stays_bounded_under_made_up_hosts(site, client_for, monkeypatch):
    from django.test import Client

    from apps.tenants import middleware

    monkeypatch.setattr(middleware, "SITE_CACHE_MAX_ENTRIES", 5)
    for number in range(20):
        assert Client(HTTP_HOST=f"random{number}.localhost").get("/").status_code == 404
    assert client_for(site).get("/").status_code == 200
    assert len(middleware._site_cache) <= 5
    assert "localhost" in middleware._site_cache
