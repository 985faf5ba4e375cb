"""Templates from the apps' `templates/` folders, except django-tenants': its admin
index and app list colour the apps with an inline <style> and style attributes, which
the admin's Content Security Policy (no inline styles) refuses. Django's own admin
templates are used instead."""

from django.template.loaders.app_directories import Loader as AppDirectoriesLoader

SKIPPED = ("/django_tenants/",)


class Loader(AppDirectoriesLoader):
    def get_dirs(self):
        return [folder for folder in super().get_dirs() if not any(part in str(folder) for part in SKIPPED)]
