"""The staff's second step in the audit trail: who made a set-up link for whom (and
why), and who set up a device with one (apps.accounts.services.staff_enrolment)."""

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
