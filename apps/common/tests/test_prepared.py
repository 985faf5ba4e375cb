"""A prepared query gives what its queryset gives, with any values, in any thread, and
refuses what it cannot replay (apps.common.prepared)."""

import pytest
from django.db.models import Count, Exists, OuterRef

from apps.chat.models import Participant
from apps.chat.tests.helpers import credits_give, member, send
from apps.common.prepared import PreparedQuery
from apps.profiles.models import Block
from conftest import on_site
from tests.live import in_thread

pytestmark = pytest.mark.django_db


def _participants(user_id, conversation_id):
    return (
        Participant.objects.select_related("conversation", "profile", "profile__user")
        .annotate(blocked=Exists(Block.objects.filter(blocker_id=user_id, blocked_id=OuterRef("profile_id"))))
        .filter(conversation_id=conversation_id)
        .order_by("pk")
    )


def _state(rows):
    return [
        (row.pk, row.user_id, row.blocked, row.conversation.pk, row.profile.name, getattr(row.profile.user, "pk", None))
        for row in rows
    ]


def test_models_with_related_objects_and_annotations_as_the_queryset_gives_them(site, django_assert_num_queries):
    anna, ben, cleo = member(site, "Anna"), member(site, "Ben"), member(site, "Cleo")
    for profile in (anna, cleo):
        credits_give(site, profile.user, 5)
    first, _message = send(site, anna, ben)
    second, _message = send(site, cleo, ben)
    prepared = PreparedQuery(_participants)
    with on_site(site):
        Block.objects.create(blocker=anna.user, blocked=ben)
        for user_id, conversation_id in [
            (anna.user_id, first.pk),
            (cleo.user_id, second.pk),
            (anna.user_id, second.pk),
        ]:
            with django_assert_num_queries(1):
                rows = prepared.objects(user_id=user_id, conversation_id=conversation_id)
            assert _state(rows) == _state(_participants(user_id, conversation_id))
            assert len(rows) == 2
        assert [row.blocked for row in prepared.objects(user_id=anna.user_id, conversation_id=first.pk)] == [
            False,
            True,
        ]
        # Another thread runs it on its own connection, which does not see this test's
        # uncommitted rows (on the compiling thread's connection it would).
        assert in_thread(_run_on_site, site, prepared, cleo.user_id, second.pk) == []
        assert prepared.objects(user_id=anna.user_id, conversation_id=0) == []


def _run_on_site(site, prepared, user_id, conversation_id):
    with on_site(site):
        return prepared.objects(user_id=user_id, conversation_id=conversation_id)


def test_rows_and_refusals(site):
    anna, ben = member(site, "Anna"), member(site, "Ben")
    credits_give(site, anna.user, 5)
    conversation, _message = send(site, anna, ben)
    counted = PreparedQuery(
        lambda conversation_id: (
            Participant.objects.filter(conversation_id=conversation_id)
            .values("conversation_id")
            .annotate(n=Count("id"))
            .values_list("n")
        )
    )
    with on_site(site):
        assert counted.rows(conversation_id=conversation.pk) == [(2,)]
        assert counted.rows(conversation_id=conversation.pk + 1000) == []
        with pytest.raises(TypeError):
            counted.rows(conversation_id=str(conversation.pk))
        with pytest.raises(TypeError):
            counted.objects(conversation_id=conversation.pk)
        unused = PreparedQuery(lambda conversation_id, user_id: Participant.objects.filter(user_id=user_id))
        with pytest.raises(ValueError, match="conversation_id"):
            unused.objects(conversation_id=1, user_id=1)


def test_strings_and_aware_datetimes_as_values(site, client_for):
    """A session's read (apps.common.sessions): a key and a moment, each in its place."""
    from datetime import UTC, datetime, timedelta

    from django.contrib.sessions.models import Session
    from django.utils import timezone

    prepared = PreparedQuery(
        lambda key, now: Session.objects.filter(session_key=key, expire_date__gt=now).values_list("session_key")
    )
    with on_site(site):
        now = timezone.now()
        Session.objects.create(session_key="k" * 32, session_data="a", expire_date=now + timedelta(hours=1))
        Session.objects.create(session_key="l" * 32, session_data="b", expire_date=now - timedelta(hours=1))
        assert prepared.rows(key="k" * 32, now=now) == [("k" * 32,)]
        assert prepared.rows(key="k" * 32, now=now + timedelta(hours=2)) == []
        assert prepared.rows(key="l" * 32, now=now) == []
        assert prepared.rows(key="l" * 32, now=now - timedelta(hours=2)) == [("l" * 32,)]
        assert prepared.rows(key="k' OR 1=1 --", now=now) == []
        with pytest.raises(TypeError, match="aware"):
            prepared.rows(key="k" * 32, now=datetime(2030, 1, 1))  # noqa: DTZ001
        with pytest.raises(TypeError, match="key must be a str"):
            prepared.rows(key=1, now=now)
        with pytest.raises(TypeError):
            prepared.rows(key="k" * 32)
        assert prepared.rows(key="k" * 32, now=datetime(2000, 1, 1, tzinfo=UTC)) == [("k" * 32,)]
    # A lookup that changes the value (a pattern) cannot be replayed with another one.
    pattern = PreparedQuery(lambda key: Session.objects.filter(session_key__contains=key).values_list("session_key"))
    with on_site(site), pytest.raises(ValueError, match="key"):
        pattern.rows(key="k")


def _prepared_on_connection(sql_start: str) -> list[str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM pg_prepared_statements WHERE statement LIKE %s", [sql_start + "%"])
        return [name for (name,) in cursor.fetchall()]


def test_server_prepared_statements_follow_the_site(two_sites, django_assert_num_queries):
    """`server=True` (and `server_cursor`): bound and prepared by PostgreSQL once per
    connection, counted as any statement, and each site reads its own table: PostgreSQL
    parses the statement again under another site's `search_path`."""
    from datetime import timedelta

    from django.contrib.sessions.models import Session
    from django.utils import timezone

    from apps.common.prepared import server_cursor

    one, other = two_sites
    now = timezone.now()
    for site, data in ((one, "one's"), (other, "other's")):
        with on_site(site):
            Session.objects.create(session_key="k" * 32, session_data=data, expire_date=now + timedelta(hours=1))
    prepared = PreparedQuery(
        lambda key, now: Session.objects.filter(session_key=key, expire_date__gt=now).values_list("session_data"),
        server=True,
    )
    sql, _params = prepared.statement(key="k" * 32, now=now)
    for site, data in ((one, "one's"), (other, "other's"), (one, "one's"), (other, "other's")):
        with on_site(site):
            assert prepared.rows(key="k" * 32, now=now) == [(data,)]
            with django_assert_num_queries(1):  # after the site's search_path was set
                assert prepared.rows(key="k" * 32 + "x", now=now) == []
            assert len(_prepared_on_connection(sql[:60])) == 1
    with on_site(other), server_cursor() as cursor:
        cursor.execute(
            'SELECT "session_data" FROM "django_session" WHERE "session_key" = ANY(%s) AND "expire_date" > %s',
            [["k" * 32, "l" * 32], now],
        )
        assert cursor.fetchall() == [("other's",)]
