from django.db import migrations, models


class Migration(migrations.Migration):
    """The search index covers the counts (an index-only scan of COUNT_LIMIT entries
    instead of a bitmap of every match and a heap read per row)."""

    dependencies = [
        ("profiles", "0007_complaint_safety_reasons"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="profile", name="profile_search_idx"),
        migrations.AddIndex(
            model_name="profile",
            index=models.Index(
                fields=["status", "gender", "country", "date_of_birth"],
                include=["user", "region", "id"],
                name="profile_search_idx",
            ),
        ),
    ]
