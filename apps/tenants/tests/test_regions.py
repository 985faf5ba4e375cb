"""The shared region lookup (apps.tenants.selectors): ISO 3166-2 names as members read them."""

from apps.profiles.geocoding import region_code
from apps.tenants.regions import iso_regions, region_name, region_plain_name, regions_for_country
from apps.tenants.selectors import regions_offered


def test_bracketed_notes_are_left_out():
    assert region_plain_name("Wales [Cymru GB-CYM]") == "Wales"
    assert region_plain_name("Catalunya [Cataluña]") == "Catalunya"
    assert region_plain_name("Scotland") == "Scotland"


def test_one_region_by_its_code():
    assert region_name("GB-WLS") == "Wales"
    assert region_name("ES-IB") == "Illes Balears"
    assert region_name("GB-SCT") == "Scotland"
    assert region_name("") == ""
    assert region_name("XX-ZZ") == "XX-ZZ"  # unknown to ISO: the code itself


def test_the_lists_offered_everywhere_have_plain_names_sorted_by_them():
    for country in ("GB", "ES", "FR", "DE", "NL", "BE"):
        names = [region["name"] for region in regions_for_country(country)]
        assert names == sorted(names)
        assert not [name for name in names if "[" in name], country
    assert {"code": "GB-WLS", "name": "Wales"} in regions_for_country("GB")
    assert regions_offered(["GB-WLS"], "GB") == [{"code": "GB-WLS", "name": "Wales"}]


def test_matching_place_names_still_knows_isos_other_names():
    assert any("[" in region["name"] for region in iso_regions("GB"))
    assert region_code("ES", "Cataluña") == "ES-CT"
    assert region_code("GB", "Wales") == "GB-WLS"
