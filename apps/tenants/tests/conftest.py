import pytest
from django.conf import settings
from django.db import connection


@pytest.fixture(autouse=True)
def _template_sequences_kept(request):
    """Tests here write rows into the template schema. Their transaction is rolled
    back, but sequences are not transactional: put the template's back where they
    were, so later clones still match the demo sites made at setup."""
    if "db" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("db")
    template = settings.TENANT_BASE_SCHEMA
    with connection.cursor() as cursor:
        cursor.execute("SELECT sequencename FROM pg_sequences WHERE schemaname = %s", [template])
        positions = {}
        for (name,) in cursor.fetchall():
            cursor.execute(f'SELECT last_value, is_called FROM "{template}"."{name}"')
            positions[name] = cursor.fetchone()
    yield
    with connection.cursor() as cursor:
        for name, (last_value, is_called) in positions.items():
            cursor.execute("SELECT setval(%s, %s, %s)", [f'"{template}"."{name}"', last_value, is_called])
