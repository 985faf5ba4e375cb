from apps.accounts.models import UserStatus
from apps.profiles.models import Block, Profile, ProfileStatus
from apps.profiles.visibility import blocked_by, has_blocked, profiles_visible_to
from conftest import on_site


def _member(django_user_model, name: str, **fields):
    user = django_user_model.objects.create_user(name, f"{name}@example.com", "pw-123456789", **fields)
    return Profile.objects.create(user=user, name=name, status=ProfileStatus.ACTIVE)


def test_hidden_profiles_never_show(site, django_user_model):
    with on_site(site):
        viewer = _member(django_user_model, "viewer")
        shown = _member(django_user_model, "shown")
        _member(django_user_model, "invisible", invisible=True)
        _member(django_user_model, "gone", status=UserStatus.DELETED)
        disabled = _member(django_user_model, "disabled")
        disabled.status = ProfileStatus.DISABLED
        disabled.save()
        blocked = _member(django_user_model, "blocked")
        blocker = _member(django_user_model, "blocker")
        Block.objects.create(blocker=viewer.user, blocked=blocked)
        Block.objects.create(blocker=blocker.user, blocked=viewer)
        names = set(profiles_visible_to(viewer.user).values_list("name", flat=True))
        assert names == {"shown"}
        assert blocked_by(viewer=viewer.user, profile=blocker)
        assert not blocked_by(viewer=viewer.user, profile=shown)
        assert has_blocked(viewer=viewer.user, profile=blocked)
        anonymous_names = set(profiles_visible_to(None).values_list("name", flat=True))
        assert anonymous_names == {"viewer", "shown", "blocked", "blocker"}
