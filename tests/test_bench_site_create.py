"""The site-create benchmark times the clone inside `site_create` and fails when a site
was not made by cloning: its timer must see every clone, wherever `site_create` looks
`schema_clone` up."""

from apps.tenants.services import site_create
from bench.bench_site_create import clone_phase_timer


def test_the_clone_timer_sees_every_clone_site_create_makes(db):
    with clone_phase_timer() as phases:
        site_create(name="Timed Clone One", domain="timed-one.localhost")
        site_create(name="Timed Clone Two", domain="timed-two.localhost")
    assert len(phases["schema_clone"]) == 2
    assert all(seconds > 0 for seconds in phases["schema_clone"])
    assert len(phases["load_capture"]) == 2
