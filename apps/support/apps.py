from django.apps import AppConfig


class SupportConfig(AppConfig):
    name = "apps.support"
    label = "support"

    def ready(self) -> None:
        from apps.accounts.signals import staff_second_step
        from apps.support import checks  # noqa: F401 - registers the serving role's check
        from apps.support.admin_audit import audit_every_model_admin
        from apps.support.staff_audit import moderation_decision_record, staff_second_step_record

        audit_every_model_admin()
        # An erased member's e-mail address leaves the trail with the member's rows.
        from apps.accounts.services.deletion import member_record_eraser_register
        from apps.support.audit import member_audit_redact

        member_record_eraser_register(member_audit_redact)
        staff_second_step.connect(staff_second_step_record, dispatch_uid="support-staff-second-step")
        # A moderator's decision in the queues is audited (apps.moderation.signals).
        from apps.moderation.signals import moderation_decided

        moderation_decided.connect(moderation_decision_record, dispatch_uid="support-moderation-decided")
        # A complaint's page offers the console's actions on the member (apps.moderation.console).
        from apps.moderation.console import ConsoleActions, console_actions_register
        from apps.support import services

        console_actions_register(
            ConsoleActions(
                member_actions=tuple(services.COMPLAINT_MEMBER_ACTIONS),
                complaint_act=services.complaint_act,
                export_made=services.export_made,
            )
        )
