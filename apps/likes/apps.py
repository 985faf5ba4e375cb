from django.apps import AppConfig


class LikesConfig(AppConfig):
    name = "apps.likes"
    label = "likes"

    def ready(self) -> None:
        from apps.accounts.selectors import member_totals_register
        from apps.common.islands import island_strings_register
        from apps.likes.islands import swipe_game_strings

        member_totals_register(new_likes_total)
        island_strings_register("SwipeGame", swipe_game_strings)


def new_likes_total(user) -> dict:
    """The top bar's "newLikes" count (spec §9: the badge caps it at 99+)."""
    from apps.likes.selectors import likes_new_count

    return {"newLikes": likes_new_count(member=user)}
