from django.db import migrations, models


class Migration(migrations.Migration):
    """The search indexes cover the counts (an index-only scan of COUNT_LIMIT entries
    instead of a bitmap of every match and a heap read per row); with a region, the
    region's index does. The new indexes are built before the old ones are dropped: a
    build blocks the table's writes, not its reads, and the drops' exclusive locks come
    last, held only until the commit."""

    dependencies = [
        ("profiles", "0007_complaint_safety_reasons"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="profile",
            index=models.Index(
                fields=["status", "gender", "country", "date_of_birth"],
                include=["user", "region", "id"],
                name="profile_search_count_idx",
            ),
        ),
        migrations.AddIndex(
            model_name="profile",
            index=models.Index(
                models.F("country"),
                models.F("region"),
                models.F("created").desc(),
                models.F("id").desc(),
                condition=models.Q(("status", "active")),
                include=("gender", "date_of_birth", "user"),
                name="profile_search_region_idx",
            ),
        ),
        migrations.RemoveIndex(model_name="profile", name="profile_search_idx"),
        migrations.RemoveIndex(model_name="profile", name="profile_search_region_new_idx"),
    ]
