"""Staff of the operators' admin (public schema): their roles (groups) and second step.

Only superusers see this page (no role has the accounts permissions). The roles'
permissions are kept in code (apps.accounts.staff.ROLES); a staff member gets a role by
its group. "Reset the second step" deletes a staff member's authenticator device, for a
lost phone, and mails them a one-time link to set up a new one
(apps.accounts.services.staff_enrolment): their password alone sets up nothing."""

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.contrib.auth.models import Group
from django.db.models import Exists, OuterRef
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django_otp.plugins.otp_totp.models import TOTPDevice

from apps.accounts.models import User
from apps.accounts.services.staff_enrolment import second_step_reset
from apps.common.exceptions import ApplicationError


class StaffCreationForm(AdminUserCreationForm):
    class Meta(AdminUserCreationForm.Meta):
        model = User
        fields = ("username", "email")


class StaffChangeForm(UserChangeForm):
    class Meta(UserChangeForm.Meta):
        model = User
        fields = ("username", "email", "is_active", "is_staff", "is_superuser", "groups")

    groups = forms.ModelMultipleChoiceField(
        queryset=Group.objects.order_by("name"), required=False, widget=forms.CheckboxSelectMultiple, label=_("roles")
    )


@admin.register(User)
class StaffAdmin(UserAdmin):
    form = StaffChangeForm
    add_form = StaffCreationForm
    list_display = ("username", "email", "roles", "is_superuser", "is_active", "second_step", "last_login")
    list_filter = ("is_active", "is_superuser", "groups")
    search_fields = ("username", "email")
    ordering = ("username",)
    filter_horizontal = ()
    actions = ["second_step_reset"]
    fieldsets = (
        (None, {"fields": ("username", "password")}),
        (_("Contact"), {"fields": ("email",)}),
        (_("Access"), {"fields": ("is_active", "is_staff", "is_superuser", "groups")}),
        (_("Dates"), {"fields": ("last_login", "date_joined")}),
    )
    add_fieldsets = (
        (None, {"classes": ("wide",), "fields": ("username", "email", "usable_password", "password1", "password2")}),
    )
    readonly_fields = ("last_login", "date_joined")

    def get_queryset(self, request):
        enrolled = TOTPDevice.objects.filter(user=OuterRef("pk"), confirmed=True)
        return super().get_queryset(request).prefetch_related("groups").annotate(enrolled=Exists(enrolled))

    def save_model(self, request, obj, form, change) -> None:
        if not change:  # everyone in this schema is staff of the admin
            obj.is_staff = True
        super().save_model(request, obj, form, change)

    @admin.display(description=_("roles"))
    def roles(self, obj: User) -> str:
        return ", ".join(group.name for group in obj.groups.all())

    @admin.display(description=_("second step set up"), boolean=True)
    def second_step(self, obj: User) -> bool:
        return obj.enrolled

    @admin.action(description=_("Reset the second step (lost phone)"), permissions=["change"])
    def second_step_reset(self, request, queryset):
        # The link is mailed for the operators' host this admin is served on. The service
        # records who reset whose second step in the audit trail.
        base_url = request.build_absolute_uri("/")
        done = 0
        for user in queryset:
            try:
                second_step_reset(user=user, by=request.user, base_url=base_url)
            except ApplicationError as error:
                self.message_user(request, error.message, messages.ERROR)
                continue
            done += 1
        if done:
            self.message_user(
                request,
                ngettext(
                    "%(count)d staff member gets an e-mail with a link to set up the second step again.",
                    "%(count)d staff members get an e-mail with a link to set up the second step again.",
                    done,
                )
                % {"count": done},
                messages.SUCCESS,
            )
