from django.urls import path

from apps.accounts import views_settings as views

urlpatterns = [
    path("notifications", views.settings_page, name="notifications"),
    path("notifications/delete", views.account_delete, name="account-delete"),
    path("notifications/export", views.account_export, name="account-export"),
    path("account-deleted", views.account_deleted, name="account-deleted"),
    path("reactivate", views.reactivate, name="reactivate"),
    path("mail-change/do", views.mail_change_do, name="mail-change-do"),
    path("mail-check/do", views.mail_check_do, name="mail-check-do"),
    path("unsubscribe", views.unsubscribe, name="unsubscribe"),
]
