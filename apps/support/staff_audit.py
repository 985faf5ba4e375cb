"""Staff actions that apps below support announce, in the audit trail: the staff's
second step (who made a set-up link for whom and why, who set up a device with one:
apps.accounts.services.staff_enrolment) and the moderators' decisions in the queues
(apps.moderation.services). Each row is written inside the transaction of the change."""

from __future__ import annotations

from apps.support.audit import audit_record


def staff_second_step_record(sender, *, user, by, event: str, cause: str, expires, **kwargs) -> None:
    """`apps.accounts.signals.staff_second_step` receiver: one row, in the transaction
    of the change (a row that cannot be written undoes the link or the set-up)."""
    audit_record(
        actor=by,
        action=f"staff.second_step.{event}",
        target=f"accounts.User:{user.pk} {user.get_username()}",
        after={"link_valid_until": expires},
        reason=cause,
    )


def moderation_decision_record(sender, *, signal, **fields) -> None:
    """`apps.moderation.signals.moderation_decided` receiver: one row with the fields the
    signal names, in the transaction of the decision (a row that cannot be written
    undoes it)."""
    audit_record(**fields)
