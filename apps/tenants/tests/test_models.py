from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError

from apps.tenants.models import Site
from tests.factories import CompanyFactory


def test_niche_maps_to_its_lander_prefix():
    prefixes = {niche: Site(niche=niche).lander_prefix for niche in range(1, 8)}
    assert prefixes == {1: "", 2: "she", 3: "bdsm", 4: "bbw", 5: "gilf", 6: "milf", 7: "gay"}


def test_domain_language_must_be_one_of_the_sites_languages():
    site = Site(name="X", schema_name="site_x", languages=["en", "fr"], domain_language="de", countries=["GB"])
    with pytest.raises(ValidationError) as error:
        site.clean()
    assert "domain_language" in error.value.message_dict


def test_unknown_profile_and_search_fields_are_rejected():
    site = Site(
        name="X",
        schema_name="site_x",
        countries=["GB"],
        visible_profile_fields=["age", "shoe_size"],
        search_fields=["about_me"],
    )
    with pytest.raises(ValidationError) as error:
        site.clean()
    assert set(error.value.message_dict) == {"visible_profile_fields", "search_fields"}


def test_theme_colour_must_be_hex(db):
    site = Site(name="X", schema_name="site_x", countries=["GB"], theme_primary="blue")
    with pytest.raises(ValidationError) as error:
        site.full_clean(exclude=["schema_name"])
    assert "theme_primary" in error.value.message_dict


@pytest.mark.django_db
def test_terms_version_date_is_the_fixed_date_or_a_later_company_date():
    older = CompanyFactory.build(added=datetime(2020, 1, 1, tzinfo=UTC))
    newer = CompanyFactory.build(added=datetime(2025, 3, 4, 5, 6, tzinfo=UTC))
    assert older.terms_version_date == datetime(2023, 12, 1, 12, 0, tzinfo=UTC)
    assert newer.terms_version_date == datetime(2025, 3, 4, 5, 6, tzinfo=UTC)
