"""Signals of the profiles app for the apps built on it. Each is sent inside the
transaction of the change, so what a receiver writes commits or fails with it."""

from django.dispatch import Signal

# A member's new photo waits for approval: sent with `site` and `photo`; support's photo
# queue (apps.moderation) opens its row.
photo_pending = Signal()

# A member deleted a photo: sent with `site` and `photo_id`; it leaves support's queue.
photo_deleted = Signal()

# A member sent a selfie to be verified: sent with `site` and `verification`; support's
# verification queue (apps.moderation) opens its row.
verification_requested = Signal()

# A complaint was filed: sent with `site` and `complaint`; support's complaint queue
# (apps.moderation) opens its case.
complaint_filed = Signal()
