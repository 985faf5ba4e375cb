"""Signals of the moderation queues for the apps built on them."""

from django.dispatch import Signal

# A moderator decided a photo or moved a complaint. Sent inside the transaction of the
# decision with what the staff audit trail records: `actor`, `action`, `site`,
# `member_id`, `target`, `before`, `after` and `reason`. The trail (apps.support)
# records it, so that a row that cannot be written undoes the decision.
moderation_decided = Signal()
