"""Members who joined before the "photo_decisions" notification type existed get it on
both channels, as a new member does (it is part of the service, never marketing)."""

from django.db import migrations

TYPE = "photo_decisions"


def add_type(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    table = User._meta.db_table
    with schema_editor.connection.cursor() as cursor:
        for column in ("email_notifications", "push_notifications"):
            cursor.execute(
                f"UPDATE {table} SET {column} = array_append({column}, %s) WHERE NOT (%s = ANY({column}))",  # noqa: S608
                [TYPE, TYPE],
            )


def remove_type(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    table = User._meta.db_table
    with schema_editor.connection.cursor() as cursor:
        for column in ("email_notifications", "push_notifications"):
            cursor.execute(f"UPDATE {table} SET {column} = array_remove({column}, %s)", [TYPE])  # noqa: S608


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0006_staff_enrolment_link"),
    ]

    operations = [migrations.RunPython(add_type, remove_type)]
