"""Accounts. In a site schema these are the site's members; in the public schema
the same table holds the operators who use the admin."""

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    email = models.EmailField(_("e-mail address"), blank=True)
    language = models.CharField(_("language"), max_length=5, default="en")

    class Meta:
        verbose_name = _("user")
        verbose_name_plural = _("users")
