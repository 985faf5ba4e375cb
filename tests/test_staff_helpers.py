"""The staff helpers (tests/staff.py) give logged-in admin clients of each role."""

import pytest

from tests.staff import staff_client, staff_member

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("role", ["operators", "support", "superuser"])
def test_a_staff_client_reaches_the_admin_index(role):
    user = staff_member(role)
    assert user.is_staff
    assert staff_client(user).get("/admin/").status_code == 200


def test_an_unknown_role_is_refused():
    with pytest.raises(ValueError):
        staff_member("root")
