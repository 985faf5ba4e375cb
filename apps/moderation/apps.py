from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModerationConfig(AppConfig):
    name = "apps.moderation"
    label = "moderation"
    verbose_name = _("Moderation")

    def ready(self) -> None:
        # The queues' rows change in the transaction of the member's change that the
        # profiles app announces (apps.profiles.signals): a photo waiting for approval,
        # a photo deleted, a selfie to verify, a complaint filed.
        from apps.moderation import index
        from apps.profiles.signals import complaint_filed, photo_deleted, photo_pending, verification_requested

        def opened(sender, *, site, photo, **kwargs) -> None:
            index.photo_review_open(site=site, photo=photo)

        def dropped(sender, *, site, photo_id, **kwargs) -> None:
            index.photo_review_drop(site=site, photo_id=photo_id)

        def selfie(sender, *, site, verification, **kwargs) -> None:
            index.verification_review_open(site=site, verification=verification)

        def filed(sender, *, site, complaint, **kwargs) -> None:
            index.complaint_case_sync(site=site, complaint=complaint)

        photo_pending.connect(opened, weak=False, dispatch_uid="moderation-photo-pending")
        photo_deleted.connect(dropped, weak=False, dispatch_uid="moderation-photo-deleted")
        verification_requested.connect(selfie, weak=False, dispatch_uid="moderation-verification-requested")
        complaint_filed.connect(filed, weak=False, dispatch_uid="moderation-complaint-filed")
