from django.urls import path

from apps.profiles.api import views as profile_api

urlpatterns: list = [
    path("interests.php", profile_api.InterestsApi.as_view(), name="api-interests"),
    path("regions.php", profile_api.RegionsApi.as_view(), name="api-regions"),
    path("companyinfo.php", profile_api.CompanyInfoApi.as_view(), name="api-companyinfo"),
    path("photos.php", profile_api.PhotosApi.as_view(), name="api-photos"),
    path("dismiss.php", profile_api.DismissApi.as_view(), name="api-dismiss"),
]

from apps.profiles.api.geocode import GeocodeApi  # noqa: E402 - each call adds its own lines

urlpatterns += [path("geocode.php", GeocodeApi.as_view(), name="api-geocode")]

# Member search (issue 4 item 4).
from apps.profiles.api.search import SearchApi  # noqa: E402

urlpatterns += [path("search.php", SearchApi.as_view(), name="api-search")]

# Block and unblock (issue 4 item 3).
from apps.profiles.api.blocks import BlockApi  # noqa: E402

urlpatterns += [path("block.php", BlockApi.as_view(), name="api-block")]

# Reporting a message or a conversation from the chat.
from apps.profiles.api.report import ReportApi  # noqa: E402

urlpatterns += [path("report.php", ReportApi.as_view(), name="api-report")]
