from django.db import connection

from apps.tenants.models import Site
from apps.tenants.services import site_create
from tests.staff import staff_client, staff_member


def _tables(schema: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = %s", [schema])
        return {row[0] for row in cursor.fetchall()}


def test_a_new_site_gets_a_clone_of_the_template_schema(db, settings):
    # Given a marker row that exists only in the template schema
    template = settings.TENANT_BASE_SCHEMA
    with connection.cursor() as cursor:
        cursor.execute(f'INSERT INTO "{template}".auth_group (name) VALUES (%s)', ["cloned-marker"])
    # When a site is created
    site = site_create(name="Clone test", domain="clone.localhost", countries=["NL"])
    # Then its schema has every table of the template and the template's rows
    assert _tables(site.schema_name) == _tables(template)
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT name FROM "{site.schema_name}".auth_group')
        assert ("cloned-marker",) in cursor.fetchall()
        cursor.execute(f'SELECT count(*) FROM "{site.schema_name}".django_migrations')
        cloned_migrations = cursor.fetchone()[0]
        cursor.execute(f'SELECT count(*) FROM "{template}".django_migrations')
        assert cloned_migrations == cursor.fetchone()[0]


def test_saving_a_new_site_in_the_admin_creates_its_schema(db, django_user_model, rf):
    from django.contrib import admin
    from django.test import Client

    from apps.tenants.admin import SiteAdmin

    operator = staff_member("operators", "operator")
    client = staff_client(operator)
    request = rf.get("/admin/tenants/site/add/")
    request.user = operator
    form = SiteAdmin(Site, admin.site).get_form(request)()
    data = {}
    for name, field in form.fields.items():
        value = form[name].value()
        if isinstance(value, list):
            data[name] = ",".join(value) if field.__class__.__name__ == "SimpleArrayField" else value
        elif value is not None:
            data[name] = value
    data.update(
        {
            "name": "Admin made",
            "schema_name": "",
            "languages": "en,fr",
            "domain_language": "fr",
            "countries": ["FR", "BE"],
            "niche": 3,
            "domains-TOTAL_FORMS": 1,
            "domains-INITIAL_FORMS": 0,
            "domains-MIN_NUM_FORMS": 1,
            "domains-MAX_NUM_FORMS": 1000,
            "domains-0-domain": "admin-made.localhost",
            "domains-0-is_primary": "on",
            "minimum_message_costs-TOTAL_FORMS": 1,
            "minimum_message_costs-INITIAL_FORMS": 0,
            "minimum_message_costs-MIN_NUM_FORMS": 0,
            "minimum_message_costs-MAX_NUM_FORMS": 1000,
            "minimum_message_costs-0-country": "FR",
            "minimum_message_costs-0-costs": 2,
            "minimum_message_costs-0-currency": "EUR",
            "gifts-TOTAL_FORMS": 0,
            "gifts-INITIAL_FORMS": 0,
            "gifts-MIN_NUM_FORMS": 0,
            "gifts-MAX_NUM_FORMS": 1000,
        }
    )
    response = client.post("/admin/tenants/site/add/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    site = Site.objects.get(schema_name="site_admin_made")
    assert site.domains.get().domain == "admin-made.localhost"
    assert site.minimum_message_costs.get().costs == 2
    assert "accounts_user" in _tables("site_admin_made")
    # and it serves at once on its domain
    page = Client(HTTP_HOST="admin-made.localhost").get("/")
    assert page.status_code == 200
    assert "Admin made" in page.content.decode()


def test_support_finds_members_of_every_site_in_the_directory(two_sites, django_user_model):

    from apps.accounts.services.directory import directory_sync
    from conftest import on_site

    first, second = two_sites
    with on_site(first):
        anna = django_user_model.objects.create_user("AnnaFirst", "anna@example.com", "pw-123456789")
        directory_sync(user=anna)
    with on_site(second):
        other = django_user_model.objects.create_user("AnnaSecond", "anna@example.com", "pw-123456789")
        directory_sync(user=other)
    client = staff_client(staff_member("support", "support"))
    body = client.get("/admin/support/member/", {"q": "anna@example.com"}).content.decode()
    assert "AnnaFirst" in body and "AnnaSecond" in body
    assert "Heartline" in body and "Manline" in body
